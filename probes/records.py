"""From hot-path tuples to shard lines, in the flusher thread: a compact JSON array per hooked call (its hook's
static fields go once per process in a "hook" record), aggregates as objects, and `Deferred` capture values
resolved here, off the engine thread. The layout is schema.CALL_FIELDS; atlas.runtime.merge expands it back."""

from __future__ import annotations

import json

from probes.schema import SCHEMA_VERSION

CALL, AGG = "c", "a"  # the first item of a hot-path tuple
ENCODE = json.JSONEncoder(separators=(",", ":"), default=str).encode


class Deferred:
    """A capture value computed later by the flusher: fn(obj), for objects the engine no longer changes once the
    hooked call returned (vLLM's SchedulerOutput, ModelRunnerOutput, EngineCoreOutputs)."""

    __slots__ = ("fn", "obj")

    def __init__(self, fn, obj):
        self.fn = fn
        self.obj = obj


def resolve(hook, values: dict | None) -> dict:
    """The values with the hook's later captures computed (key "*": a Deferred giving a dict, of which the names
    the hook keeps) and every other Deferred value; may raise: the caller counts it as the hook's capture error."""
    if not values:
        return {}
    bundle = values.pop("*", None)
    for name, value in values.items():
        if type(value) is Deferred:
            values[name] = value.fn(value.obj)
    if bundle is not None:
        keep = hook.later[0]
        values.update((k, v) for k, v in bundle.fn(bundle.obj).items() if k in keep)
    return values


def hook_record(pid: int, hook) -> dict:
    return {"kind": "hook", "v": SCHEMA_VERSION, "pid": pid, "index": hook.index, "symbol": hook.symbol,
            "role": hook.role, "path": hook.path, "line": hook.line, "end_line": hook.end_line,
            "run_line": hook.run_line, "at_pin": hook.at_pin}


def encode(probe, record) -> str:
    """One or two lines (a first call of a hook is preceded by that hook's record) for one buffered record."""
    if type(record) is dict:
        record.setdefault("v", SCHEMA_VERSION)
        return ENCODE(record)
    if record[0] == CALL:
        _, hook, seq, tid, t0, t1, step, call_file, call_line, values = record
        try:
            values = resolve(hook, values)
        except Exception as exc:
            probe.fail(hook, exc)
            return ""
        request_ids = values.pop("request_ids", None)
        call_path, call_at_pin = probe.guard.locate(call_file) if call_file else ("", False)
        line = ENCODE(["c", probe.pid, hook.index, seq, tid, t0, t1 - t0, step, call_path, call_line, call_at_pin,
                       values, None if request_ids is None else list(request_ids)])
        if not hook.is_announced:
            hook.is_announced = True
            return ENCODE(hook_record(probe.pid, hook)) + "\n" + line
        return line
    _, hook, (step, count, dur, t0, t1, values, request_ids) = record
    agg = {"kind": "agg", "v": SCHEMA_VERSION, "pid": probe.pid, "symbol": hook.symbol, "role": hook.role,
           "path": hook.path, "line": hook.line, "at_pin": hook.at_pin, "step": step, "count": count, "dur_ns": dur,
           "ts_ns": t0 + probe.wall_offset_ns, "mono_ns": t0, "end_ns": t1, "values": values}
    if request_ids:
        agg["request_ids"] = request_ids
    return ENCODE(agg)
