"""Annotation status at the NEW pin, given the symbol changes: ok, drifted (moved or renamed: a proposed anchor),
broken (gone: candidates ranked), or recheck (the anchored code changed, so its claims need a new look). Pure."""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import Enum

from atlas.annotate import resolve
from atlas.annotate.model import Annotation
from atlas.model import Change, ChangeKind


class Status(str, Enum):
    OK = "ok"
    DRIFTED = "drifted"
    BROKEN = "broken"
    RECHECK = "recheck"


@dataclass(frozen=True, slots=True)
class AnnotationStatus:
    annotation: str
    symbol: str
    status: Status
    reason: str = ""
    proposed: str = ""  # the new anchor symbol, for a drifted annotation
    candidates: tuple[str, ...] = ()  # ranked, for a broken one
    file: str = ""
    line: int = 0

    @property
    def needs_attention(self) -> bool:
        return self.status in (Status.DRIFTED, Status.BROKEN)


def annotation_statuses(
    annotations: Iterable[Annotation], new_index, changes: list[Change]
) -> Iterator[AnnotationStatus]:
    """The status of every annotation at NEW. `changes` are the symbol changes from OLD to NEW."""
    went = {c.symbol: c for c in changes if c.kind in (ChangeKind.RENAMED, ChangeKind.MOVED, ChangeKind.SPLIT)}
    touched = {c.symbol: c for c in changes if c.kind in (ChangeKind.BODY, ChangeKind.SIGNATURE)}
    for ann in annotations:
        base = dict(annotation=ann.id, symbol=ann.symbol, file=ann.file, line=ann.line)
        resolution = resolve(ann, new_index)
        if resolution.is_resolved:
            if ann.symbol in touched:
                change = touched[ann.symbol]
                yield AnnotationStatus(status=Status.RECHECK, reason=f"{change.kind.value}: re-read its claims", **base)
            else:
                yield AnnotationStatus(status=Status.OK, **base)
            continue
        if new_index.get(ann.symbol) is not None:  # the symbol is there, the statement anchor is not
            yield AnnotationStatus(
                status=Status.BROKEN, reason=resolution.finding.message, candidates=(ann.symbol,), **base
            )
            continue
        change = went.get(ann.symbol)
        if change is not None:
            proposed = change.new_symbol.split(", ")[0]
            moved = dataclasses.replace(ann, symbol=proposed)
            if resolve(moved, new_index).is_resolved:
                yield AnnotationStatus(
                    status=Status.DRIFTED,
                    reason=change.detail or change.kind.value,
                    proposed=proposed,
                    candidates=tuple(change.new_symbol.split(", ")),
                    **base,
                )
                continue
        yield AnnotationStatus(
            status=Status.BROKEN,
            reason="the symbol is gone at the new pin",
            candidates=tuple(rank_candidates(ann.symbol, new_index.symbols)),
            **base,
        )


def rank_candidates(symbol: str, new_symbols: dict, limit: int = 5) -> list[str]:
    """Symbols at NEW that could be what `symbol` became: the same name elsewhere first (closest module path
    first), then similar names in the same module or class."""
    name = symbol.rsplit(".", 1)[-1]
    parent = symbol.rsplit(".", 1)[0]
    same_name = [sid for sid in new_symbols if sid.rsplit(".", 1)[-1] == name]
    same_name.sort(key=lambda sid: -difflib.SequenceMatcher(None, sid, symbol).ratio())
    siblings = [sid.rsplit(".", 1)[-1] for sid in new_symbols if sid.rsplit(".", 1)[0] == parent]
    close = [f"{parent}.{n}" for n in difflib.get_close_matches(name, siblings, n=limit, cutoff=0.6)]
    ranked = list(dict.fromkeys(same_name + close))
    return ranked[:limit]
