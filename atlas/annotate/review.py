"""The review record: for each statement of each annotation (atlas.annotate.statements), whether it is true at a
pin set and the source lines that decide it, kept as YAML beside the annotations
(annotations/<folder>/review/<file>.yaml reviews annotations/<folder>/<file>.yaml). Loaded and validated here like
the annotations (JSON Schema, every problem with file:line); `review_findings` is what `atlas check` reports of it."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atlas import publish, stored, yamlio
from atlas.annotate.lint import uncited
from atlas.annotate.model import Annotation
from atlas.annotate.statements import DEFAULT, Statement, collapse, statements
from atlas.annotate.vocabulary import FRAMEWORKS
from atlas.errors import ConfigError
from atlas.model import Finding

FOLDER = "annotations"
REVIEW = "review"  # the folder beside the annotation files
VERDICTS = ("true", "false", "unenforced")
PUBLISHED = "annotations/schema/review.v1.json"

_LINES = {"type": "string", "pattern": r"^[1-9][0-9]*(-[1-9][0-9]*)?$"}
SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": f"https://atlas.invalid/{PUBLISHED}",
    "title": "atlas review record, schema 1",
    "description": "One file: the review of every statement of the annotation file beside it (annotations/README.md).",
    "type": "object",
    "additionalProperties": False,
    "required": ["schema", "statements"],
    "properties": {
        "schema": {"const": 1},
        "statements": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["annotation", "field", "text", "verdict", "deciding"],
                "properties": {
                    "annotation": {"type": "string", "minLength": 1},
                    "field": {
                        "type": "string",
                        "pattern": r"^(summary|contract\.[a-z_]+(\[[0-9]+\])?|claims\.[a-z0-9][a-z0-9_-]*)$",
                    },
                    "pin_set": {"type": "string", "pattern": r"^[a-z][a-z0-9_-]*$"},
                    "text": {"type": "string", "minLength": 1},
                    "verdict": {"enum": [True, False, *VERDICTS]},
                    "deciding": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["path", "lines"],
                            "properties": {
                                "path": {"type": "string", "minLength": 1},
                                "lines": {"oneOf": [{"type": "integer", "minimum": 1}, _LINES]},
                            },
                        },
                    },
                    "note": {"type": "string"},
                },
            },
        },
    },
}


def schema_json() -> str:
    """The published copy of SCHEMA (annotations/schema/review.v1.json)."""
    return json.dumps(SCHEMA, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


class ReviewError(ConfigError):
    """One or more review files are malformed; `problems` holds every 'file:line: message'."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        more = f"; `atlas check` lists all {len(problems)}" if len(problems) > 1 else ""
        super().__init__(f"{problems[0]} (in the review files){more}")


@dataclass(frozen=True, slots=True)
class Deciding:
    """Lines of one file of the pinned tree (its path from the repository root) that decide a statement."""

    path: str
    start: int
    end: int

    @property
    def lines(self) -> str:
        return f"{self.start}-{self.end}" if self.end != self.start else str(self.start)


@dataclass(frozen=True, slots=True)
class ReviewRow:
    annotation: str
    field: str
    pin_set: str
    text: str
    verdict: str  # true | false | unenforced
    deciding: tuple[Deciding, ...]
    note: str = ""
    file: str = ""  # the review file, relative to the project root
    line: int = 0

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.annotation, self.field, self.pin_set)

    @property
    def reviews(self) -> str:
        """The annotation file this row's file reviews."""
        return reviewed_file(self.file)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True, slots=True)
class ReviewRecord:
    rows: tuple[ReviewRow, ...]
    frameworks: frozenset[str]  # the frameworks with a review folder (annotations/<framework>/review/)

    def by_key(self) -> dict[tuple[str, str, str], ReviewRow]:
        return {r.key: r for r in self.rows}


def reviewed_file(review_file: str) -> str:
    """annotations/vllm/review/x.yaml -> annotations/vllm/x.yaml."""
    path = Path(review_file)
    return (path.parent.parent / path.name).as_posix()


def review_files(root: Path) -> list[Path]:
    return sorted((Path(root) / FOLDER).glob(f"*/{REVIEW}/*.yaml"))


