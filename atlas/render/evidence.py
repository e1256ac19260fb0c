"""Runtime evidence for a symbol from the committed traces (results/gpu-*-summary.json and the trace excerpts
beside them): how often its hook fired, how long the hooked calls took, and one example event with the line it
came from. Only traces of the same commit as the page's pin count. Pure: the traces are handed in."""

from __future__ import annotations

import statistics
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Evidence:
    source: str  # the results file, in words
    fired: int  # how often the hook fired over the run
    role: str
    num_timed: int  # events with a duration (timeline and trace excerpt)
    median_us: float
    max_us: float
    example: dict  # one event: its values and where it was called from
    example_where: str  # path:line of the example's call site (or the hooked line)


def _events(summary: dict, excerpt: dict | None, symbol: str) -> list[tuple[float, dict, str]]:
    """(duration in us, values, where) of every recorded call of `symbol`."""
    out = []
    for event in summary.get("timeline") or []:
        if event.get("symbol") == symbol and event.get("dur_ms") is not None:
            out.append((float(event["dur_ms"]) * 1000, event.get("values") or {}, event.get("where") or ""))
    for event in (excerpt or {}).get("traceEvents") or []:
        args = event.get("args") or {}
        if event.get("ph") == "X" and args.get("symbol") == symbol:
            values = {k: v for k, v in args.items() if k not in ("symbol", "step", "at_pin", "source", "call_site")}
            out.append((float(event.get("dur") or 0.0), values, args.get("call_site") or ""))
    return out


def evidence_for(framework: str, commit: str, symbol: str, traces: list, excerpts: dict) -> list[Evidence]:
    """What each committed trace of this framework at this commit says about `symbol`'s hook."""
    found = []
    for title, summary in traces:
        if summary.get("framework") != framework or summary.get("commit") != commit:
            continue
        hook = (summary.get("hooks") or {}).get(symbol)
        if not hook:
            continue
        events = _events(summary, excerpts.get(framework), symbol)
        durations = [d for d, _, _ in events]
        example = next(((values, where) for _, values, where in events if values), ({}, ""))
        found.append(
            Evidence(
                title,
                int(hook.get("fired", 0)),
                hook.get("role", ""),
                len(durations),
                round(statistics.median(durations), 1) if durations else 0.0,
                round(max(durations), 1) if durations else 0.0,
                example[0],
                example[1] or f"{hook.get('path', '')}:{hook.get('line', '')}",
            )
        )
    return found
