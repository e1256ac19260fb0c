"""Reading shards back: every complete frame (schema 3) or line (schema 1-2) of every shard (a torn end from a kill
is skipped and counted), compact rows expanded with their hook's static fields and the offline halves of the
captures, merged into one time-ordered list, GPU times folded into their calls, aggregates of one step joined."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from atlas.publish import writer
from atlas.runtime import clock
from probes.captures import later_values
from probes.records import CALL, read_frames
from probes.schema import CALL_FIELDS, SHARD_SUFFIX

HOOK_FIELDS = ("symbol", "role", "path", "line", "end_line", "run_line", "at_pin")
AGG_FIELDS = ("symbol", "role", "path", "line", "at_pin")
JSON_SUFFIX = ".jsonl"  # schema 1-2 shards


@dataclass(frozen=True, slots=True)
class Merged:
    events: list  # call and agg records, by monotonic start
    processes: list  # process records
    marks: list
    stats: dict  # pid -> the last stats record of that process
    num_torn: int  # unreadable lines or frames (a kill mid-write), and rows that could not be expanded
    ranks: dict = None  # pid -> its rank record (tensor-parallel runs), when the engine set one up
    clock: dict = None  # shifts applied per pid and the residual skew between processes at barriers


def shard_paths(shard_dir: Path) -> list[Path]:
    """The shards of a trace folder, of either format."""
    return sorted([*shard_dir.glob(f"*{SHARD_SUFFIX}"), *shard_dir.glob(f"*{JSON_SUFFIX}")])


def read_shard(path: Path) -> tuple[list[dict], int]:
    """The shard's records, compact rows expanded into "call" and "agg" objects; (records, unreadable parts)."""
    if path.suffix == JSON_SUFFIX:
        return read_json_shard(path)
    rows, torn = read_frames(path.read_bytes())
    return expand_rows(rows, torn)


def expand_rows(rows: list, torn: int = 0) -> tuple[list[dict], int]:
    """Schema 3: dict records as they are (less the shard-only "hook" and "file"), rows expanded. Values go through
    JSON once, so that they read exactly as a JSON-lines shard's would (lists, string keys, str() of others)."""
    hooks, files = {}, {}
    for r in rows:
        if type(r) is dict:
            kind = r.get("kind")
            if kind == "hook":
                hooks[(r["pid"], r["index"])] = r
                if r.get("later"):
                    r["later"] = (r["later"][0], frozenset(r["later"][1]))
            elif kind == "file":
                files[(r["pid"], r["file"])] = (r["path"], r["at_pin"])
    expander = Expander(hooks, files)
    records = []
    for r in rows:
        if type(r) is dict:
            kind = r.get("kind")
            if kind == "process":
                expander.enter(r)
            if kind not in ("hook", "file"):
                records.append(r)
            continue
        try:
            records.append(expander.call(r) if r[0] == CALL else expander.agg(r))
        except Exception:  # a row this reader cannot expand (no hook record, a damaged bundle): counted
            torn += 1
    return json.loads(json.dumps(records, default=str)), torn


class Expander:
    """Rows of one process into "call" and "agg" objects (probes.schema.CALL_ROW, AGG_ROW)."""

    def __init__(self, hooks: dict, files: dict):
        self.hooks, self.files = hooks, files
        self.pid, self.offset, self.framework = None, 0, ""
        self._later: dict = {}

    def enter(self, process: dict) -> None:
        """The rows that follow are this process's."""
        self.pid, self.framework = process["pid"], process.get("framework", "")
        self.offset = process["ts_ns"] - process["mono_ns"]

    def values(self, hook: dict, row_values) -> dict:
        """The row's values by name, the LATER bundle (after the named ones, or the values themselves where the hook
        has no others) computed into the names kept."""
        fields = hook.get("fields") or ()
        later = hook.get("later")
        if not later:
            return dict(zip(fields, row_values)) if row_values else {}
        values = dict(zip(fields, row_values)) if fields else {}
        qualname, keep = later
        key = (self.framework, qualname)
        if key not in self._later:
            self._later[key] = later_values(*key)
        produced = self._later[key](row_values[len(fields)] if fields else row_values)
        values.update((k, v) for k, v in produced.items() if k in keep)
        return values

    def call(self, row) -> dict:
        _, index, seq, tid, mono, dur, step, file, line, row_values = row
        hook = self.hooks[(self.pid, index)]
        values = self.values(hook, row_values)
        request_ids = values.pop("request_ids", None)
        call_path, call_at_pin = self.files.get((self.pid, file), (file, False))
        call = {
            "pid": self.pid,
            "seq": seq,
            "tid": tid,
            "mono_ns": mono,
            "dur_ns": dur,
            "step": step,
            "call_path": call_path,
            "call_line": line,
            "call_at_pin": call_at_pin,
            "values": values,
        }
        if request_ids is not None:
            call["request_ids"] = list(request_ids)
        call.update({k: hook.get(k) for k in HOOK_FIELDS}, kind="call", ts_ns=mono + self.offset)
        return call

    def agg(self, row) -> dict:
        """One step's calls of an aggregated hook: numbers summed, lists concatenated, anything else the last."""
        _, index, step, calls = row
        hook = self.hooks[(self.pid, index)]
        merged, request_ids = {}, []
        for _, _, row_values in calls:
            values = self.values(hook, row_values)
            ids = values.pop("request_ids", None)
            if ids:
                request_ids.extend(ids)
            for name, value in values.items():
                if isinstance(value, bool) or not isinstance(value, (int, float, list)):
                    merged[name] = value
                elif isinstance(value, list):
                    merged.setdefault(name, []).extend(value)
                else:
                    merged[name] = merged.get(name, 0) + value
        first, last = calls[0], calls[-1]
        agg = {
            "kind": "agg",
            "v": hook.get("v"),
            "pid": self.pid,
            **{k: hook.get(k) for k in AGG_FIELDS},
            "step": step,
            "count": len(calls),
            "dur_ns": sum(c[1] for c in calls),
            "ts_ns": first[0] + self.offset,
            "mono_ns": first[0],
            "end_ns": last[0] + last[1],
            "values": merged,
        }
        if request_ids:
            agg["request_ids"] = request_ids
        return agg


def read_json_shard(path: Path) -> tuple[list[dict], int]:
    """Schema 1-2: the shard's records, compact calls expanded into "call" objects; (records, unreadable lines)."""
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
    """Schema 2: ["c", pid, hook, seq, ...] -> the "call" object of probes.schema.KINDS; None if it cannot be read."""
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
    for path in shard_paths(shard_dir):
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
    return Merged(
        events,
        processes,
        sorted(marks, key=lambda m: m["mono_ns"]),
        stats,
        num_torn,
        ranks,
        {"shift_ns": {p: n for p, n in shift.items() if n}, **residual},
    )


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
    with writer(path) as f:
        for record in merged.processes + merged.events + merged.marks:
            f.write(json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n")
