"""Read annotations/**/*.yaml: YAML syntax, the JSON Schema, then the rules a schema cannot say (folder matches
framework, ids unique everywhere, patterns parse, related ids exist). Every problem of every file is collected,
each with file:line, before one AnnotationError reports them all."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

from atlas import publish, stored, yamlio
from atlas.annotate.lint import split_items
from atlas.annotate.model import Anchor, Annotation, Bottleneck, Claim, Contract, Cost, Evidence, PinAnchor, Verdict
from atlas.annotate.pattern import compile_pattern
from atlas.annotate.schema import SCHEMA, schema_json
from atlas.annotate.vocabulary import FRAMEWORKS
from atlas.errors import ConfigError
from atlas.model import Finding

FOLDER = "annotations"


class AnnotationError(ConfigError):
    """One or more annotation files are malformed; `problems` holds every 'file:line: message'."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        more = f"; `atlas check` lists all {len(problems)}" if len(problems) > 1 else ""
        super().__init__(f"{problems[0]} (in the annotation files){more}")


def annotation_files(root: Path) -> list[Path]:
    """The annotation files: every YAML under annotations/ but the schema and the review records."""
    folder = root / FOLDER
    return sorted(p for p in folder.rglob("*.yaml") if not {"schema", "review"} & set(p.relative_to(folder).parts))


def load_annotations(root: Path, framework: str | None = None, cache: Path | None = None) -> list[Annotation]:
    """Every annotation under <root>/annotations (of one framework if given), in file order.
    Raises AnnotationError listing all problems found in all files. With `cache` (a file), each file's result is
    kept by content hash, so an unchanged file is not parsed again (round-trip YAML is the slow part)."""
    return load_checked(root, framework, cache)[0]


def load_checked(
    root: Path, framework: str | None = None, cache: Path | None = None
) -> tuple[list[Annotation], list[Finding]]:
    """load_annotations, and the findings of the guards on the YAML itself (atlas.annotate.lint: flow lists split
    at a comma inside an item) for the files of that framework."""
    if framework is not None and framework not in FRAMEWORKS:
        raise ConfigError(f"unknown framework {framework!r}; choose one of: {', '.join(FRAMEWORKS)}")
    known = _read_cache(cache)
    fresh: dict[str, tuple[list[Annotation], list[str], str | None, list[Finding]]] = {}
    problems: list[str] = []
    findings: list[Finding] = []
    out: list[Annotation] = []
    for path in annotation_files(Path(root)):
        rel = path.relative_to(root).as_posix()
        key = hashlib.sha256(rel.encode() + b"\0" + path.read_bytes()).hexdigest()
        if key not in known:
            found: list[str] = []
            lints: list[Finding] = []
            annotations, fw = _load_file(path, rel, found, _pin_sets(Path(root)), lints)
            known[key] = (annotations, found, fw, lints)
        fresh[key] = known[key]
        annotations, found, fw, lints = known[key]
        if framework is None or fw in (framework, None):  # a file of another framework is not this check's
            problems.extend(found)
            findings.extend(lints)
        out.extend(a for a in annotations if framework is None or a.framework == framework)
    problems.extend(_cross_file_problems(out, framework))
    if cache is not None:
        _write_cache(cache, fresh)
    if problems:
        raise AnnotationError(problems)
    return out, findings


_CACHE_KEY = hashlib.sha256((schema_json() + "loader 4").encode()).hexdigest()


def _read_cache(cache: Path | None) -> dict:
    if cache is None:
        return {}
    try:
        return stored.load(cache, _CACHE_KEY[:16], _is_cache)
    except stored.Damaged:  # no cache, a damaged one, or one from another version: parse everything again
        return {}


def _is_cache(obj: object) -> bool:
    """The shape `_write_cache` stores: content key -> (annotations, problems, framework, lint findings)."""
    return isinstance(obj, dict) and all(
        isinstance(key, str)
        and isinstance(entry, tuple)
        and len(entry) == 4
        and isinstance(entry[0], list)
        and all(isinstance(a, Annotation) for a in entry[0])
        and isinstance(entry[1], list)
        and (entry[2] is None or isinstance(entry[2], str))
        and isinstance(entry[3], list)
        and all(isinstance(f, Finding) for f in entry[3])
        for key, entry in obj.items()
    )


