"""The kernels of a trace per kind of step, as `atlas explain` and the site show them: per step kind (prefill,
decode, ...) and launch (eager, or inside a CUDA graph) the GPU time per step, its split between a kernel node of
the pinned tree, a named library and unknown, the top kernels with the node's file:line or the library, the names
left unknown, and what capturing cost per step. From the kernels themselves (a trace folder's shards) or from the
shares a summary kept. Pure."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from atlas.runtime.kernels.join import KernelJoin, KernelMatch, KernelNodes, Origin
from atlas.runtime.kernels.steps import Kernel, KernelRecords, capture_cost, step_modes

STEP_KINDS = {"EXTEND": "prefill", "MIXED": "prefill", "DECODE": "decode", "IDLE": "idle"}
UNRECORDED = "unrecorded"  # kernels of no step the probe recorded a plan for (warm-up, between rounds)
OUTSIDE = "outside steps"  # the summary's batch mode of those kernels
TOP = 10


def step_kind(mode: str | None) -> str:
    """A plan's batch mode -> prefill, decode or idle; no mode (no plan recorded for the step) -> unrecorded."""
    if mode is None or mode == OUTSIDE:
        return UNRECORDED
    return STEP_KINDS.get(mode, mode.lower())


@dataclass(frozen=True, slots=True)
class KernelRow:
    """One kernel name's GPU time within a step kind."""

    name: str  # the kernel's qualified name (the profiler's name demangled and cut)
    origin: Origin
    label: str  # the static node id, the library, or "unknown"
    where: str  # path:line of the static node at the pin ("" for a library or unknown)
    gpu_ms: float
    share: float  # of the step kind's GPU time
    num_runs: int | None  # launches, or runs as a CUDA-graph node (None: not recorded)


@dataclass(frozen=True, slots=True)
class UnattributedName:
    name: str  # as the profiler printed it
    gpu_us: float
    joined_now: str = ""  # the library this checkout's join names it by, where the trace's join did not


@dataclass(frozen=True, slots=True)
class StepKindKernels:
    kind: str  # prefill, decode, idle, unrecorded
    launch: str  # eager, graph
    batch_modes: tuple[str, ...]  # the plans' batch modes folded into this kind
    num_steps: int | None  # steps with kernels of this kind (None: the summary does not say)
    gpu_ms: float | None
    gpu_us_per_step: float | None  # median over those steps
    tree: float | None  # shares of the GPU time (0-1)
    library: float | None
    unknown: float | None
    top: tuple[KernelRow, ...]  # by GPU time, largest first
    unattributed: tuple[UnattributedName, ...]


@dataclass(frozen=True, slots=True)
class CaptureCost:
    """Median execute call inside the profiling windows against outside them, and reading the windows."""

    execute_us_in_windows: float | None
    execute_us_outside: float | None
    execute_us_added_per_step: float | None
    read_us_per_profiled_step: float | None


@dataclass(frozen=True, slots=True)
class GraphNodes:
    graph: str
    num_nodes: int
    num_attributed: int
    num_replays: int


@dataclass(frozen=True, slots=True)
class KernelView:
    source: str  # "kernel records" (every kernel joined again) or "summary" (the shares it kept)
    num_windows: int
    num_kernels: int
    num_steps_profiled: int
    gpu_ms: float
    attributed: float | None
    kinds: tuple[StepKindKernels, ...]
    unattributed: tuple[UnattributedName, ...]  # over the whole trace, by GPU time
    graphs: tuple[GraphNodes, ...]
    cost: CaptureCost


def view_of_kernels(kernels: list[Kernel], records: KernelRecords, events: list[dict], top: int = TOP) -> KernelView:
    """The view of every recorded kernel, grouped by step kind and launch."""
    modes = step_modes(events)
    groups: dict[tuple[str, str], list[Kernel]] = defaultdict(list)
    folded: dict[tuple[str, str], set[str]] = defaultdict(set)
    for k in kernels:
        mode = modes.get((k.pid, k.step)) if k.step >= 0 else None
        key = (step_kind(mode), "graph" if k.graph else "eager")
        groups[key].append(k)
        if mode:
            folded[key].add(mode)
    kinds = tuple(_kind(kind, launch, group, folded[(kind, launch)], top) for (kind, launch), group in _ordered(groups))
    unknown = _unattributed(kernels)
    steps = {(k.pid, k.step) for k in kernels if k.step >= 0}
    cost = capture_cost(records, events, len(steps), sum(w.get("cost_ns", 0) for w in records.windows))
    total = sum(k.dur_ns for k in kernels)
    known = sum(k.dur_ns for k in kernels if k.match.origin != Origin.UNKNOWN)
    return KernelView(
        "kernel records",
        len(records.windows),
        len(kernels),
        len(steps),
        round(total / 1e6, 3),
        round(known / total, 4) if total else None,
        kinds,
        unknown,
        _graphs(kernels),
        _cost(cost),
    )


