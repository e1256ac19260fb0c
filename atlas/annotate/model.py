"""The annotation data model: what one YAML entry says about one symbol. Frozen, slotted; every part keeps the
file and line it came from so a failed anchor or claim is reported where it was written."""

from __future__ import annotations

from dataclasses import dataclass

from atlas.annotate.vocabulary import section_of


@dataclass(frozen=True, slots=True)
class Anchor:
    """A statement inside a symbol, found by a code pattern (atlas.annotate.pattern)."""

    pattern: str
    occurrence: int = 1
    line: int = 0  # where the anchor is written in the YAML file


@dataclass(frozen=True, slots=True)
class Evidence:
    symbol: str  # filled with the annotation's symbol when the YAML leaves it out
    pattern: str = ""
    occurrence: int = 1
    expect: str = "present"  # or "absent": the code must not exist at the pin
    note: str = ""
    line: int = 0

    @property
    def is_absent(self) -> bool:
        return self.expect == "absent"


@dataclass(frozen=True, slots=True)
class Claim:
    id: str
    article: str
    claim: str
    verdict: str  # holds | changed | not_found, at the default pin
    evidence: tuple[Evidence, ...]
    note: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class Cost:
    dimension: str  # flops | hbm_bytes | cpu_launch | sync | queueing | fragmentation | memory
    effect: str  # reduces | adds
    detail: str


@dataclass(frozen=True, slots=True)
class Contract:
    input: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    output: str = ""
    consumer: str = ""
    allocated: str = ""
    committed: str = ""
    invariants: tuple[str, ...] = ()
    cost: tuple[Cost, ...] = ()


@dataclass(frozen=True, slots=True)
class Bottleneck:
    symptom: str
    hypothesis: str
    next_evidence: str


@dataclass(frozen=True, slots=True)
class Annotation:
    id: str
    framework: str
    mechanism: str
    symbol: str
    role: str
    summary: str
    anchor: Anchor | None = None
    contract: Contract = Contract()
    claims: tuple[Claim, ...] = ()
    notes: str = ""
    capture: tuple[str, ...] = ()  # probe.capture
    bottlenecks: tuple[Bottleneck, ...] = ()
    questions: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    file: str = ""  # relative to the project root
    line: int = 0

    @property
    def section(self) -> int:
        return section_of(self.mechanism)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"
