"""The figures of a precision record: the share of judged rows that can happen, with its 95% Wilson interval, by
any grouping of the rows; the population-weighted share over strata; the errors counted by class. Pure."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from atlas.graph.precision.record import EdgeRow, EdgeVerdict, PathRow, PathVerdict

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


@dataclass(frozen=True, slots=True)
class Share:
    """`good` of `n` judged rows, with the 95% Wilson score interval of the share."""

    good: int
    n: int

    @property
    def value(self) -> float:
        return self.good / self.n if self.n else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.good, self.n)


def wilson(good: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial share (good of n); (0, 1) when n is 0."""
    if n == 0:
        return (0.0, 1.0)
    p = good / n
    scale = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / scale
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / scale
    return (max(0.0, centre - half), min(1.0, centre + half))


def judged(rows: Iterable[EdgeRow | PathRow]) -> list:
    """The rows that count: judged, and still what the graph has (`current`)."""
    return [r for r in rows if r.verdict and r.current]


def is_good(r: EdgeRow | PathRow) -> bool:
    return r.verdict in (EdgeVerdict.CAN.value, PathVerdict.FEASIBLE.value)


def share(rows: Iterable[EdgeRow | PathRow]) -> Share:
    counted = judged(rows)
    return Share(sum(is_good(r) for r in counted), len(counted))


def shares_by(rows: Iterable[EdgeRow | PathRow], key: Callable) -> dict:
    """key(row) -> Share of the judged current rows with that key, keys sorted."""
    groups: dict = {}
    for r in judged(rows):
        groups.setdefault(key(r), []).append(r)
    return {k: share(v) for k, v in sorted(groups.items())}


def weighted(rows: Iterable[EdgeRow], sizes: dict[tuple[str, str], int]) -> tuple[float, int]:
    """The share of the graph's edges estimated from a stratified sample: each stratum's observed share weighted by
    its size (`sizes`: (framework, "provenance/component") -> edges). (share, edges covered): strata with no judged
    row are left out, and the second figure says how many edges the estimate covers."""
    by_stratum: dict[tuple[str, str], Share] = shares_by(rows, lambda r: (r.framework, "/".join(r.stratum)))
    total = covered = 0.0
    for key, s in by_stratum.items():
        size = sizes.get(key, 0)
        total += size * s.value
        covered += size
    return (total / covered if covered else 0.0, int(covered))


def errors(rows: Iterable[EdgeRow | PathRow]) -> dict[str, int]:
    """Error class -> the judged current rows that cannot happen for that reason, most first."""
    counts: dict[str, int] = {}
    for r in judged(rows):
        if not is_good(r):
            counts[r.error] = counts.get(r.error, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def gone(rows: Iterable[EdgeRow | PathRow]) -> dict[str, int]:
    """Verdict -> judged rows the graph no longer has: edges that could happen and were lost (recall), and those
    that could not and were removed."""
    counts: dict[str, int] = {}
    for r in rows:
        if r.verdict and not r.current:
            counts[r.verdict] = counts.get(r.verdict, 0) + 1
    return dict(sorted(counts.items()))
