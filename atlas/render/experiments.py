"""The experiment pages: per scenario, the article's A100 figures beside atlas's H200 figures (probes
absent and on), the probe evidence tied to its source line at the pin, the notes and how it was run; plus an index
of the nine. Pure, from the report atlas.runtime.experiments.report builds."""

from __future__ import annotations

from collections.abc import Iterator

from atlas.render import urls
from atlas.render.content import MECHANISMS
from atlas.render.graphdata import as_script
from atlas.render.linker import Linker
from atlas.render.pages import engine_label, source_block
from atlas.runtime.experiments.report import Evidence, Report, ScenarioReport
from atlas.runtime.experiments.spread import Interval
from atlas.runtime.experiments.tables import number, spread_text, within_text

INDEX = "experiments/index.md"
CONTEXT = 2  # lines shown around an evidence line


def scenario_page(name: str) -> str:
    return f"experiments/{name}.md"


def nav_entry(report: Report) -> dict:
    return {
        "Experiments": [{"Overview": INDEX}]
        + [{f"s{s.section} {s.name}": scenario_page(s.name)} for s in report.scenarios]
    }


def experiment_pages(env, report: Report, linkers: dict[str, Linker]) -> Iterator[tuple[str, str]]:
    setup = report.article.setup
    rows = [
        {
            "s": s,
            "href": urls.rel_md(INDEX, scenario_page(s.name)),
            "num_article": sum(f.article is not None for f in s.figures),
            "num_measured": sum(f.absent is not None or f.on is not None for f in s.figures),
        }
        for s in report.scenarios
    ]
    yield INDEX, env.get_template("experiments.md.j2").render(setup=setup, rows=rows)
    for s in report.scenarios:
        page = scenario_page(s.name)
        figures, notes = _figures(s.figures)
        charts = figure_charts(s)
        key = f"experiments/{s.name}"
        if charts:
            yield f"assets/atlas/data/{key}.js", as_script(key, {str(i): c for i, c in enumerate(charts)})
        yield (
            page,
            env.get_template("experiment.md.j2").render(
                s=s,
                setup=setup,
                figures=figures,
                notes=notes,
                label=engine_label,
                evidence=[_evidence(page, i, e, s, linkers.get(e.engine)) for i, e in enumerate(s.evidence)],
                mechanism=_mechanism(page, s.section),
                index=urls.rel_md(page, INDEX),
                has_article=any(f.article is not None for f in s.figures),
                charts=[(str(i), c["title"]) for i, c in enumerate(charts)],
                chart_key=key,
                chart_src=urls.rel(page, f"assets/atlas/data/{key}.js"),
                root=urls.rel(page, "index.md").rsplit("index.html", 1)[0],
            ),
        )


def _figures(figures) -> tuple[list[dict], list[str]]:
    """The table's rows, and the row notes numbered once each (a note many rows share is listed once)."""
    notes: list[str] = []
    rows = []
    for f in figures:
        texts = ([f"article: {f.article_note}"] if f.article_note else []) + ([f"atlas: {f.note}"] if f.note else [])
        refs = []
        for text in texts:
            if text not in notes:
                notes.append(text)
            refs.append(notes.index(text) + 1)
        rows.append(
            {
                "f": f,
                "article": number(f.article),
                "absent": number(f.absent),
                "on": number(f.on),
                "ratio": f"{f.ratio:.3f}" if f.ratio is not None else "-",
                "spread": spread_text(f),
                "within": within_text(f),
                "refs": refs,
            }
        )
    return rows, notes


def figure_charts(s: ScenarioReport) -> list[dict]:
    """One chart per metric and unit: each figure's A100 value beside atlas's absent and on medians, each of those
    with a whisker: its 95% interval (atlas.runtime.experiments.spread, the table's) where it has one, else its
    rounds' lowest and highest where there were two rounds or more."""
    groups: dict[tuple[str, str], list] = {}
    for f in s.figures:
        if f.article is not None or f.absent is not None or f.on is not None:
            groups.setdefault((f.metric, f.unit), []).append(f)
    charts = []
    for (metric, unit), rows in groups.items():
        intervals = [
            [i, k, *whisker]
            for i, f in enumerate(rows)
            for k, whisker in ((1, _whisker(f.absent_ci, f.rounds_absent)), (2, _whisker(f.on_ci, f.rounds_on)))
            if whisker
        ]
        charts.append(
            {
                "title": f"{metric} ({unit or 'value'}): A100 (article) beside H200",
                "unit": unit or metric,
                "x_label": "engine, variant, label",
                "categories": [f"{engine_label(f.engine)}\n{f.variant}\n{f.label}" for f in rows],
                "article": [f.article for f in rows],
                "absent": [f.absent for f in rows],
                "on": [f.on for f in rows],
                "intervals": intervals,
            }
        )
    return charts


def _whisker(ci: Interval | None, rounds: tuple[float, ...]) -> tuple[float, float] | None:
    """(low, high) of a bar's whisker: the bootstrap interval, else the rounds' range; None without either."""
    if ci is not None:
        return ci.low, ci.high
    return (min(rounds), max(rounds)) if len(rounds) >= 2 else None


def _mechanism(page: str, section: int) -> tuple[str, str] | None:
    slugs = list(MECHANISMS)
    if not 2 <= section < 2 + len(slugs):
        return None
    slug = slugs[section - 2]
    return MECHANISMS[slug], urls.rel_md(page, urls.mechanism_page(slug))


def _evidence(page: str, i: int, e: Evidence, s: ScenarioReport, linker: Linker | None) -> dict:
    """One evidence line: its symbol linked into the site and its source shown, when the site's pin is the one
    the results were measured at; always its upstream permalink."""
    row = {"e": e, "engine": engine_label(e.engine), "href": "", "source": ""}
    if linker is None or not _same_pin(linker, s.run.engines.get(e.engine, {}) if s.run else {}):
        return row
    if linker.exists(e.symbol):
        row["href"] = linker.href(page, e.symbol)
    path, _, line = e.where.rpartition(":")
    if (
        line.isdigit()
        and (linker.engine.checkout / path).is_file()
        and 1 <= int(line) <= len(linker.engine.source(path).splitlines())
    ):
        n = int(line)
        row["source"] = source_block(linker, path, max(1, n - CONTEXT), n + CONTEXT, anchor=f"e{i}-L")
    return row


def _same_pin(linker: Linker, measured: dict) -> bool:
    pin = linker.engine.pin
    commit = str(measured.get("commit") or "")
    if len(commit) >= 7:
        return pin.commit.startswith(commit) or commit.startswith(pin.commit)
    return bool(measured.get("pin")) and measured.get("pin") == pin.ref