def load_reviews(root: Path, pin_sets: Iterable[str] | None = None, cache: Path | None = None) -> ReviewRecord:
    """Every review row under <root>/annotations/*/review/, in file order. Raises ReviewError listing every problem
    (YAML, schema, a row given twice, a pin set no manifest names, a file beside no annotation file). With `cache`
    (a file), each file's rows are kept by content hash, as the annotations' are."""
    root = Path(root)
    known = set(pin_sets) if pin_sets is not None else None
    stored_files = _read_cache(cache)
    fresh: dict[str, tuple[list[ReviewRow], list[str]]] = {}
    problems: list[str] = []
    rows: list[ReviewRow] = []
    for path in review_files(root):
        rel = path.relative_to(root).as_posix()
        if not (root / reviewed_file(rel)).is_file():
            problems.append(f"{rel}:1: reviews {reviewed_file(rel)}, which does not exist; move or delete the file")
        key = hashlib.sha256(rel.encode() + b"\0" + path.read_bytes()).hexdigest()
        if key not in stored_files:
            found: list[str] = []
            stored_files[key] = (_load_file(path, rel, found), found)
        fresh[key] = stored_files[key]
        file_rows, found = stored_files[key]
        rows.extend(file_rows)
        problems.extend(found)
    if cache is not None:
        try:
            publish.make_room(cache, cache.parent)  # a folder in the cache file's place: cleared
            stored.dump(cache, fresh, _CACHE_VERSION)
        except OSError:
            pass  # a cache that cannot be written only costs speed
    seen: dict[tuple[str, str, str], ReviewRow] = {}
    for row in rows:
        if known is not None and row.pin_set not in known:
            problems.append(
                f"{row.where}: pin_set: no pin set {row.pin_set!r}; choose one of: {', '.join(sorted(known))}"
            )
        if row.key in seen:
            problems.append(
                f"{row.where}: {row.field} of {row.annotation} at pins {row.pin_set} is reviewed already at "
                f"{seen[row.key].where}; keep one row"
            )
        seen.setdefault(row.key, row)
    if problems:
        raise ReviewError(problems)
    return ReviewRecord(tuple(rows), frozenset(f for f in FRAMEWORKS if (root / FOLDER / f / REVIEW).is_dir()))


_CACHE_VERSION = hashlib.sha256((json.dumps(SCHEMA, sort_keys=True) + "review 1").encode()).hexdigest()[:16]


def _read_cache(cache: Path | None) -> dict:
    if cache is None:
        return {}
    try:
        return dict(stored.load(cache, _CACHE_VERSION, _is_cache))
    except stored.Damaged:  # no cache, a damaged one, one from another version or of another shape: read them again
        return {}


def _is_cache(obj: object) -> bool:
    """The shape `load_reviews` stores: content key -> (rows, problems)."""
    return isinstance(obj, dict) and all(
        isinstance(key, str)
        and isinstance(entry, tuple)
        and len(entry) == 2
        and isinstance(entry[0], list)
        and all(isinstance(row, ReviewRow) for row in entry[0])
        and isinstance(entry[1], list)
        and all(isinstance(problem, str) for problem in entry[1])
        for key, entry in obj.items()
    )


def _load_file(path: Path, rel: str, problems: list[str]) -> list[ReviewRow]:
    try:
        data = yamlio.load(path)
    except ConfigError as exc:
        problems.append(str(exc).replace(str(path), rel))
        return []
    found = list(yamlio.schema_problems(data, SCHEMA, Path(rel)))
    if found:
        problems.extend(found)
        return []
    rows = []
    for i, raw in enumerate(data["statements"]):
        line = yamlio.line_of(data, ("statements", i))
        deciding = []
        for j, d in enumerate(raw["deciding"]):
            start, _, end = str(d["lines"]).partition("-")
            if end and int(end) < int(start):
                problems.append(
                    f"{rel}:{yamlio.line_of(data, ('statements', i, 'deciding', j))}: lines "
                    f"{d['lines']}: the range ends before it starts; write START-END"
                )
            deciding.append(Deciding(str(d["path"]), int(start), int(end or start)))
        verdict = raw["verdict"]
        rows.append(
            ReviewRow(
                annotation=str(raw["annotation"]),
                field=str(raw["field"]),
                pin_set=str(raw.get("pin_set", DEFAULT)),
                text=collapse(raw["text"]),
                verdict=str(verdict).lower() if isinstance(verdict, bool) else str(verdict),
                deciding=tuple(deciding),
                note=collapse(raw.get("note") or ""),
                file=rel,
                line=line,
            )
        )
    return rows


