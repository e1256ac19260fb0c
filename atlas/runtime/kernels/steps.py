"""The probe's kernel records (probes.kernels) read back: each GPU activity of a profiling window assigned to the
engine step whose execute call launched it, joined to its static kernel node or library, and CUDA-graph replays
folded: a replay's kernels share its cudaGraphLaunch's correlation id, the graph is recognised by its node
sequence, its nodes are joined once and every replay is attributed to them. Pure, over records and events."""

from __future__ import annotations

import bisect
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from atlas.runtime.kernels.join import KernelJoin, KernelMatch, Origin
from atlas.runtime.merge import read_shard, shard_paths

GRAPH_LAUNCHES = ("cudaGraphLaunch", "cuGraphLaunch")
NESTED = 8  # execute calls looked back at for one holding a launch (calls nested inside a step's model call)


@dataclass(frozen=True, slots=True)
class Kernel:
    """One GPU activity of a profiled window, where it belongs and what it is."""

    pid: int
    step: int  # the engine step whose execute call launched it (-1: outside every execute call)
    name: str
    match: KernelMatch
    stream: int
    start_ns: int  # monotonic, this process's clock
    dur_ns: int
    launch_ns: int  # when the CPU launched it (0: launch not seen)
    graph: str  # "" eager, else the captured graph ("graph-N", by node sequence)
    node: int  # position in the graph (-1 eager)


@dataclass(frozen=True, slots=True)
class KernelRecords:
    windows: list[dict]
    triton: dict[str, str]  # kernel name -> dotted id of the @triton.jit function it was compiled from


def read_records(shard_dir: Path) -> KernelRecords:
    """The "kernels" and "triton" records of a trace folder's shards."""
    windows: list[dict] = []
    triton: dict[str, str] = {}
    for path in shard_paths(shard_dir):
        for record in read_shard(path)[0]:
            if record.get("kind") == "kernels":
                windows.append(record)
            elif record.get("kind") == "triton":
                triton.setdefault(record["name"], f"{record['module']}.{record['qualname']}")
    return KernelRecords(sorted(windows, key=lambda w: (w["pid"], w["begin_ns"])), triton)


def executes_by_pid(events: list[dict]) -> dict[int, list[tuple[int, int, int]]]:
    """pid -> (start, end, step) of its execute calls, by start."""
    out: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
    for e in events:
        if e["role"] == "execute" and e.get("kind") == "call":
            out[e["pid"]].append((e["mono_ns"], e["mono_ns"] + e["dur_ns"], e["step"]))
    return {pid: sorted(spans) for pid, spans in out.items()}


def step_at(spans: list[tuple[int, int, int]], t: int, inside: bool) -> int:
    """The step of the execute call holding `t` (inside) or the last one begun by `t`; -1 when none. Execute calls
    nest (vLLM's execute_model holds _determine_batch_execution_and_padding): the call begun last may have ended
    before `t` while one begun before it still holds `t`, so the few calls before it are looked at too."""
    i = bisect.bisect_right(spans, (t, float("inf"), 0)) - 1
    if i < 0:
        return -1
    if not inside:
        return spans[i][2]
    for _start, end, step in reversed(spans[max(0, i - NESTED) : i + 1]):
        if t <= end:
            return step
    return -1


def kernels_of(records: KernelRecords, events: list[dict], join: KernelJoin) -> list[Kernel]:
    """Every recorded GPU activity, assigned and joined; graph replays recognised by their node sequences."""
    spans = executes_by_pid(events)
    graphs: dict[tuple[str, ...], str] = {}
    out = []
    for w in records.windows:
        names = w["names"]
        launches = {row[4]: row for row in w["launch"]}
        replays: dict[int, list[list]] = defaultdict(list)
        for row in w["gpu"]:
            launch = launches.get(row[5])
            if launch is not None and names[launch[0]].startswith(GRAPH_LAUNCHES):
                replays[row[5]].append(row)
        position: dict[tuple[int, int], tuple[str, int]] = {}
        for correlation, rows in replays.items():
            rows.sort(key=lambda r: r[3])
            sequence = tuple(names[r[0]] for r in rows)
            graph = graphs.setdefault(sequence, f"graph-{len(graphs) + 1}")
            for node, r in enumerate(rows):
                position[(correlation, r[3])] = (graph, node)
        pid_spans = spans.get(w["pid"], [])
        for index, stream, _device, start, dur, correlation in w["gpu"]:
            launch = launches.get(correlation)
            launch_ns = launch[2] if launch is not None else 0
            step = step_at(pid_spans, launch_ns, True) if launch_ns else step_at(pid_spans, start, False)
            graph, node = position.get((correlation, start), ("", -1))
            name = names[index]
            out.append(Kernel(w["pid"], step, name, join(name), stream, start, dur, launch_ns, graph, node))
    return out


