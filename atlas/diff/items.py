"""Every anchor and evidence item that does not resolve at the new pin, with where the suggestion rules
(atlas.diff.suggest) say its code went. Pure: what `--apply-suggestions` writes and the bump report counts."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from atlas.annotate.model import Annotation
from atlas.annotate.resolve import Resolver
from atlas.diff.suggest import Finder, Hit
from atlas.model import Change


@dataclass(frozen=True, slots=True)
class Broken:
    """One anchor (claim == "") or evidence item (claim, 1-based evidence number) broken at the new pin."""

    annotation: str
    claim: str
    evidence: int
    symbol: str  # as the item reads at the old pin
    pattern: str
    occurrence: int
    problem: str  # the check's finding
    file: str
    line: int
    hit: Hit | None = None  # the suggestion, when a rule found one

    @property
    def key(self) -> tuple:
        return (self.annotation,) if not self.claim else (self.annotation, self.claim, self.evidence)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def broken_items(
    annotations: Iterable[Annotation],
    old_index,
    new_index,
    changes: list[Change],
    old_set: str,
    new_set: str,
    same_paths: set[str] | frozenset = frozenset(),
    new_graph=None,
) -> Iterator[Broken]:
    """Items that resolve at OLD (read at `old_set`) but not at NEW (read at `new_set`), each with a suggestion
    where one is found (`new_graph`, NEW's call graph when built, lets the typed-helper rule follow calls into
    methods of other objects). An evidence item expected absent but present at NEW is reported without one: that
    is a verdict to revisit, not a move."""
    finder = Finder(old_index, new_index, changes, same_paths, new_graph)
    old_r, new_r = Resolver(old_index), Resolver(new_index)
    for base in annotations:
        was, now = base.for_pin(old_set), base.for_pin(new_set)
        if not new_r.resolve(now).is_resolved and old_r.resolve(was).is_resolved:
            anchor = was.anchor
            pattern, occurrence = (anchor.pattern, anchor.occurrence) if anchor else ("", 1)
            finding = new_r.resolve(now).finding
            yield Broken(
                base.id,
                "",
                0,
                was.symbol,
                pattern,
                occurrence,
                finding.message,
                base.file,
                finding.line,
                finder.locate(was.symbol, pattern, occurrence),
            )
        for old_claim, new_claim in zip(was.claims, now.claims):
            for n, (e_old, e_new) in enumerate(zip(old_claim.evidence, new_claim.evidence), 1):
                result = new_r.resolve_evidence(now, new_claim, e_new)
                if result.finding is None or old_r.resolve_evidence(was, old_claim, e_old).finding is not None:
                    continue
                hit = None if e_old.is_absent else finder.locate(e_old.symbol, e_old.pattern, e_old.occurrence)
                yield Broken(
                    base.id,
                    old_claim.id,
                    n,
                    e_old.symbol,
                    e_old.pattern,
                    e_old.occurrence,
                    result.finding.message,
                    base.file,
                    e_new.line,
                    hit,
                )
