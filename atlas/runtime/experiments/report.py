"""`atlas experiments report`: the article's A100 figures joined with atlas's H200 results files
(results/experiments/<scenario>.json) on (scenario, engine, variant, label, metric), with the probe evidence.
`collect` is the IO edge; `build_report` is pure; the renderers live in atlas.runtime.experiments.tables."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema

from atlas.errors import ConfigError
from atlas.runtime.experiments.article import ARTICLE, Article, ArticleScenario, load_article
from atlas.runtime.experiments.spread import Interval, row_intervals

RESULTS = Path("results") / "experiments"  # under the project root, committed
PLAN = "PLAN.json"  # {"scenarios": {"<name>": {"reason": "why it has not run", ...}}}; other keys are ignored

_NUMBER = {"type": ["number", "null"]}
_TEXT = {"type": "string"}
RESULTS_SCHEMA = {
    "type": "object",
    "required": ["scenario", "rows"],
    "properties": {
        "scenario": _TEXT,
        "section": {"type": "integer"},
        "title": _TEXT,
        "command": _TEXT,
        "date": _TEXT,
        "gpu": _TEXT,
        "model": _TEXT,
        "engines": {"type": "object", "additionalProperties": {"type": "object"}},
        "rows": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["engine", "variant", "label", "metric"],
                "properties": {
                    "engine": _TEXT,
                    "variant": _TEXT,
                    "label": _TEXT,
                    "metric": _TEXT,
                    "unit": _TEXT,
                    "absent": _NUMBER,
                    "on": _NUMBER,
                    "note": _TEXT,
                },
            },
        },
        "evidence": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["engine", "symbol", "where"],
                "properties": {
                    "engine": _TEXT,
                    "symbol": _TEXT,
                    "where": _TEXT,
                    "text": _TEXT,
                    "url": {"type": "string", "pattern": "^(https://|$)"},
                },
            },
        },
        "notes": {"type": "array", "items": _TEXT},
        "errors": {"type": "array", "items": _TEXT},
    },
}
PLAN_SCHEMA = {
    "type": "object",
    "properties": {
        "scenarios": {"type": "object", "additionalProperties": {"type": "object", "properties": {"reason": _TEXT}}}
    },
}


@dataclass(frozen=True, slots=True)
class Figure:
    """One joined row: the article's A100 value (None when it has none) beside atlas's two H200 measurements."""

    engine: str
    variant: str
    label: str
    metric: str
    unit: str
    article: float | None = None
    article_line: int = 0
    absent: float | None = None  # probe-free rounds
    on: float | None = None  # rounds with the probes recording
    article_note: str = ""
    note: str = ""  # the measured row's note
    rounds_absent: tuple[float, ...] = ()  # each probe-free round's figure, where the results keep them
    rounds_on: tuple[float, ...] = ()
    absent_ci: Interval | None = None  # 95% interval of the probe-free figure (None: one round, or none kept)
    on_ci: Interval | None = None

    @property
    def num_rounds(self) -> int:
        """Probe-free rounds behind the figure."""
        return len(self.rounds_absent)

    @property
    def is_single_round(self) -> bool:
        """Measured from one probe-free round: no interval can be given."""
        return self.absent is not None and self.num_rounds == 1 and self.absent_ci is None

    @property
    def article_within(self) -> bool | None:
        """Whether the article's A100 figure lies inside atlas's 95% interval (the two cannot be told apart);
        None without both."""
        if self.article is None or self.absent_ci is None:
            return None
        return self.absent_ci.holds(self.article)

    @property
    def ratio(self) -> float | None:
        """on / absent: what recording the probes costs (1.0 = nothing)."""
        if self.absent is None or self.on is None or self.absent == 0:
            return None
        return self.on / self.absent


@dataclass(frozen=True, slots=True)
class Evidence:
    engine: str
    symbol: str
    where: str  # path:line at the pin
    url: str  # permalink to that line upstream
    text: str  # what the probe saw there


@dataclass(frozen=True, slots=True)
class Run:
    """How a results file was made: the command, when, on what, at which engine versions."""

    command: str
    date: str
    gpu: str
    model: str
    engines: dict  # engine -> {"version", "pin", "commit"}
    notes: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ScenarioReport:
    name: str
    section: int
    title: str  # the article's heading
    title_line: int
    question: str
    workload: str
    finding: str  # what the article concludes
    no_figures: str  # why the article has no table, when it has none
    figures: tuple[Figure, ...]
    evidence: tuple[Evidence, ...] = ()
    run: Run | None = None  # None: not run yet
    reason: str = ""  # why it has not run, from PLAN.json

    @property
    def status(self) -> str:
        return "measured" if self.run is not None else "not run"


@dataclass(frozen=True, slots=True)
class Report:
    article: Article
    scenarios: tuple[ScenarioReport, ...] = field(default_factory=tuple)


def join(scenario: ArticleScenario, results: dict | None, reason: str = "") -> ScenarioReport:
    """One scenario's table: the article's rows in its order, then measured rows the article has no figure for."""
    measured = {(r["engine"], r["variant"], r["label"], r["metric"]): r for r in (results or {}).get("rows", [])}
    figures = []
    for row in scenario.rows:
        got = measured.pop(row.key, {})
        note = got.get("note", "")
        if got.get("unit") and got["unit"] != row.unit:  # the article's unit stays; say the other one
            note = "; ".join(filter(None, [note, f"atlas measured in {got['unit']}"]))
        figures.append(
            Figure(
                row.engine,
                row.variant,
                row.label,
                row.metric,
                row.unit,
                row.value,
                row.line,
                got.get("absent"),
                got.get("on"),
                row.note,
                note,
                **_measured(got),
            )
        )
    for (engine, variant, label, metric), got in measured.items():
        figures.append(
            Figure(
                engine,
                variant,
                label,
                metric,
                got.get("unit", ""),
                absent=got.get("absent"),
                on=got.get("on"),
                note=got.get("note", ""),
                **_measured(got),
            )
        )
    evidence, run = (), None
    if results is not None:
        evidence = tuple(
            Evidence(e["engine"], e["symbol"], e["where"], e.get("url", ""), e.get("text", ""))
            for e in results.get("evidence", [])
        )
        run = Run(
            results.get("command", ""),
            results.get("date", ""),
            results.get("gpu", ""),
            results.get("model", ""),
            dict(results.get("engines", {})),
            tuple(results.get("notes", [])),
            tuple(results.get("errors", [])),
        )
    return ScenarioReport(
        scenario.name,
        scenario.section,
        scenario.title,
        scenario.title_line,
        scenario.question,
        scenario.workload,
        scenario.finding,
        scenario.no_figures,
        tuple(figures),
        evidence,
        run,
        "" if results is not None else reason,
    )


def _measured(row: dict) -> dict:
    """What a measured row keeps beyond its medians: each round's figure per probe state, and the 95% intervals
    computed from those values (so older results files get them too)."""
    if not row:
        return {}
    rounds = row.get("rounds") or {}
    intervals = row_intervals(row)
    return {
        "rounds_absent": tuple(rounds.get("absent") or ()),
        "rounds_on": tuple(rounds.get("on") or ()),
        "absent_ci": intervals["absent"],
        "on_ci": intervals["on"],
    }


def build_report(
    article: Article, results: dict[str, dict], plan: dict[str, str], names: list[str] | None = None
) -> Report:
    """Every chosen scenario (all when `names` is empty), measured or not; a results file for a scenario the
    article does not know is an error, never dropped."""
    unknown = sorted(set(results) - set(article.names))
    if unknown:
        raise ConfigError(
            f"results for unknown scenario(s) {', '.join(unknown)}; name each results file after one "
            f"of: {', '.join(article.names)}"
        )
    chosen = [article.scenario(n) for n in names] if names else list(article.scenarios)
    return Report(article, tuple(join(s, results.get(s.name), plan.get(s.name, "")) for s in chosen))


def read_results(folder: Path) -> dict[str, dict]:
    """Every results file in the folder, checked: scenario -> its JSON. A missing folder means none has run."""
    found = {}
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if path.name == PLAN:
            continue
        data = _read_json(path)
        problems = [
            f"{path}: {'.'.join(map(str, e.absolute_path)) or '(top level)'}: {e.message}"
            for e in jsonschema.Draft202012Validator(RESULTS_SCHEMA).iter_errors(data)
        ]
        if not problems and data["scenario"] != path.stem:
            problems.append(
                f"{path}: scenario is {data['scenario']!r} but the file is named {path.name}; name it "
                f"{data['scenario']}.json"
            )
        problems += _repeated_rows(path, data) if not problems else []
        if problems:
            raise ConfigError(f"{len(problems)} problem(s) in results files:\n" + "\n".join(problems))
        found[path.stem] = data
    return found


def _repeated_rows(path: Path, data: dict) -> list[str]:
    seen, out = set(), []
    for i, r in enumerate(data["rows"]):
        key = (r["engine"], r["variant"], r["label"], r["metric"])
        if key in seen:
            out.append(f"{path}: rows.{i}: {'/'.join(key)} appears twice; keep one row per key")
        seen.add(key)
    return out


def read_plan(folder: Path) -> dict[str, str]:
    """scenario -> why it has not run, from PLAN.json when there is one."""
    path = folder / PLAN
    if not path.is_file():
        return {}
    data = _read_json(path)
    problems = list(jsonschema.Draft202012Validator(PLAN_SCHEMA).iter_errors(data))
    if problems:
        raise ConfigError(
            f'{path}: {problems[0].message}; expected {{"scenarios": {{"<scenario>": {{"reason": "..."}}}}}}'
        )
    return {name: entry.get("reason", "") for name, entry in data.get("scenarios", {}).items()}


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}:{exc.lineno}: invalid JSON ({exc.msg}); rewrite it with `atlas experiments run` or fix it by hand"
        ) from None


def collect(root: Path, names: list[str] | None = None, article: Path = ARTICLE) -> Report:
    """The report from the project's committed results (root/results/experiments) and the article file."""
    folder = root / RESULTS
    return build_report(load_article(article), read_results(folder), read_plan(folder), names)
