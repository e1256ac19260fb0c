"""The experiments report as text: JSON-ready data, a plain-text table per scenario, and Markdown. Renderers only;
the join is atlas.runtime.experiments.report."""

from __future__ import annotations

from atlas.runtime.experiments.report import Figure, Report, ScenarioReport

COLUMNS = (
    "engine",
    "variant",
    "label",
    "metric",
    "unit",
    "A100 (article)",
    "line",
    "H200 absent",
    "95% interval",
    "A100 inside",
    "H200 on",
    "on/absent",
)


def spread_text(f: Figure) -> str:
    """The probe-free figure's 95% interval and what it rests on; 'one round' where none can be given."""
    if f.absent_ci is not None:
        i = f.absent_ci
        return f"{number(i.low)}-{number(i.high)} ({i.n} {i.over})"
    if f.is_single_round:
        return "one round"
    return "-"


def within_text(f: Figure) -> str:
    """'yes' where the article's A100 figure lies inside atlas's interval: the two cannot be told apart."""
    inside = f.article_within
    return "-" if inside is None else ("yes" if inside else "no")


def number(value: float | None) -> str:
    """A figure as the article writes them: whole numbers bare, others to 2 places (4 below 1); '-' when none."""
    if value is None:
        return "-"
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.4f}".rstrip("0") if abs(value) < 1 else f"{value:.2f}"


def cells(f: Figure) -> tuple[str, ...]:
    ratio = f"{f.ratio:.3f}" if f.ratio is not None else "-"
    return (
        f.engine,
        f.variant,
        f.label,
        f.metric,
        f.unit,
        number(f.article),
        str(f.article_line or "-"),
        number(f.absent),
        spread_text(f),
        within_text(f),
        number(f.on),
        ratio,
    )


def to_json(report: Report) -> dict:
    """Deterministic data for `--format json`."""
    setup = report.article.setup
    return {
        "article": {"gpu": setup.gpu, "model": setup.model, "date": setup.date, "engines": setup.engines},
        "scenarios": [_scenario_json(s) for s in report.scenarios],
    }


def _scenario_json(s: ScenarioReport) -> dict:
    run = s.run
    return {
        "scenario": s.name,
        "section": s.section,
        "title": s.title,
        "question": s.question,
        "status": s.status,
        "reason": s.reason,
        "no_figures": s.no_figures,
        "rows": [
            {
                "engine": f.engine,
                "variant": f.variant,
                "label": f.label,
                "metric": f.metric,
                "unit": f.unit,
                "article": f.article,
                "article_line": f.article_line,
                "absent": f.absent,
                "on": f.on,
                "on_over_absent": f.ratio,
                "absent_ci95": f.absent_ci.to_json() if f.absent_ci else None,
                "on_ci95": f.on_ci.to_json() if f.on_ci else None,
                "single_round": f.is_single_round,
                "article_within_ci95": f.article_within,
                "article_note": f.article_note,
                "note": f.note,
            }
            for f in s.figures
        ],
        "evidence": [
            {"engine": e.engine, "symbol": e.symbol, "where": e.where, "url": e.url, "text": e.text} for e in s.evidence
        ],
        "run": None
        if run is None
        else {
            "command": run.command,
            "date": run.date,
            "gpu": run.gpu,
            "model": run.model,
            "engines": run.engines,
            "notes": list(run.notes),
            "errors": list(run.errors),
        },
    }


def status_line(s: ScenarioReport) -> str:
    if s.run is not None:
        return f"measured {s.run.date} on {s.run.gpu or 'an unnamed GPU'}"
    return "not run" + (f": {s.reason}" if s.reason else " yet")


def render_human(report: Report) -> str:
    """One plain-text block per scenario: heading, the joined table, evidence, notes and errors."""
    setup = report.article.setup
    out = [f"article: {setup.gpu}, {setup.model}, {setup.date}; atlas: the results files' GPU and pins"]
    for s in report.scenarios:
        out += ["", f"s{s.section} {s.name} ({status_line(s)})", f"  {s.question}"]
        if s.no_figures and not any(f.article is not None for f in s.figures):
            out.append(f"  article: {s.no_figures}")
        if s.figures:
            out += ["  " + line for line in _aligned([COLUMNS, *map(cells, s.figures)])]
        out += [
            f"  evidence: {e.engine} {e.symbol} at {e.where}" + (f": {e.text}" if e.text else "") for e in s.evidence
        ]
        if s.run is not None:
            out += [f"  note: {n}" for n in s.run.notes] + [f"  error: {e}" for e in s.run.errors]
    return "\n".join(out)


def _aligned(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def render_markdown(report: Report) -> str:
    setup = report.article.setup
    out = [
        "# The article's experiments: A100 (article) and H200 (atlas)",
        "",
        f"Article: {setup.gpu}, {setup.model}, {setup.date}.",
    ]
    for s in report.scenarios:
        out += ["", f"## s{s.section} {s.name}", "", f"{s.question} *({status_line(s)})*", ""]
        if s.no_figures and not any(f.article is not None for f in s.figures):
            out += [s.no_figures, ""]
        if s.figures:
            out += ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
            out += ["| " + " | ".join(c.replace("|", "\\|") for c in cells(f)) + " |" for f in s.figures]
            out.append("")
        out += [
            f"- evidence: {e.engine} `{e.symbol}` at [{e.where}]({e.url})" + (f": {e.text}" if e.text else "")
            if e.url
            else f"- evidence: {e.engine} `{e.symbol}` at {e.where}" + (f": {e.text}" if e.text else "")
            for e in s.evidence
        ]
        if s.run is not None:
            out += [f"- note: {n}" for n in s.run.notes] + [f"- error: {e}" for e in s.run.errors]
    return "\n".join(out) + "\n"
