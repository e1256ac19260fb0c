"""The spread of a figure: its median and a 95% interval, bootstrapped (seeded, so the same values give the same
interval) over the rounds that measured it, or over the requests of those rounds where a figure is a mean over
requests and too few rounds ran. A figure from one round has no interval, and says so. Pure; the results files
keep the values (`rounds`, `requests`) and every reader computes the interval here."""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

LEVEL = 0.95
RESAMPLES = 2000
SEED = 20260
MIN_ROUNDS = 5  # below this, a mean over requests is bootstrapped over its requests when they were kept
LATENCY_UNITS = ("ms", "tok/s")  # the latency and throughput figures every experiment reports


@dataclass(frozen=True, slots=True)
class Interval:
    """A figure's median (or mean, over requests) and its 95% interval; `n` values of `over` behind it."""

    value: float
    low: float
    high: float
    n: int
    over: str  # "rounds" | "requests"

    def holds(self, x: float) -> bool:
        return self.low <= x <= self.high

    def to_json(self) -> dict:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n, "over": self.over}


def bootstrap(
    values: Sequence[float], statistic: Callable[[Sequence[float]], float], over: str, seed: int = SEED
) -> Interval | None:
    """The percentile bootstrap interval of `statistic`; None with fewer than two values. With few values the
    interval tends to the values' range and covers less than 95%: `n` says how many there were."""
    if len(values) < 2:
        return None
    rng = random.Random(seed)
    k = len(values)
    stats = sorted(statistic([values[rng.randrange(k)] for _ in range(k)]) for _ in range(RESAMPLES))
    tail = (1 - LEVEL) / 2
    low, high = stats[int(tail * (RESAMPLES - 1))], stats[int((1 - tail) * (RESAMPLES - 1))]
    return Interval(_round(statistic(values)), _round(low), _round(high), k, over)


def interval(rounds: Sequence[float], requests: Sequence[float] = ()) -> Interval | None:
    """A figure's interval: over its rounds (median), or over its requests (mean) when it ran fewer than
    MIN_ROUNDS rounds and kept per-request values; None when neither gives two values."""
    if len(rounds) < MIN_ROUNDS and len(requests) >= 2:
        return bootstrap(requests, statistics.fmean, "requests")
    return bootstrap(rounds, statistics.median, "rounds")


def row_intervals(row: dict) -> dict[str, Interval | None]:
    """Per probe state of a results row ("absent", "on"), its interval from the values the row keeps."""
    rounds, requests = row.get("rounds") or {}, row.get("requests") or {}
    return {state: interval(rounds.get(state) or (), requests.get(state) or ()) for state in ("absent", "on")}


def agree(a: Interval | None, b: Interval | None) -> bool | None:
    """Two independent measurements of one figure agree when their intervals overlap; None without both."""
    if a is None or b is None:
        return None
    return a.low <= b.high and b.low <= a.high


def _round(x: float) -> float:
    return round(x, 4)
