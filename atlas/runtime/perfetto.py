"""The Chrome/Perfetto JSON trace of a merged run: one slice per hooked call (category = role) whose args link the
source line at the pin, v2 flow events (bind_id / flow_in / flow_out) chaining plan -> execute -> commit of each
engine step, v1 flows (s/t/f) chaining the steps of one request, and counters per step."""

from __future__ import annotations

from atlas.runtime.merge import Merged
from atlas.runtime.ranks import rank_label

FLOW = {
    "plan": (False, True),
    "allocate": (True, True),
    "execute": (True, True),
    "validate": (True, True),
    "commit": (True, False),
}


def _us(ns: int, origin: int) -> float:
    return round((ns - origin) / 1000.0, 3)


def chrome_trace(merged: Merged, spec: dict) -> dict:
    """A dict ready for json.dump; open it in ui.perfetto.dev or chrome://tracing."""
    origin = min((e["mono_ns"] for e in merged.events + merged.marks), default=0)
    base = f"{spec.get('url', '').rstrip('/')}/blob/{spec.get('permalink_ref', '')}/"
    out: list[dict] = []
    for proc in merged.processes:
        rank = (merged.ranks or {}).get(proc["pid"])
        label = f"{rank_label(rank)} " if rank else ""  # tensor-parallel runs: which rank this process is
        out.append(
            {
                "ph": "M",
                "name": "process_name",
                "pid": proc["pid"],
                "tid": 0,
                "args": {"name": f"{label}{proc['proc']} ({proc['framework']} {proc['engine_version']})"},
            }
        )
    step_events: dict[int, list[dict]] = {}
    request_steps: dict[str, list[dict]] = {}
    for event in merged.events:
        name = event["symbol"].rsplit(".", 2)
        slice_ = {
            "ph": "X",
            "name": ".".join(name[-2:]),
            "cat": event["role"],
            "ts": _us(event["mono_ns"], origin),
            "dur": max(_us(event["mono_ns"] + event["dur_ns"], origin) - _us(event["mono_ns"], origin), 0.001),
            "pid": event["pid"],
            "tid": event.get("tid", event["pid"]),
            "args": {
                "symbol": event["symbol"],
                "step": event["step"],
                "at_pin": event.get("at_pin"),
                "source": f"{base}{event.get('path', '')}#L{event.get('line', 0)}",
                "call_site": f"{event.get('call_path', '')}:{event.get('call_line', '')}",
                **({"count": event["count"]} if event["kind"] == "agg" else {}),
                **({"gpu_ms": round(event["gpu_ns"] / 1e6, 4)} if "gpu_ns" in event else {}),
                **event.get("values", {}),
            },
        }
        if event["kind"] == "agg":  # a step's calls drawn as one slice from the first start to the last end
            slice_["dur"] = max(_us(event.get("end_ns", event["mono_ns"]), origin) - slice_["ts"], 0.001)
        out.append(slice_)
        if event["kind"] == "call" and event["role"] in FLOW:
            step_events.setdefault(event["step"], []).append(slice_)
        if event["role"] == "plan" and event.get("request_ids") and event["values"].get("batch_size") is not None:
            for rid in event["request_ids"]:
                request_steps.setdefault(rid, []).append(slice_)
        for counter in ("batch_size", "num_scheduled_tokens"):
            value = event["values"].get(counter)
            if event["role"] == "plan" and isinstance(value, (int, dict)) and "batch_size" in event["values"]:
                total = sum(value.values()) if isinstance(value, dict) else value
                out.append(
                    {"ph": "C", "name": counter, "pid": event["pid"], "ts": slice_["ts"], "args": {counter: total}}
                )
    for step, slices in step_events.items():
        if len(slices) < 2:
            continue
        for index, slice_ in enumerate(slices):
            slice_["bind_id"] = f"step-{step}"
            slice_["flow_in"] = index > 0
            slice_["flow_out"] = index < len(slices) - 1
    flow_id = 0
    for rid, slices in sorted(request_steps.items()):
        if len(slices) < 2:
            continue
        flow_id += 1
        for index, slice_ in enumerate(slices):
            ph = "s" if index == 0 else ("f" if index == len(slices) - 1 else "t")
            out.append(
                {
                    "ph": ph,
                    "id": flow_id,
                    "name": rid,
                    "cat": "request",
                    "pid": slice_["pid"],
                    "tid": slice_["tid"],
                    "ts": slice_["ts"],
                    **({"bp": "e"} if ph == "f" else {}),
                }
            )
    for mark in merged.marks:
        out.append(
            {
                "ph": "i",
                "s": "g",
                "name": mark["name"],
                "pid": mark["pid"],
                "tid": 0,
                "ts": _us(mark["mono_ns"], origin),
                "args": mark.get("values", {}),
            }
        )
    return {
        "traceEvents": out,
        "displayTimeUnit": "ms",
        "metadata": {
            "framework": spec.get("framework"),
            "commit": spec.get("commit"),
            "ref": spec.get("ref"),
            "hook_source": spec.get("source"),
        },
    }
