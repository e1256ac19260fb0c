"""Figures the diagnosis reads off a trace's series: step durations, per-request queue time and TTFT, the gaps
between a request's tokens and the step rows they span. Pure and cheap (one pass per figure over the columns)."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Iterator

from atlas.runtime.series import MISSING, Runs, Series

GRAPH_RUNS = frozenset({"FULL", "PIECEWISE", "REPLAY"})  # a step replayed as a CUDA graph (else eager)
MAX_STEP_US = 1_000_000  # a plan-to-plan time longer than this is a pause between rounds, not a step


def median(values: Iterable[float]) -> float | None:
    found = list(values)
    return statistics.median(found) if found else None


def quantile(values: Iterable[float], q: float) -> float | None:
    found = sorted(values)
    if not found:
        return None
    return found[min(len(found) - 1, int(round(q * (len(found) - 1))))]


def ms(us: float | None) -> float | None:
    return round(us / 1000, 3) if us is not None else None


def ratio(num: float | None, den: float | None) -> float | None:
    return round(num / den, 3) if num is not None and den else None


# A gap between two tokens of one request: (microseconds, the row after the earlier token's, the later token's row).
Gap = tuple[int, int, int]


class Facts:
    """A series with the figures every rule shares, computed once."""

    def __init__(self, series: Series) -> None:
        self.s = series
        st = series.steps
        self.n = len(st)
        self.mode = [series.modes[m] if m >= 0 else "" for m in st.mode]
        self.graph = [series.graphs[g] if g >= 0 else "" for g in st.graph]
        self.dt = [b - a if 0 < b - a < MAX_STEP_US else MISSING for a, b in zip(st.t_us, st.t_us[1:] + [st.t_us[-1]])]
        if self.n:
            self.dt[-1] = MISSING
        self._gaps: list[Gap] | None = None

    def rows(self, *modes: str) -> list[int]:
        return [i for i in range(self.n) if self.mode[i] in modes]

    def step_us(self, rows: Iterable[int]) -> list[int]:
        return [self.dt[i] for i in rows if self.dt[i] != MISSING]

    def has(self, column: list[int]) -> bool:
        return any(v != MISSING for v in column)

    def queue_us(self) -> list[int]:
        """Per request: arrival to its first schedule."""
        r, t = self.s.requests, self.s.steps.t_us
        return [
            t[row] - a for a, row in zip(r.arrival_us, r.first_row) if a != MISSING and row != MISSING and t[row] >= a
        ]

    def ttft_us(self, requests: Iterable[int] | None = None) -> list[int]:
        r = self.s.requests
        chosen = range(len(r)) if requests is None else requests
        return [
            r.first_token_us[i] - r.arrival_us[i]
            for i in chosen
            if r.first_token_us[i] != MISSING and r.arrival_us[i] != MISSING
        ]

    def tpot_us(self) -> list[float]:
        r = self.s.requests
        return [
            (r.finish_us[i] - r.first_token_us[i]) / (r.output_tokens[i] - 1)
            for i in range(len(r))
            if r.output_tokens[i] > 1 and r.finish_us[i] != MISSING and r.first_token_us[i] != MISSING
        ]

    def gaps(self) -> list[Gap]:
        """Every inter-token gap of every request, from the rows its tokens were committed at."""
        if self._gaps is None:
            commit = self.s.steps.commit_us
            out: list[Gap] = []
            for rows in _rows_by_request(self.s.emits):
                times = [(commit[r], r) for r in rows if commit[r] != MISSING]
                out += [(b - a, ra + 1, rb) for (a, ra), (b, rb) in zip(times, times[1:]) if b > a]
            self._gaps = out
        return self._gaps

    def decoders(self) -> list[int]:
        """Per step row: requests that had a first token and had not finished when the step was planned."""
        r, t = self.s.requests, self.s.steps.t_us
        changes: list[tuple[int, int]] = []
        for first, end in zip(r.first_token_us, r.finish_us):
            if first != MISSING:
                changes.append((first, 1))
                changes.append((end if end != MISSING else 1 << 62, -1))
        changes.sort()
        out, k, active = [], 0, 0
        for at in t:
            while k < len(changes) and changes[k][0] <= at:
                active += changes[k][1]
                k += 1
            out.append(active)
        return out


def _rows_by_request(runs: Runs) -> Iterator[list[int]]:
    rows: dict[int, list[int]] = {}
    for request, row, count in zip(runs.request, runs.row, runs.count):
        rows.setdefault(request, []).extend(range(row, row + count))
    yield from rows.values()
