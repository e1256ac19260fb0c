"""`atlas check` without the printing: resolve every annotation, anchor and piece of evidence at one pin and
collect the findings; and compile annotations into the runtime probes' spec."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from atlas.annotate.model import Annotation
from atlas.annotate.resolve import EvidenceResolution, Resolution, Resolver, SymbolIndex
from atlas.model import Finding, Pin


@dataclass(frozen=True, slots=True)
class CheckReport:
    """Every annotation of one framework resolved at one pin."""

    pin: Pin
    pin_set: str
    resolutions: tuple[Resolution, ...]
    evidence: tuple[EvidenceResolution, ...]

    @property
    def findings(self) -> tuple[Finding, ...]:
        found = [r.finding for r in self.resolutions if r.finding] + [e.finding for e in self.evidence if e.finding]
        return tuple(sorted(found, key=lambda f: (f.path, f.line)))

    @property
    def num_anchors(self) -> int:
        return sum(1 for r in self.resolutions if r.anchor_line) + sum(1 for e in self.evidence if e.line)


def check(annotations: list[Annotation], index: SymbolIndex, pin_set: str = "default") -> CheckReport:
    """Resolve the annotations of the index's framework (others are skipped) at its pin, each as it reads at
    `pin_set` (its `at:` entries for that set in place of the default pin's symbol, anchor, evidence, verdict)."""
    resolver = Resolver(index)
    mine = [a.for_pin(pin_set) for a in annotations if a.framework == index.pin.framework]
    resolutions = tuple(resolver.resolve(a) for a in mine)
    evidence = tuple(resolver.resolve_evidence(a, c, e) for a in mine for c in a.claims for e in c.evidence)
    return CheckReport(pin=index.pin, pin_set=pin_set, resolutions=resolutions, evidence=evidence)


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
