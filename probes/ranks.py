"""Which rank this process is: read lazily (by the flusher, once the engine has set its parallel state up) from the
engine modules already imported, never importing anything; None until the state exists. Also this host's boot id:
processes with the same one share CLOCK_MONOTONIC, so their events are on one clock as written."""

from __future__ import annotations

import sys

# framework -> (parallel-state module, {field: group variable}, data-parallel module and its rank/size variables)
PARALLEL_STATE = {
    "vllm": ("vllm.distributed.parallel_state", {"tp": "_TP", "pp": "_PP", "dp": "_DP", "world": "_WORLD"}, None),
    "sglang": (
        "sglang.srt.distributed.parallel_state",
        {"tp": "_TP", "pp": "_PP", "world": "_WORLD"},
        ("sglang.srt.layers.dp_attention", "_ATTN_DP_RANK", "_ATTN_DP_SIZE"),
    ),
}


def read_rank(framework: str) -> dict | None:
    """{'tp_rank', 'tp_size', 'pp_rank', ..., 'world_rank', 'world_size'} once the TP group exists, else None."""
    found = PARALLEL_STATE.get(framework)
    if found is None:
        return None
    module_name, groups, dp_attention = found
    state = sys.modules.get(module_name)
    if state is None or getattr(state, groups["tp"], None) is None:
        return None
    rank = {}
    for field, variable in groups.items():
        group = getattr(state, variable, None)
        if group is not None:
            rank[f"{field}_rank"] = int(getattr(group, "rank_in_group", 0))
            rank[f"{field}_size"] = int(getattr(group, "world_size", 1))
    if dp_attention is not None and "dp_rank" not in rank:
        module = sys.modules.get(dp_attention[0])
        if module is not None and getattr(module, dp_attention[1], None) is not None:
            rank["dp_rank"] = int(getattr(module, dp_attention[1]))
            rank["dp_size"] = int(getattr(module, dp_attention[2], 1) or 1)
    return rank


def boot_id() -> str:
    """This host's boot id ('' where the platform has none)."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as f:
            return f.read().strip()
    except OSError:
        return ""
