"""The annotation data model: what one YAML entry says about one symbol. Frozen, slotted; every part keeps the
file and line it came from so a failed anchor or claim is reported where it was written."""

from __future__ import annotations

from dataclasses import dataclass, replace

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
    at: tuple[tuple[str, Evidence], ...] = ()  # (pin set, this evidence as it reads there), where the code moved

    @property
    def is_absent(self) -> bool:
        return self.expect == "absent"

    def for_pin(self, pin_set: str) -> Evidence:
        return next((e for name, e in self.at if name == pin_set), self)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A claim's verdict at one pin set other than default, with why it differs (the evidence says where)."""

    verdict: str  # holds | changed | not_found | gone
    note: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class Claim:
    id: str
    article: str
    claim: str
    verdict: str  # holds | changed | not_found | gone, at the default pin
    evidence: tuple[Evidence, ...]
    note: str = ""
    line: int = 0
    at: tuple[tuple[str, Verdict], ...] = ()  # (pin set, verdict there) where it differs from the default's

    def verdict_at(self, pin_set: str) -> Verdict:
        """The verdict at a pin set: its own where written, else the default pin's."""
        own = next((v for name, v in self.at if name == pin_set), None)
        return own or Verdict(self.verdict, self.note, self.line)

    def for_pin(self, pin_set: str) -> Claim:
        verdict = self.verdict_at(pin_set)
        return replace(
            self, verdict=verdict.verdict, note=verdict.note, evidence=tuple(e.for_pin(pin_set) for e in self.evidence)
        )


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
class PinAnchor:
    """Where an annotation's code is at one pin set when it moved: another symbol and/or another statement."""

    symbol: str
    anchor: Anchor | None
    line: int = 0


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
    at: tuple[tuple[str, PinAnchor], ...] = ()  # (pin set, where the code is there) where it moved
    field_lines: tuple[tuple[str, int], ...] = ()  # (statement field, e.g. contract.input[0], its line in the file)

    def for_pin(self, pin_set: str) -> Annotation:
        """The annotation as it reads at a pin set: its symbol, anchor, evidence and verdicts there."""
        moved = next((p for name, p in self.at if name == pin_set), None)
        claims = tuple(c.for_pin(pin_set) for c in self.claims)
        if moved is None:
            return replace(self, claims=claims)
        return replace(self, symbol=moved.symbol, anchor=moved.anchor, claims=claims)

    @property
    def pin_sets(self) -> set[str]:
        """Every pin set this annotation says something of its own about."""
        names = {name for name, _ in self.at}
        for c in self.claims:
            names |= {name for name, _ in c.at}
            names |= {name for e in c.evidence for name, _ in e.at}
        return names

    @property
    def section(self) -> int:
        return section_of(self.mechanism)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"