def review_findings(
    annotations: list[Annotation],
    record: ReviewRecord,
    framework: str,
    pin_set: str,
    source: Callable[[str], str | None],
    pin: str = "",
) -> Iterator[Finding]:
    """What `atlas check` reports of the record for one framework at one pin set: statements without a row (only
    for a framework that has a review folder), rows whose text is not the statement's any more, rows of statements
    or annotations that no longer exist, rows that find a statement false or unenforced, deciding lines outside
    their file at the pin (`source(path)`: the file's text there, None when absent), and notes citing code that
    the deciding lines do not contain."""
    mine = [a for a in annotations if a.framework == framework]
    files = {a.file for a in mine}
    ids = {a.id: a for a in mine}
    stated = {s.key: s for a in mine for s in statements(a) if s.pin_set == pin_set}
    rows = [r for r in record.rows if r.pin_set == pin_set and r.reviews in files]
    by_key = {r.key: r for r in rows}
    if framework in record.frameworks:
        for key, s in stated.items():
            if key not in by_key:
                yield Finding(
                    "not-reviewed",
                    f"{s.field} of {s.annotation} at pins {pin_set}: not reviewed; add a row to "
                    f"{review_file_of(s.file)} (text, verdict, deciding lines)",
                    s.file,
                    s.line,
                )
    for row in rows:
        yield from _row_findings(row, stated.get(row.key), ids, source, pin or pin_set)


def review_file_of(annotation_file: str) -> str:
    path = Path(annotation_file)
    return (path.parent / REVIEW / path.name).as_posix()


def _row_findings(
    row: ReviewRow,
    statement: Statement | None,
    ids: dict[str, Annotation],
    source: Callable[[str], str | None],
    pin: str,
) -> Iterator[Finding]:
    if row.annotation not in ids or ids[row.annotation].file != row.reviews:
        yield Finding(
            "review-orphan",
            f"row for {row.annotation}, which {row.reviews} does not have (removed or renamed); delete the row or "
            "give it the annotation's id",
            row.file,
            row.line,
        )
        return
    if statement is None:
        yield Finding(
            "review-orphan",
            f"{row.annotation} has no statement {row.field} at pins {row.pin_set} (removed or renamed); delete the "
            "row or give it the statement's field",
            row.file,
            row.line,
        )
        return
    if statement.text != row.text:
        yield Finding(
            "review-stale",
            f"review stale: the statement changed: {row.field} of {row.annotation} now reads {statement.text!r}; "
            "review it again and copy its text into the row",
            row.file,
            row.line,
        )
    if row.verdict != "true":
        yield Finding(
            "review-verdict",
            f"{row.field} of {row.annotation} is reviewed {row.verdict}: fix the annotation's statement to what the "
            "deciding lines show, then review it again",
            row.file,
            row.line,
        )
    texts = []
    for d in row.deciding:
        text = source(d.path)
        if text is None:
            yield Finding("deciding-not-found", f"deciding lines: {d.path} does not exist at {pin}", row.file, row.line)
            continue
        lines = text.splitlines()
        if d.end > len(lines):
            yield Finding(
                "deciding-not-found",
                f"deciding lines {d.path}:{d.lines} are outside the file at {pin} ({len(lines)} lines); "
                "review the statement again at this pin",
                row.file,
                row.line,
            )
            continue
        texts.append("\n".join(lines[d.start - 1 : d.end]))
    for span in uncited(row.note, texts) if len(texts) == len(row.deciding) else ():
        yield Finding(
            "citation-not-found",
            f"the note cites `{span}`, which its deciding lines ("
            + ", ".join(f"{d.path}:{d.lines}" for d in row.deciding)
            + f") do not contain at {pin}; point the row at the lines that hold it",
            row.file,
            row.line,
        )


@dataclass(frozen=True, slots=True)
class Reviewed:
    """One statement of an annotation with the review row that judges it at a pin set (None: not reviewed)."""

    statement: Statement
    row: ReviewRow | None

    @property
    def is_stale(self) -> bool:
        """The row judged another text: the statement changed since it was reviewed."""
        return self.row is not None and self.row.text != self.statement.text


def reviewed_statements(annotation: Annotation, rows: Iterable[ReviewRow], pin_set: str = DEFAULT) -> list[Reviewed]:
    """The annotation's statements as they read at `pin_set` (a claim's own verdict there where it has one), each
    with its row at that pin set, else the default pins' row."""
    by_key = {r.key: r for r in rows if r.annotation == annotation.id}
    own = {s.field: s for s in statements(annotation) if s.pin_set == pin_set}
    out = []
    for s in statements(annotation):
        if s.pin_set != DEFAULT:
            continue
        s = own.get(s.field, s)
        row = by_key.get(s.key) or by_key.get((s.annotation, s.field, DEFAULT))
        out.append(Reviewed(s, row))
    return out