def summary(kernels: list[Kernel], records: KernelRecords, events: list[dict], limit: int = 20) -> dict:
    """What the kernels say for the trace's summary: GPU time attributed to a static node or a named library (all,
    and per kind of step: batch mode and eager/graph), the names left unknown, the graphs, the capture's cost."""
    modes = step_modes(events)
    total: Counter = Counter()
    by_phase: dict[str, Counter] = defaultdict(Counter)
    unknown: Counter = Counter()
    for k in kernels:
        origin = k.match.origin.value
        total[origin] += k.dur_ns
        by_phase[f"{modes.get((k.pid, k.step), 'outside steps')} {'graph' if k.graph else 'eager'}"][origin] += k.dur_ns
        if k.match.origin == Origin.UNKNOWN:
            unknown[k.name] += k.dur_ns
    graphs: dict[str, dict] = {}
    for k in kernels:
        if k.graph:
            g = graphs.setdefault(k.graph, {"nodes": 0, "node_kernels": 0, "attributed_nodes": 0})
            g["node_kernels"] += 1
            if k.node >= g["nodes"]:  # the first replay seen of this graph: its nodes, joined once
                g["nodes"] = k.node + 1
                g["attributed_nodes"] += k.match.origin != Origin.UNKNOWN
    for g in graphs.values():
        g["replays"] = g.pop("node_kernels") // max(g["nodes"], 1)
    steps = {(k.pid, k.step) for k in kernels if k.step >= 0}
    cost = sum(w.get("cost_ns", 0) for w in records.windows)
    return {
        "windows": len(records.windows),
        "kernels": len(kernels),
        "distinct_names": len({k.name for k in kernels}),
        "steps_profiled": len(steps),
        "gpu_ms": round(sum(total.values()) / 1e6, 3),
        "share": _shares(total),
        "share_by_step_kind": {phase: _shares(c) for phase, c in sorted(by_phase.items())},
        "unattributed": [{"name": n, "gpu_us": round(t / 1e3, 3)} for n, t in unknown.most_common(limit)],
        "graphs": graphs,
        "triton_functions": len(records.triton),
        "cost": capture_cost(records, events, len(steps), cost),
    }


def _shares(ns: Counter) -> dict:
    total = sum(ns.values())
    attributed = ns[Origin.TREE.value] + ns[Origin.LIBRARY.value]
    return {
        "attributed": round(attributed / total, 4) if total else None,
        **{o.value: round(ns[o.value] / total, 4) if total else None for o in Origin},
    }


def step_modes(events: list[dict]) -> dict[tuple[int, int], str]:
    """(pid, step) -> the step's batch mode from its plan event, where the plan ran in the same process."""
    return {
        (e["pid"], e["step"]): str(e["values"]["batch_mode"])
        for e in events
        if e["role"] == "plan" and "batch_mode" in e["values"]
    }


def capture_cost(records: KernelRecords, events: list[dict], num_steps: int, cost_ns: int) -> dict:
    """What capturing kernels costs: reading the windows (on the flusher thread, holding the GIL part of the time)
    per profiled step, and the median execute call inside the windows against outside them."""
    windows: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for w in records.windows:
        windows[w["pid"]].append((w["begin_ns"], w["end_ns"]))
    inside: list[int] = []
    outside: list[int] = []
    for e in events:
        if e["role"] != "execute" or e.get("kind") != "call":
            continue
        held = any(a <= e["mono_ns"] <= b for a, b in windows.get(e["pid"], ()))
        (inside if held else outside).append(e["dur_ns"])
    med = {name: round(statistics.median(v) / 1e3, 1) if v else None for name, v in (("in", inside), ("out", outside))}
    return {
        "read_ms_total": round(cost_ns / 1e6, 3),
        "read_us_per_profiled_step": round(cost_ns / 1e3 / num_steps, 1) if num_steps else None,
        "execute_us_median_in_windows": med["in"],
        "execute_us_median_outside": med["out"],
        "execute_us_added_per_step": round(med["in"] - med["out"], 1) if med["in"] and med["out"] else None,
    }
