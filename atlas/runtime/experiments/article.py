"""The article's A100 figures (atlas/data/experiments/article.yaml) as checked data: one ArticleScenario per
section 2-10 with its rows keyed like the measured rows. A malformed file is a ConfigError naming every file:line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from atlas import yamlio
from atlas.errors import ConfigError

ARTICLE = Path(__file__).resolve().parents[2] / "data" / "experiments" / "article.yaml"
ENGINES = ("vllm", "sglang")

_TEXT = {"type": "string", "minLength": 1}
_LINE = {"type": "integer", "minimum": 1}
_ROW = {
    "type": "object",
    "additionalProperties": False,
    "required": ["engine", "variant", "label", "metric", "value", "unit", "line"],
    "properties": {
        "engine": {"enum": list(ENGINES)},
        "variant": _TEXT,
        "label": _TEXT,
        "metric": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
        "value": {"type": "number"},
        "unit": _TEXT,
        "line": _LINE,
        "note": _TEXT,
    },
}
_SCENARIO = {
    "type": "object",
    "additionalProperties": False,
    "required": ["section", "title", "title_line", "question", "workload", "lines", "finding", "rows"],
    "properties": {
        "section": {"type": "integer", "minimum": 2, "maximum": 10},
        "title": _TEXT,
        "title_line": _LINE,
        "question": _TEXT,
        "workload": _TEXT,
        "finding": _TEXT,
        "no_figures": _TEXT,
        "lines": {"type": "array", "items": _LINE, "minItems": 2, "maxItems": 2},
        "rows": {"type": "array", "items": _ROW},
    },
}
SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["setup", "scenarios"],
    "properties": {
        "setup": {
            "type": "object",
            "additionalProperties": False,
            "required": ["gpu", "model", "date", "engines", "lines"],
            "properties": {
                "gpu": _TEXT,
                "model": _TEXT,
                "date": _TEXT,
                "caution": _TEXT,
                "engines": {"type": "object", "additionalProperties": False, "properties": {e: _TEXT for e in ENGINES}},
                "lines": {"type": "array", "items": _LINE, "minItems": 2, "maxItems": 2},
            },
        },
        "scenarios": {
            "type": "object",
            "minProperties": 1,
            "propertyNames": {"pattern": "^[a-z][a-z0-9-]*$"},
            "additionalProperties": _SCENARIO,
        },
    },
}


@dataclass(frozen=True, slots=True)
class ArticleRow:
    """One figure of the article: the join key (engine, variant, label, metric), its value and its line."""

    engine: str
    variant: str
    label: str
    metric: str
    value: float
    unit: str
    line: int
    note: str = ""

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.engine, self.variant, self.label, self.metric)


@dataclass(frozen=True, slots=True)
class ArticleScenario:
    name: str
    section: int
    title: str  # the article's own heading (Chinese)
    title_line: int
    question: str
    workload: str
    lines: tuple[int, int]  # the article lines the figures and their reading come from
    finding: str  # what the article concludes, in English, with its lines
    rows: tuple[ArticleRow, ...]
    no_figures: str = ""  # why the article has no table for this section


@dataclass(frozen=True, slots=True)
class Setup:
    gpu: str
    model: str
    date: str
    engines: dict  # engine -> the commit the article measured
    lines: tuple[int, int]
    caution: str = ""


@dataclass(frozen=True, slots=True)
class Article:
    setup: Setup
    scenarios: tuple[ArticleScenario, ...]  # in section order

    def scenario(self, name: str) -> ArticleScenario:
        for s in self.scenarios:
            if s.name == name:
                return s
        raise ConfigError(f"unknown scenario {name!r}; choose from: {', '.join(self.names)}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.scenarios)


def load_article(path: Path = ARTICLE) -> Article:
    """Load and check the article file; every problem (schema, repeated row key, a section with neither rows nor
    `no_figures`) is reported as file:line."""
    data = yamlio.load(path)
    problems = list(yamlio.schema_problems(data, SCHEMA, path))
    if not problems:
        problems = list(_inconsistencies(data, path))
    if problems:
        raise ConfigError(f"{len(problems)} problem(s) in the article figures:\n" + "\n".join(problems))
    return _article(data)


def _inconsistencies(data, path: Path):
    """What the schema cannot say: one figure per join key, and a reason wherever a section has no figures."""
    for name, scenario in data["scenarios"].items():
        if not scenario["rows"] and not scenario.get("no_figures"):
            yield (
                f"{path}:{yamlio.line_of(data, ('scenarios', name, 'rows'))}: scenarios.{name}: no rows; add "
                "figures, or `no_figures:` saying why the article has none"
            )
        seen: dict[tuple, int] = {}
        for i, row in enumerate(scenario["rows"]):
            key = (row["engine"], row["variant"], row["label"], row["metric"])
            line = yamlio.line_of(data, ("scenarios", name, "rows", i))
            if key in seen:
                yield (
                    f"{path}:{line}: scenarios.{name}.rows.{i}: {'/'.join(key)} repeats the row at line "
                    f"{seen[key]}; keep one figure per (engine, variant, label, metric)"
                )
            seen.setdefault(key, line)


def _article(data) -> Article:
    s = data["setup"]
    setup = Setup(
        str(s["gpu"]),
        str(s["model"]),
        str(s["date"]),
        {str(k): str(v) for k, v in s["engines"].items()},
        tuple(s["lines"]),
        str(s.get("caution", "")),
    )
    scenarios = []
    for name, spec in data["scenarios"].items():
        rows = tuple(
            ArticleRow(
                r["engine"],
                str(r["variant"]),
                str(r["label"]),
                r["metric"],
                float(r["value"]),
                str(r["unit"]),
                int(r["line"]),
                str(r.get("note", "")),
            )
            for r in spec["rows"]
        )
        scenarios.append(
            ArticleScenario(
                str(name),
                int(spec["section"]),
                str(spec["title"]),
                int(spec["title_line"]),
                str(spec["question"]),
                str(spec["workload"]),
                tuple(spec["lines"]),
                str(spec["finding"]),
                rows,
                str(spec.get("no_figures", "")),
            )
        )
    return Article(setup, tuple(sorted(scenarios, key=lambda sc: sc.section)))
