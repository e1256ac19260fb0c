"""Validation of Chrome/Perfetto JSON traces, and of the same file through Perfetto's trace processor where its
shell binary is available (the `perfetto` PyPI package downloads it on first use; this machine cannot)."""

from __future__ import annotations

import json
from pathlib import Path

PHASES = {"X", "M", "C", "i", "s", "t", "f"}


def check_chrome_trace(trace: dict) -> None:
    """Raise AssertionError on anything a Chrome-JSON importer would reject or mis-link."""
    events = trace["traceEvents"]
    assert isinstance(events, list) and events
    flows: dict = {}
    binds: dict = {}
    for e in events:
        assert e["ph"] in PHASES, e
        assert isinstance(e["pid"], int), e
        if e["ph"] != "M":
            assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
        if e["ph"] == "X":
            assert e["dur"] >= 0 and isinstance(e["name"], str) and "tid" in e, e
            if "bind_id" in e:
                binds.setdefault(e["bind_id"], []).append(e)
        if e["ph"] in "stf":
            flows.setdefault(e["id"], []).append(e["ph"])
    for phases in flows.values():
        assert phases[0] == "s" and phases[-1] == "f" and set(phases[1:-1]) <= {"t"}, phases
    for chain in binds.values():
        assert not chain[0]["flow_in"] and not chain[-1]["flow_out"]
        assert all(e["flow_in"] and e["flow_out"] for e in chain[1:-1])


def trace_processor_counts(path: Path) -> dict | None:
    """Slice and flow counts from Perfetto's trace processor, or None when its shell binary is not available."""
    try:
        from perfetto.trace_processor import TraceProcessor, TraceProcessorConfig
    except ImportError:
        return None
    shell = next(Path.home().glob(".local/share/perfetto/prebuilts/trace_processor_shell*"), None)
    if shell is None or shell.suffix == ".tmp":
        return None
    tp = TraceProcessor(trace=str(path), config=TraceProcessorConfig(bin_path=str(shell)))
    try:
        return {
            "slices": next(iter(tp.query("select count(*) as n from slice"))).n,
            "flows": next(iter(tp.query("select count(*) as n from flow"))).n,
        }
    finally:
        tp.close()


def check_trace_file(path: Path) -> dict | None:
    trace = json.loads(path.read_text())
    check_chrome_trace(trace)
    counts = trace_processor_counts(path)
    if counts is not None:
        assert counts["slices"] == sum(1 for e in trace["traceEvents"] if e["ph"] == "X")
    return counts
