"""`atlas check` without the printing: resolve every annotation, anchor and piece of evidence at one pin, check
what evidence notes cite and the review record (atlas.annotate.review) there, and collect the findings; and compile
annotations into the runtime probes' spec."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from atlas.annotate.lint import uncited
from atlas.annotate.model import Annotation
from atlas.annotate.resolve import EvidenceResolution, Resolution, Resolver, SymbolIndex
from atlas.annotate.review import ReviewRecord, review_findings
from atlas.annotate.statements import statements
from atlas.errors import AtlasError
from atlas.model import Finding, Pin


@dataclass(frozen=True, slots=True)
class CheckReport:
    """Every annotation of one framework resolved at one pin."""

    pin: Pin
    pin_set: str
    resolutions: tuple[Resolution, ...]
    evidence: tuple[EvidenceResolution, ...]
    more: tuple[Finding, ...] = ()  # evidence notes citing code their lines lack; the review record's findings
    num_statements: int = 0  # the statements at this pin set (atlas.annotate.statements) ...
    num_reviewed: int = 0  # ... and how many of them the review record has a row for

    @property
    def findings(self) -> tuple[Finding, ...]:
        found = [r.finding for r in self.resolutions if r.finding] + [e.finding for e in self.evidence if e.finding]
        return tuple(sorted([*found, *self.more], key=lambda f: (f.path, f.line)))

    @property
    def num_anchors(self) -> int:
        return sum(1 for r in self.resolutions if r.anchor_line) + sum(1 for e in self.evidence if e.line)


def check(
    annotations: list[Annotation], index: SymbolIndex, pin_set: str = "default", reviews: ReviewRecord | None = None
) -> CheckReport:
    """Resolve the annotations of the index's framework (others are skipped) at its pin, each as it reads at
    `pin_set` (its `at:` entries for that set in place of the default pin's symbol, anchor, evidence, verdict);
    check that each evidence note's cited code is in the evidence's lines, and the review record's rows there."""
    resolver = Resolver(index)
    mine = [a.for_pin(pin_set) for a in annotations if a.framework == index.pin.framework]
    resolutions = tuple(resolver.resolve(a) for a in mine)
    evidence = tuple(resolver.resolve_evidence(a, c, e) for a in mine for c in a.claims for e in c.evidence)
    source = _source_of(index)
    more = [*citation_findings(mine, evidence, source, index.pin.key)]
    stated = {s.key for a in annotations if a.framework == index.pin.framework for s in statements(a)}
    stated = {key for key in stated if key[2] == pin_set}
    reviewed = {r.key for r in reviews.rows} & stated if reviews is not None else set()
    if reviews is not None:
        more.extend(review_findings(annotations, reviews, index.pin.framework, pin_set, source, index.pin.key))
    return CheckReport(
        pin=index.pin,
        pin_set=pin_set,
        resolutions=resolutions,
        evidence=evidence,
        more=tuple(more),
        num_statements=len(stated),
        num_reviewed=len(reviewed),
    )


def _source_of(index: SymbolIndex) -> Callable[[str], str | None]:
    """A file's text at the index's pin, None when it has no such file."""
    texts: dict[str, str | None] = {}

    def source(path: str) -> str | None:
        if path not in texts:
            try:
                texts[path] = index.source(path)
            except (OSError, KeyError, ValueError, AtlasError):
                texts[path] = None
        return texts[path]

    return source


def citation_findings(
    annotations: list[Annotation],
    evidence: Iterable[EvidenceResolution],
    source: Callable[[str], str | None],
    pin: str,
) -> Iterator[Finding]:
    """Evidence whose note cites code (in backticks) that its resolved lines do not contain at the pin."""
    files = {a.id: a.file for a in annotations}
    for e in evidence:
        if e.finding is not None or not e.line or not e.evidence.note:
            continue
        text = source(e.path) or ""
        lines = "\n".join(text.splitlines()[e.line - 1 : e.end_line])
        for span in uncited(e.evidence.note, [lines]):
            yield Finding(
                "citation-not-found",
                f"claim {e.claim}: the evidence note cites `{span}`, which its lines {e.path}:{e.line}-{e.end_line} "
                f"do not contain at {pin}; point the evidence at the code it cites, or fix the note",
                files.get(e.annotation, ""),
                e.evidence.line,
            )


def module_of(symbol_id: str, path: str) -> str:
    """The module part of a symbol id, found from its file: python/sglang/srt/x.py and sglang.srt.x.C.f give
    sglang.srt.x (whatever folder the package sits in)."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    for i in range(len(parts)):
        module = ".".join(parts[i:])
        if symbol_id == module or symbol_id.startswith(module + "."):
            return module
    return symbol_id.rsplit(".", 1)[0]


def probe_spec(annotations: list[Annotation], index: SymbolIndex, pin_set: str = "default") -> list[dict]:
    """One entry per annotation with a probe capture that resolves at the index's pin: where a runtime probe hooks
    (module, qualname, def line; anchor_line for statement anchors), the role it tags events with, what it records."""
    resolver = Resolver(index)
    spec = []
    for a in annotations:
        if a.framework != index.pin.framework or not a.capture:
            continue
        a = a.for_pin(pin_set)
        r = resolver.resolve(a)
        if not r.is_resolved:
            continue
        module = module_of(a.symbol, r.path)
        entry = {
            "annotation": a.id,
            "framework": a.framework,
            "symbol": a.symbol,
            "module": module,
            "qualname": a.symbol[len(module) + 1 :],
            "role": a.role,
            "path": r.path,
            "line": r.line,
            "end_line": r.end_line,
            "capture": list(a.capture),
        }
        if r.anchor_line:
            entry["anchor_line"] = r.anchor_line
        spec.append(entry)
    return spec
