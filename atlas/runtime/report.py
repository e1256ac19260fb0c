"""A trace's summary as typed data: what `atlas trace` reports and what its summary.json holds, read from that JSON
(the summary crosses processes and sits committed in results/ as JSON) into dataclasses, so that the CLI reads
fields, not keys. Older summaries lack some sections: those read as empty."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class HookRun:
    """What one hook did over the run."""

    symbol: str
    role: str
    path: str
    line: int
    fired: int
    at_pin: bool
    installed_in: int = 0
    optional: bool = False
    own_us_per_call: float = 0.0


@dataclass(frozen=True, slots=True)
class RoundRate:
    round: int
    probes: str
    out_tok_s: float | None


@dataclass(frozen=True, slots=True)
class StateCost:
    """What one probe state cost over a phase's rounds (spec `diagnostics`)."""

    tok_s: float | None
    cpu_ms_s: float | None
    engine_run_ms_s: float | None
    engine_wait_ms_s: float | None
    flusher_ms_s: float | None
    gc_ms_s: float | None
    gc2_s: float | None


@dataclass(frozen=True, slots=True)
class DutyRatio:
    """On windows against the off windows beside them (control option duty=N)."""

    median: float
    ci95: tuple[float, float]
    pooled: float | None
    pairs: int
    window_ms: float


@dataclass(frozen=True, slots=True)
class ProfileMove:
    label: str
    samples: tuple[int, int]
    functions: tuple[tuple[str, float], ...]  # (file:function, change of share)


@dataclass(frozen=True, slots=True)
class RankRun:
    label: str
    steps: int
    step_ms_median: float | None
    collective_ms_per_step: float
    collective_share: float


@dataclass(frozen=True, slots=True)
class KernelShare:
    """Shares of the profiled GPU time (0-1; None when no kernel time was recorded)."""

    attributed: float | None  # to a static kernel node of the pin or a named library
    tree: float | None
    library: float | None
    unknown: float | None


@dataclass(frozen=True, slots=True)
class UnattributedKernel:
    name: str  # as the profiler printed it
    gpu_us: float


@dataclass(frozen=True, slots=True)
class KernelReport:
    """GPU kernels per step (`atlas trace --kernels`, atlas.runtime.kernels.steps.summary)."""

    windows: int
    kernels: int
    distinct_names: int
    steps_profiled: int
    gpu_ms: float
    share: KernelShare
    share_by_step_kind: dict[str, KernelShare]  # "<batch mode> eager|graph" -> shares
    unattributed: tuple[UnattributedKernel, ...]  # by GPU time, largest first
    num_graphs: int
    triton_functions: int
    read_us_per_profiled_step: float | None
    execute_us_added_per_step: float | None


@dataclass(frozen=True, slots=True)
class TraceReport:
    framework: str
    ref: str
    commit: str
    hook_source: str
    num_events: int
    num_dropped: int
    num_capture_errors: int
    steps_by_batch_mode: dict[str, int]
    cuda_graph: dict[str, int]
    preempted: int
    retracted: int
    prefix_hit_tokens: int
    ttft_ms_median: float | None
    hooks: tuple[HookRun, ...]
    rounds: tuple[RoundRate, ...] = ()
    ratios: dict[str, float] = field(default_factory=dict)  # on_over_absent, off_over_absent, on_over_off
    cost: dict[str, dict[str, StateCost]] = field(default_factory=dict)  # phase -> probe state -> cost
    profile: dict[str, tuple[ProfileMove, ...]] = field(default_factory=dict)  # phase -> comparisons
    duty: dict[str, DutyRatio] = field(default_factory=dict)  # duty-cycled probe state -> ratio
    ranks: tuple[RankRun, ...] = ()
    clock_barriers: int = 0
    clock_skew_us: tuple[float, float] = (0.0, 0.0)  # median, max
    kernels: KernelReport | None = None  # only with --kernels