def _write_cache(cache: Path, entries: dict) -> None:
    try:
        publish.make_room(cache, cache.parent)  # a folder in the cache file's place: cleared
        stored.dump(cache, entries, _CACHE_KEY[:16])
    except OSError:
        pass  # a cache that cannot be written only costs speed


def _pin_sets(root: Path) -> dict[str, tuple[str, ...]]:
    """The pin set names of each framework's manifest (pinned_sources/<framework>.yaml), for checking `at:` keys;
    empty where the project has no manifests (then any name is taken)."""
    from atlas.sources import load_all

    try:
        return {m.name: tuple(m.pins) for m in load_all(root)}
    except ConfigError:
        return {}


def _load_file(
    path: Path, rel: str, problems: list[str], pin_sets: dict | None = None, lints: list[Finding] | None = None
) -> tuple[list[Annotation], str | None]:
    """The annotations of one file and its framework (None when unreadable); problems are appended, and so are the
    findings of the guards on the YAML itself to `lints`."""
    try:
        data = yamlio.load(path)
    except ConfigError as exc:
        problems.append(str(exc).replace(str(path), rel))
        return [], None
    found = list(yamlio.schema_problems(data, SCHEMA, Path(rel)))
    declared = data.get("framework") if isinstance(data, dict) else None
    if found:
        problems.extend(found)
        return [], declared if declared in FRAMEWORKS else None
    fw = data["framework"]
    folder = Path(rel).parts[1] if len(Path(rel).parts) > 2 else ""
    if folder in FRAMEWORKS and folder != fw:
        problems.append(
            f"{rel}:{yamlio.line_of(data, ('framework',))}: framework: {fw!r} in the {folder}/ "
            f"folder; move the file to {FOLDER}/{fw}/ or set framework: {folder}"
        )
    known = (pin_sets or {}).get(fw)
    if lints is not None:
        lints.extend(split_items(data, rel))
    return [_annotation(data, i, rel, problems, known) for i in range(len(data["annotations"]))], fw


def _annotation(data, i: int, rel: str, problems: list[str], known_pins: tuple[str, ...] | None = None) -> Annotation:
    raw = data["annotations"][i]
    fw = data["framework"]

    def at(*keys) -> int:
        return yamlio.line_of(data, ("annotations", i, *keys))

    def pattern_ok(text: str, line: int) -> None:
        try:
            compile_pattern(text)
        except ValueError as exc:
            problems.append(f"{rel}:{line}: {exc}")

    def pin_ok(name: str, *keys) -> bool:
        if known_pins is not None and name not in known_pins:
            problems.append(
                f"{rel}:{at(*keys, 'at', name)}: at: no pin set {name!r} in pinned_sources/{fw}.yaml; "
                f"choose one of: {', '.join(known_pins)}"
            )
            return False
        if name == "default":
            problems.append(
                f"{rel}:{at(*keys, 'at', name)}: at: default is what the fields outside `at` say; "
                "write the default pin's values there and other pin sets under `at`"
            )
            return False
        return True

    if not raw["id"].startswith(f"{fw}."):
        problems.append(f"{rel}:{at('id')}: id: {raw['id']!r} must start with '{fw}.' (<framework>.<mechanism>.<name>)")
    anchor = None
    if "anchor" in raw:
        anchor = Anchor(
            pattern=raw["anchor"]["pattern"], occurrence=raw["anchor"].get("occurrence", 1), line=at("anchor")
        )
        pattern_ok(anchor.pattern, at("anchor", "pattern"))
    moves = []
    for name, where in (raw.get("at") or {}).items():
        if not pin_ok(name):
            continue
        moved = anchor
        if "anchor" in where:
            moved = Anchor(
                pattern=where["anchor"]["pattern"],
                occurrence=where["anchor"].get("occurrence", 1),
                line=at("at", name, "anchor"),
            )
            pattern_ok(moved.pattern, at("at", name, "anchor", "pattern"))
        moves.append((name, PinAnchor(symbol=where.get("symbol", raw["symbol"]), anchor=moved, line=at("at", name))))
    claims = []
    seen_claims: set[str] = set()
    for j, c in enumerate(raw.get("claims", [])):
        if c["id"] in seen_claims:
            problems.append(f"{rel}:{at('claims', j, 'id')}: claim id {c['id']!r} appears twice in {raw['id']}")
        seen_claims.add(c["id"])
        evidence = []
        for k, e in enumerate(c["evidence"]):
            line = at("claims", j, "evidence", k)
            if "pattern" in e:
                pattern_ok(e["pattern"], line)
            base = Evidence(
                symbol=e.get("symbol", raw["symbol"]),
                pattern=e.get("pattern", ""),
                occurrence=e.get("occurrence", 1),
                expect=e.get("expect", "present"),
                note=e.get("note", ""),
                line=line,
            )
            evidence.append(
                replace(
                    base,
                    at=tuple(
                        _evidence_at(e, base, rel, problems, pattern_ok, pin_ok, ("claims", j, "evidence", k), at)
                    ),
                )
            )
        verdicts = tuple(
            (name, Verdict(v["verdict"], v.get("note", ""), at("claims", j, "at", name)))
            for name, v in (c.get("at") or {}).items()
            if pin_ok(name, "claims", j)
        )
        claims.append(
            Claim(
                id=c["id"],
                article=c["article"],
                claim=c["claim"],
                verdict=c["verdict"],
                evidence=tuple(evidence),
                note=c.get("note", ""),
                line=at("claims", j),
                at=verdicts,
            )
        )
    return Annotation(
        id=raw["id"],
        framework=fw,
        mechanism=raw["mechanism"],
        symbol=raw["symbol"],
        role=raw["role"],
        summary=raw["summary"],
        anchor=anchor,
        contract=_contract(raw.get("contract", {})),
        claims=tuple(claims),
        notes=raw.get("notes", ""),
        capture=tuple(raw.get("probe", {}).get("capture", ())),
        bottlenecks=tuple(Bottleneck(**b) for b in raw.get("bottlenecks", ())),
        questions=tuple(raw.get("questions", ())),
        related=tuple(raw.get("related", ())),
        file=rel,
        line=at(),
        at=tuple(moves),
        field_lines=tuple(_field_lines(raw, at)),
    )


