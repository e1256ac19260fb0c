"""Reading shards back: every complete line of every shard (a torn last line from a kill is skipped and counted),
compact call records expanded with their hook's static fields, merged into one time-ordered list, GPU times
folded into their calls, aggregates of one step joined."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from atlas.runtime import clock
from probes.schema import CALL_FIELDS

HOOK_FIELDS = ("symbol", "role", "path", "line", "end_line", "run_line", "at_pin")


@dataclass(frozen=True, slots=True)
class Merged:
    events: list  # call and agg records, by monotonic start
    processes: list  # process records
    marks: list
    stats: dict  # pid -> the last stats record of that process
    num_torn: int  # unreadable lines (a kill mid-write)
    ranks: dict = None  # pid -> its rank record (tensor-parallel runs), when the engine set one up
    clock: dict = None  # shifts applied per pid and the residual skew between processes at barriers


def read_shard(path: Path) -> tuple[list[dict], int]:
    """The shard's records, compact calls expanded into "call" objects; (records, unreadable lines)."""
    records, torn = [], 0
    hooks, offsets = {}, {}  # (pid, hook index) -> static fields; pid -> wall minus monotonic clock
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            torn += 1
            continue
        if isinstance(record, list):
            call = expand_call(record, hooks, offsets)
            if call is None:
                torn += 1
            else:
                records.append(call)
            continue
        kind = record.get("kind")
        if kind == "hook":
            hooks[(record["pid"], record["index"])] = {k: record.get(k) for k in HOOK_FIELDS}
            continue
        if kind == "process":
            offsets[record["pid"]] = record["ts_ns"] - record["mono_ns"]
        records.append(record)
    return records, torn


def expand_call(row: list, hooks: dict, offsets: dict) -> dict | None:
    """["c", pid, hook, seq, ...] -> the "call" object of probes.schema.KINDS; None if it cannot be read."""
    if len(row) != len(CALL_FIELDS) + 1 or row[0] != "c":
        return None
    call = dict(zip(CALL_FIELDS, row[1:]))
    static = hooks.get((call["pid"], call.pop("hook")))
    if static is None:
        return None
    call.update(static, kind="call", ts_ns=call["mono_ns"] + offsets.get(call["pid"], 0))
    if call["request_ids"] is None:
        del call["request_ids"]
    return call


def merge(shard_dir: Path) -> Merged:
    calls, aggs, processes, marks, stats, gpu, ranks = [], {}, [], [], {}, {}, {}
    num_torn = 0
    for path in sorted(shard_dir.glob("*.jsonl")):
        records, torn = read_shard(path)
        num_torn += torn
        for r in records:
            kind = r.get("kind")
            if kind == "call":
                calls.append(r)
            elif kind == "agg":
                key = (r["pid"], r["symbol"], r["step"])
                if key in aggs:
                    _join(aggs[key], r)
                else:
                    aggs[key] = r
            elif kind == "gpu":
                gpu[(r["pid"], r["seq"])] = r["gpu_ns"]
            elif kind == "process":
                processes.append(r)
            elif kind == "mark":
                marks.append(r)
            elif kind == "rank":
                ranks[r["pid"]] = r
            elif kind == "stats":
                stats[r["pid"]] = r
    for call in calls:
        if (call["pid"], call["seq"]) in gpu:
            call["gpu_ns"] = gpu[(call["pid"], call["seq"])]
    shift = clock.offsets(processes, marks)
    residual = clock.skew(marks, shift)
    for record in calls + list(aggs.values()) + marks:
        if shift.get(record["pid"]):
            record["mono_ns"] += shift[record["pid"]]
            if "end_ns" in record:
                record["end_ns"] += shift[record["pid"]]
    events = sorted(calls + list(aggs.values()), key=lambda e: (e["mono_ns"], e["pid"], e.get("seq", 0)))
    return Merged(events, processes, sorted(marks, key=lambda m: m["mono_ns"]), stats, num_torn, ranks,
                  {"shift_ns": {p: n for p, n in shift.items() if n}, **residual})


def _join(into: dict, more: dict) -> None:
    into["count"] += more["count"]
    into["dur_ns"] += more["dur_ns"]
    into["end_ns"] = max(into.get("end_ns", 0), more.get("end_ns", 0))
    for name, value in more["values"].items():
        old = into["values"].get(name)
        if isinstance(value, list) and isinstance(old, list):
            old.extend(value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and isinstance(old, (int, float)):
            into["values"][name] = old + value
        else:
            into["values"][name] = value
    if more.get("request_ids"):
        into.setdefault("request_ids", []).extend(more["request_ids"])


def write_events(merged: Merged, path: Path) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for record in merged.processes + merged.events + merged.marks:
            f.write(json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n")