def view_of_summary(k: dict[str, Any], join: KernelJoin | None = None) -> KernelView:
    """The view of a summary's "kernels" (atlas.runtime.kernels.steps.summary): shares per batch mode and launch,
    no per-step times or top kernels (a summary does not keep them). `join`, when given, says which names the trace
    left unknown this checkout's join attributes to a library."""
    join = join or KernelJoin(KernelNodes.of(()))
    kinds = []
    for key, share in sorted((k.get("share_by_step_kind") or {}).items()):
        mode, _, launch = key.rpartition(" ")
        kinds.append(
            StepKindKernels(
                step_kind(mode),
                launch,
                (mode,) if mode != OUTSIDE else (),
                None,
                None,
                None,
                share.get(Origin.TREE.value),
                share.get(Origin.LIBRARY.value),
                share.get(Origin.UNKNOWN.value),
                (),
                (),
            )
        )
    kinds.sort(key=lambda s: _rank(s.kind, s.launch))
    unknown = tuple(
        UnattributedName(u["name"], float(u["gpu_us"]), join(u["name"]).library) for u in k.get("unattributed") or ()
    )
    cost = k.get("cost") or {}
    return KernelView(
        "summary",
        int(k.get("windows", 0)),
        int(k.get("kernels", 0)),
        int(k.get("steps_profiled", 0)),
        float(k.get("gpu_ms", 0.0)),
        (k.get("share") or {}).get("attributed"),
        tuple(kinds),
        unknown,
        tuple(
            GraphNodes(name, int(g["nodes"]), int(g["attributed_nodes"]), int(g["replays"]))
            for name, g in sorted((k.get("graphs") or {}).items(), key=lambda kv: _graph_order(kv[0]))
        ),
        _cost(cost),
    )


def top_rows(gpu_ns: dict[str, int], join: KernelJoin, top: int = TOP) -> tuple[KernelRow, ...]:
    """The `top` kernels by GPU time of names as printed -> GPU ns (a run's recorded names), joined; launch counts
    are not known there."""
    rows = _rows([(join(name), ns) for name, ns in gpu_ns.items()], top)
    return tuple(KernelRow(r.name, r.origin, r.label, r.where, r.gpu_ms, r.share, None) for r in rows)


def _kind(kind: str, launch: str, group: list[Kernel], modes: set[str], top: int) -> StepKindKernels:
    by_origin: Counter = Counter()
    per_step: Counter = Counter()
    for k in group:
        by_origin[k.match.origin] += k.dur_ns
        if k.step >= 0:
            per_step[(k.pid, k.step)] += k.dur_ns
    total = sum(by_origin.values())
    tree, library, unknown = (round(by_origin[o] / total, 4) if total else None for o in Origin)
    return StepKindKernels(
        kind,
        launch,
        tuple(sorted(modes)),
        len(per_step),
        round(total / 1e6, 3),
        round(statistics.median(per_step.values()) / 1e3, 1) if per_step else None,
        tree,
        library,
        unknown,
        _rows([(k.match, k.dur_ns) for k in group], top),
        _unattributed(group),
    )


def _rows(timed: list[tuple[KernelMatch, int]], top: int) -> tuple[KernelRow, ...]:
    """The top kernels by GPU time; the names of one kernel (template instantiations) as one row."""
    ns: Counter = Counter()
    runs: Counter = Counter()
    first: dict[tuple[str, str], KernelMatch] = {}
    for m, dur in timed:
        key = (display_name(m), m.label)
        ns[key] += dur
        runs[key] += 1
        first.setdefault(key, m)
    total = sum(ns.values())
    return tuple(
        KernelRow(
            key[0],
            first[key].origin,
            key[1],
            f"{first[key].path}:{first[key].line}" if first[key].path else "",
            round(t / 1e6, 3),
            round(t / total, 4) if total else 0.0,
            runs[key],
        )
        for key, t in sorted(ns.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    )


def display_name(m: KernelMatch) -> str:
    """A C++ kernel by its qualified name (template arguments and parameters cut); any other name as printed."""
    return m.qualname if "::" in m.qualname or m.origin == Origin.TREE else m.name


def _unattributed(kernels: list[Kernel]) -> tuple[UnattributedName, ...]:
    ns: Counter = Counter()
    for k in kernels:
        if k.match.origin == Origin.UNKNOWN:
            ns[k.name] += k.dur_ns
    return tuple(UnattributedName(n, round(t / 1e3, 3)) for n, t in sorted(ns.items(), key=lambda kv: (-kv[1], kv[0])))


def _graphs(kernels: list[Kernel]) -> tuple[GraphNodes, ...]:
    nodes: dict[str, dict[int, bool]] = defaultdict(dict)
    runs: Counter = Counter()
    for k in kernels:
        if k.graph:
            nodes[k.graph][k.node] = k.match.origin != Origin.UNKNOWN
            runs[k.graph] += 1
    return tuple(
        GraphNodes(g, len(n), sum(n.values()), runs[g] // max(len(n), 1))
        for g, n in sorted(nodes.items(), key=lambda kv: _graph_order(kv[0]))
    )


def _cost(c: dict[str, Any]) -> CaptureCost:
    return CaptureCost(
        c.get("execute_us_median_in_windows"),
        c.get("execute_us_median_outside"),
        c.get("execute_us_added_per_step"),
        c.get("read_us_per_profiled_step"),
    )


ORDER = ("prefill", "decode", "idle", UNRECORDED)


def _rank(kind: str, launch: str) -> tuple[int, str, str]:
    return (ORDER.index(kind) if kind in ORDER else len(ORDER), kind, launch)


def _ordered(groups: dict[tuple[str, str], list[Kernel]]) -> list[tuple[tuple[str, str], list[Kernel]]]:
    return sorted(groups.items(), key=lambda kv: _rank(*kv[0]))


def _graph_order(name: str) -> tuple[int, str]:
    """graph-2 before graph-10."""
    tail = name.rsplit("-", 1)[-1]
    return (int(tail), name) if tail.isdigit() else (0, name)