def _field_lines(raw, at):
    """(field, line) of the summary and of each contract field and list item, named as statements name them."""
    yield "role", at("role")
    yield "summary", at("summary")
    for key, value in (raw.get("contract") or {}).items():
        if isinstance(value, list):
            yield from ((f"contract.{key}[{j}]", at("contract", key, j)) for j in range(len(value)))
        else:
            yield f"contract.{key}", at("contract", key)


def _evidence_at(raw, base: Evidence, rel: str, problems, pattern_ok, pin_ok, keys: tuple, at):
    """(pin set, the evidence as it reads there) for each entry of the evidence's `at:`; fields left out are the
    default pin's."""
    for name, where in (raw.get("at") or {}).items():
        if not pin_ok(name, *keys):
            continue
        line = at(*keys, "at", name)
        if "pattern" in where:
            pattern_ok(where["pattern"], line)
        yield (
            name,
            replace(
                base,
                symbol=where.get("symbol", base.symbol),
                pattern=where.get("pattern", base.pattern),
                occurrence=where.get("occurrence", base.occurrence),
                expect=where.get("expect", base.expect),
                note=where.get("note", base.note),
                line=line,
            ),
        )


def _contract(raw) -> Contract:
    return Contract(
        input=tuple(raw.get("input", ())),
        reads=tuple(raw.get("reads", ())),
        writes=tuple(raw.get("writes", ())),
        output=raw.get("output", ""),
        consumer=raw.get("consumer", ""),
        allocated=raw.get("allocated", ""),
        committed=raw.get("committed", ""),
        invariants=tuple(raw.get("invariants", ())),
        cost=tuple(Cost(**c) for c in raw.get("cost", ())),
    )


def _cross_file_problems(annotations: list[Annotation], framework: str | None) -> list[str]:
    problems = []
    first: dict[str, Annotation] = {}
    for a in annotations:
        if a.id in first:
            problems.append(f"{a.where}: id {a.id!r} is already used at {first[a.id].where}; ids must be unique")
        else:
            first[a.id] = a
    for a in annotations:
        for ref in a.related:
            if ref not in first and (framework is None or ref.startswith(f"{framework}.")):
                problems.append(f"{a.where}: related: no annotation has id {ref!r}")
    return problems
