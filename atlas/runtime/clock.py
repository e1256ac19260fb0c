"""Several processes on one clock: processes of one host (same boot id) share CLOCK_MONOTONIC and need no shift;
those of another host are shifted by their "barrier" marks (every process marks the same barrier id right after
passing it). The residual skew is what is left between the marks of one barrier once shifted."""

from __future__ import annotations

import statistics


def offsets(processes: list[dict], marks: list[dict]) -> dict[int, int]:
    """pid -> nanoseconds to add to its monotonic times to put it on the first host's clock (0 on that host; 0 too
    where another host has no barrier shared with the first)."""
    hosts = {p["pid"]: p.get("boot_id", "") for p in processes}
    if not hosts:
        return {}
    first = hosts[processes[0]["pid"]]
    by_id = _barriers(marks)
    shift = {}
    for pid, host in hosts.items():
        if host == first:
            shift[pid] = 0
            continue
        deltas = []
        for at in by_id.values():
            ref = [t for p, t in at.items() if hosts.get(p) == first]
            if pid in at and ref:
                deltas.append(statistics.mean(ref) - at[pid])
        shift[pid] = int(statistics.median(deltas)) if deltas else 0
    return shift


def skew(marks: list[dict], shift: dict[int, int]) -> dict:
    """Per barrier the spread (max - min) of the shifted marks over the processes that marked it, in microseconds."""
    spreads = []
    for at in _barriers(marks).values():
        if len(at) > 1:
            times = [t + shift.get(p, 0) for p, t in at.items()]
            spreads.append((max(times) - min(times)) / 1e3)
    if not spreads:
        return {"num_barriers": 0}
    return {
        "num_barriers": len(spreads),
        "skew_us_median": round(statistics.median(spreads), 1),
        "skew_us_max": round(max(spreads), 1),
    }


def _barriers(marks: list[dict]) -> dict:
    """barrier id -> {pid: monotonic time of its mark}."""
    by_id: dict = {}
    for m in marks:
        if m.get("name") == "barrier" and "id" in m.get("values", {}):
            by_id.setdefault(m["values"]["id"], {})[m["pid"]] = m["mono_ns"]
    return by_id