def read_report(s: dict[str, Any]) -> TraceReport:
    """The typed report of a summary dict (atlas.runtime.summary.summarise and collect's sections)."""
    tput = s.get("throughput") or {}
    clock = s.get("clock") or {}
    return TraceReport(
        framework=s["framework"],
        ref=s.get("ref", ""),
        commit=s.get("commit", ""),
        hook_source=s.get("hook_source", ""),
        num_events=int(s.get("num_events", 0)),
        num_dropped=int(s.get("num_dropped", 0)),
        num_capture_errors=sum((s.get("capture_errors") or {}).values()),
        steps_by_batch_mode=dict(s.get("steps_by_batch_mode") or {}),
        cuda_graph=dict(s.get("cuda_graph") or {}),
        preempted=_count(s.get("preempted")),
        retracted=_count(s.get("retracted")),
        prefix_hit_tokens=int(s.get("prefix_hit_tokens", 0)),
        ttft_ms_median=s.get("ttft_ms_median"),
        hooks=tuple(
            HookRun(
                symbol,
                h["role"],
                h["path"],
                int(h["line"]),
                int(h["fired"]),
                bool(h["at_pin"]),
                int(h.get("installed_in", 0)),
                bool(h.get("optional")),
                float(h.get("own_us_per_call", 0.0)),
            )
            for symbol, h in (s.get("hooks") or {}).items()
        ),
        rounds=tuple(
            RoundRate(int(r.get("round") or 0), str(r.get("probes") or ""), r.get("out_tok_s"))
            for r in tput.get("rounds", [])
        ),
        ratios={k: tput[k] for k in ("on_over_absent", "off_over_absent", "on_over_off") if k in tput},
        cost={
            phase: {
                state: StateCost(*(c.get(k) for k in StateCost.__dataclass_fields__)) for state, c in states.items()
            }
            for phase, states in (s.get("cost") or {}).items()
        },
        profile={
            phase: tuple(
                ProfileMove(
                    label,
                    (int(d["samples"][0]), int(d["samples"][1])),
                    tuple((str(f[0]), float(f[3])) for f in d["functions"]),
                )
                for label, d in comparisons.items()
            )
            for phase, comparisons in ((s.get("profile") or {}).get("phases") or {}).items()
        },
        duty={
            state: DutyRatio(d["median"], (d["ci95"][0], d["ci95"][1]), d.get("pooled"), d["pairs"], d["window_ms"])
            for state, d in (s.get("duty") or {}).items()
        },
        ranks=tuple(
            RankRun(label, int(r["steps"]), r["step_ms_median"], r["collective_ms_per_step"], r["collective_share"])
            for label, r in (s.get("ranks") or {}).items()
        ),
        clock_barriers=int(clock.get("num_barriers", 0)),
        clock_skew_us=(float(clock.get("skew_us_median", 0.0)), float(clock.get("skew_us_max", 0.0))),
        kernels=_kernels(s.get("kernels")),
    )


def _kernels(k: dict[str, Any] | None) -> KernelReport | None:
    if not k:
        return None
    cost = k.get("cost") or {}
    return KernelReport(
        windows=int(k.get("windows", 0)),
        kernels=int(k.get("kernels", 0)),
        distinct_names=int(k.get("distinct_names", 0)),
        steps_profiled=int(k.get("steps_profiled", 0)),
        gpu_ms=float(k.get("gpu_ms", 0.0)),
        share=_share(k.get("share") or {}),
        share_by_step_kind={kind: _share(v) for kind, v in (k.get("share_by_step_kind") or {}).items()},
        unattributed=tuple(UnattributedKernel(str(u["name"]), float(u["gpu_us"])) for u in k.get("unattributed") or ()),
        num_graphs=len(k.get("graphs") or {}),
        triton_functions=int(k.get("triton_functions", 0)),
        read_us_per_profiled_step=cost.get("read_us_per_profiled_step"),
        execute_us_added_per_step=cost.get("execute_us_added_per_step"),
    )


def _share(d: dict[str, Any]) -> KernelShare:
    """The shares of atlas.runtime.kernels.steps._shares, keyed by Origin's values."""
    return KernelShare(d.get("attributed"), d.get("pinned tree"), d.get("library"), d.get("unknown"))


def _count(value: object) -> int:
    """A count, or a list of what was counted (request ids)."""
    if isinstance(value, list):
        return len(value)
    return int(value) if isinstance(value, (int, float)) else 0
