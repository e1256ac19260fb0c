"""Per-rank figures of a tensor-parallel run, from the merged events: steps, median step (execute) time, time in
collectives per step and its share of the step; plus the residual clock skew between the processes."""

from __future__ import annotations

import statistics
from collections import defaultdict

from atlas.runtime.merge import Merged


def rank_label(rank: dict) -> str:
    parts = [
        f"{key[:-5]}{rank[key]}"
        for key in ("dp_rank", "pp_rank", "tp_rank")
        if key in rank and rank.get(key[:-5] + "_size", 1) > 1
    ]
    return "-".join(parts) or "rank0"


def per_rank(merged: Merged, spec: dict) -> dict:
    """label -> {pid, steps, step_ms_median, collective_ms_per_step, collective_share, collective_bytes}; {} when no
    process recorded a rank."""
    if not merged.ranks:
        return {}
    collective = {h["symbol"] for h in spec["hooks"] if h.get("collective")}
    steps = {h["symbol"] for h in spec["hooks"] if h.get("step") and h["role"] == "execute"}
    step_ns, coll_ns, coll_bytes = defaultdict(list), defaultdict(lambda: defaultdict(int)), defaultdict(int)
    for e in merged.events:
        if e["symbol"] in steps:
            step_ns[e["pid"]].append(e["dur_ns"])
        elif e["symbol"] in collective:
            coll_ns[e["pid"]][e["step"]] += e["dur_ns"]
            coll_bytes[e["pid"]] += int(e["values"].get("bytes", 0) or 0)
    out = {}
    for pid, rank in sorted(merged.ranks.items(), key=lambda kv: rank_label(kv[1])):
        total_step = sum(step_ns[pid])
        total_coll = sum(coll_ns[pid].values())
        out[rank_label(rank)] = {
            "pid": pid,
            **{k: v for k, v in rank.items() if k.endswith(("_rank", "_size"))},
            "steps": len(step_ns[pid]),
            "step_ms_median": round(statistics.median(step_ns[pid]) / 1e6, 3) if step_ns[pid] else None,
            "collective_ms_per_step": round(total_coll / len(coll_ns[pid]) / 1e6, 3) if coll_ns[pid] else 0.0,
            "collective_share": round(total_coll / total_step, 4) if total_step else None,
            "collective_bytes": coll_bytes[pid],
        }
    return out
