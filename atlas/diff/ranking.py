"""How much a candidate's place reads like the old statement's (the lines around it, the nearest ones most, and the
names they use), which old statement each candidate is the counterpart of, and whether one candidate is clearly
the best: the ranking the rules of atlas.diff.suggest share. Pure."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

from atlas.diff.variants import COMMON, WORD

T = TypeVar("T")

WINDOW = 4  # non-blank lines either side of a statement compared
MARGIN = 0.05  # a match found among several is taken only when it leads the next one by at least this much
PAIR_MIN = 0.5  # a candidate is another old statement's counterpart only when it reads at least this much like it


@dataclass(frozen=True, slots=True)
class Window:
    """A statement's lines and the non-blank lines around it, stripped; `above` and `below` nearest first;
    `block`: the header of the block holding it (`def f(self):`, `if x:`), the nearest line above indented less."""

    above: tuple[str, ...]
    body: tuple[str, ...]
    below: tuple[str, ...]
    block: str = ""

    @property
    def lines(self) -> list[str]:
        return [*self.above[::-1], *self.body, *self.below]


def window(lines: list[str], start: int, end: int) -> Window:
    """The window of lines start..end (1-based, inclusive) of a file's `lines`."""

    def near(run) -> tuple[str, ...]:
        return tuple([t for t in (line.strip() for line in run) if t][:WINDOW])

    first = lines[start - 1] if start <= len(lines) else ""
    indent = len(first) - len(first.lstrip())
    block = next(
        (
            line.strip()
            for line in reversed(lines[: start - 1])
            if line.strip() and len(line) - len(line.lstrip()) < indent
        ),
        "",
    )
    return Window(
        near(reversed(lines[: start - 1])),
        tuple(t.strip() for t in lines[start - 1 : end] if t.strip()),
        near(lines[end:]),
        block,
    )


def names(lines: list[str]) -> frozenset[str]:
    """The names of 3+ letters a run of lines uses, the too common ones left out."""
    return frozenset(w for line in lines for w in WORD.findall(line)) - COMMON


@lru_cache(maxsize=262144)
def similarity(old: Window, new: Window) -> float:
    """A quarter each: the share of equal lines in order, the share of names both windows use, how alike the
    neighbours are line by line, the nearest counting most (a neighbour edited in one place still counts), and how
    alike the headers of the blocks holding the two statements are."""
    a, b = old.lines, new.lines
    lines = difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
    na, nb = names(a), names(b)
    shared = len(na & nb) / len(na | nb) if na | nb else 0.0
    near = (_nearest(old.above, new.above) + _nearest(old.below, new.below)) / 2
    block = difflib.SequenceMatcher(None, old.block, new.block, autojunk=False).ratio() if old.block else 0.0
    return (lines + shared + near + block) / 4


def _nearest(old: tuple[str, ...], new: tuple[str, ...]) -> float:
    weights = [1 / (k + 1) for k in range(WINDOW)]
    alike = [
        difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() if a and b else 0.0
        for a, b in zip(old + ("",) * WINDOW, new + ("",) * WINDOW)
    ]
    return sum(w * s for w, s in zip(weights, alike)) / sum(weights)


def counterparts(scores: dict[tuple[int, int], float], mine: int) -> set[int]:
    """The candidates (second index) that are the counterparts of old statements other than `mine` (first index):
    pairs are made best first, each old statement and candidate once, and count when they read alike (PAIR_MIN)."""
    paired_old, paired_new, taken = set(), set(), set()
    for (i, j), score in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0])):
        if i in paired_old or j in paired_new or score < PAIR_MIN:
            continue
        paired_old.add(i)
        paired_new.add(j)
        if i != mine:
            taken.add(j)
    return taken


def clearly_best(scored: list[tuple[float, T]]) -> T | None:
    """The candidate of highest score when it leads every other by MARGIN (or is alone); None for a tie."""
    if not scored:
        return None
    ranked = sorted(scored, key=lambda s: -s[0])
    if len(ranked) > 1 and ranked[0][0] - ranked[1][0] < MARGIN:
        return None
    return ranked[0][1]
