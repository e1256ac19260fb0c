"""The summary of a run, from the events alone: per-request TTFT / TPOT / ITL, steps per batch mode, preemptions
and retractions, prefix hits, CUDA-graph use, and per hook whether it was installed, fired and sits at the pin."""

from __future__ import annotations

import statistics
from collections import Counter

from atlas.runtime.merge import Merged
from atlas.runtime.ranks import per_rank

ARRIVALS = ("Scheduler.add_request", "Scheduler.handle_generate_request")


def token_times(merged: Merged) -> dict[str, list[tuple[int, int]]]:
    """rid -> [(monotonic ns, new tokens)] from the commit events (vLLM `new_tokens`; SGLang `output_tokens`
    counts so far, differenced here)."""
    times: dict[str, list[tuple[int, int]]] = {}
    seen: dict[str, int] = {}
    for e in merged.events:
        if e["role"] != "commit":
            continue
        end = e["mono_ns"] + e["dur_ns"]
        for rid, n in (e["values"].get("new_tokens") or {}).items():
            if n:
                times.setdefault(rid, []).append((end, n))
        for rid, total in (e["values"].get("output_tokens") or {}).items():
            if total > seen.get(rid, 0):
                times.setdefault(rid, []).append((end, total - seen.get(rid, 0)))
                seen[rid] = total
    return times


def per_request(merged: Merged) -> dict[str, dict]:
    arrivals = {}
    for e in merged.events:
        if e["symbol"].endswith(ARRIVALS) and e.get("request_ids"):
            arrivals.setdefault(e["request_ids"][0], e["mono_ns"])
    rows = {}
    for rid, times in token_times(merged).items():
        tokens = sum(n for _, n in times)
        stamps = [t for t, _ in times]
        gaps = [(b - a) / 1e6 for a, b in zip(stamps, stamps[1:])]
        row = {
            "output_tokens": tokens,
            "ttft_ms": round((stamps[0] - arrivals[rid]) / 1e6, 3) if rid in arrivals else None,
        }
        if tokens > 1:
            row["tpot_ms"] = round((stamps[-1] - stamps[0]) / 1e6 / (tokens - 1), 3)
        if gaps:
            row["itl_ms"] = {
                "mean": round(statistics.fmean(gaps), 3),
                "p50": round(statistics.median(gaps), 3),
                "max": round(max(gaps), 3),
            }
        rows[rid] = row
    return rows


def summarise(merged: Merged, spec: dict, driver: dict | None = None) -> dict:
    modes, graphs, preempted, retracted = Counter(), Counter(), [], []
    prefix_hit_tokens = kv_allocated = kv_freed = drafts = accepted = 0
    fired = Counter()
    for e in merged.events:
        fired[e["symbol"]] += e.get("count", 1)
        v = e["values"]
        if e["role"] == "plan" and "batch_mode" in v:
            modes[v["batch_mode"]] += 1
            preempted += list(v.get("preempted") or [])
            drafts += v.get("draft_tokens", 0) or 0
        if "cuda_graph" in v:
            graphs[v["cuda_graph"]] += 1
        retracted += list(v.get("retracted") or [])
        if e["role"] in ("allocate", "plan") and isinstance(v.get("prefix_hit_tokens"), int):
            prefix_hit_tokens += v["prefix_hit_tokens"]
        if e["role"] == "allocate" and isinstance(v.get("kv_blocks"), int):
            kv_allocated += (
                v["kv_blocks"]
                if e["symbol"].endswith(
                    ("allocate_slots", "get_new_blocks", "prepare_for_extend", "prepare_for_decode")
                )
                else 0
            )
        if e["role"] == "release" and isinstance(v.get("kv_blocks"), int):
            kv_freed += v["kv_blocks"]
        if e["role"] == "commit":
            accepted += v.get("accepted_tokens", 0) or 0
    hooks = {}
    for h in spec["hooks"]:
        state = [s.get("hooks", {}).get(h["symbol"], {}) for s in merged.stats.values()]
        installed = [s for s in state if s.get("installed")]
        hooks[h["symbol"]] = {
            "role": h["role"],
            "path": h["path"],
            "line": h["line"],
            "fired": fired[h["symbol"]],
            "installed_in": len(installed),
            "optional": bool(h.get("optional")),
            "at_pin": bool(installed) and all(s.get("at_pin") for s in installed),
            "run_line": installed[0].get("run_line") if installed else None,
            # the wrapper's own time per recorded call (its time less the engine's), all processes
            "own_us_per_call": round(
                sum(s.get("own_ns", 0) for s in installed) / 1e3 / max(sum(s.get("calls", 0) for s in installed), 1), 2
            ),
        }
    stats = list(merged.stats.values())
    requests = per_request(merged)
    ttfts = [r["ttft_ms"] for r in requests.values() if r.get("ttft_ms") is not None]
    return {
        "framework": spec["framework"],
        "ref": spec["ref"],
        "commit": spec["commit"],
        "engine": f"{spec['framework']} {spec['ref']}",
        "annotations": per_annotation(spec, hooks),
        "timeline": timeline(merged, spec),
        "hook_source": spec["source"],
        "device": spec.get("device"),
        "processes": [
            {
                "pid": p["pid"],
                "proc": p["proc"],
                "engine_version": p["engine_version"],
                "version_at_pin": p["version_at_pin"],
            }
            for p in merged.processes
        ],
        # the events read back, not the stats' count: a kill can leave rows flushed after the last stats record
        "num_events": len(merged.events),
        "num_dropped": sum(s["num_dropped"] for s in stats),
        "num_torn_lines": merged.num_torn,
        "capture_errors": {k: v for s in stats for k, v in s.get("capture_errors", {}).items()},
        "disabled_hooks": sorted({h for s in stats for h in s.get("disabled_hooks", [])}),
        "steps_by_batch_mode": dict(sorted(modes.items())),
        "cuda_graph": dict(sorted(graphs.items())),
        "preempted": len(preempted),
        "retracted": len(retracted),
        "prefix_hit_tokens": prefix_hit_tokens,
        "kv_blocks_allocated": kv_allocated,
        "kv_blocks_freed": kv_freed,
        "draft_tokens": drafts,
        "accepted_tokens": accepted,
        "hooks": hooks,
        "requests": requests,
        "ttft_ms_median": round(statistics.median(ttfts), 3) if ttfts else None,
        "throughput": throughput(driver) if driver else None,
        "ranks": per_rank(merged, spec),
        "clock": merged.clock or {},
    }


def per_annotation(spec: dict, hooks: dict) -> dict:
    """annotation id -> what its hook recorded (the site shows it beside the annotation); built-in hooks have none."""
    out = {}
    for h in spec["hooks"]:
        for annotation in h.get("annotations") or [h.get("annotation")]:
            if annotation and annotation != "builtin-default":
                row = hooks[h["symbol"]]
                out[annotation] = {
                    "events": row["fired"],
                    "symbol": h["symbol"],
                    "role": h["role"],
                    "at_pin": row["at_pin"],
                    "capture": h.get("capture", []),
                }
    return out


def timeline(merged: Merged, spec: dict, num_steps: int = 6) -> list[dict]:
    """The first steps of the first probes-on round, one row per event, each linked to its line at the pin."""
    start = next(
        (
            m["mono_ns"]
            for m in merged.marks
            if m["name"] == "round_begin" and m.get("values", {}).get("probes") == "on"
        ),
        None,
    )
    events = [e for e in merged.events if start is None or e["mono_ns"] >= start]
    if not events:
        return []
    first = min(e["step"] for e in events if e["step"] > 0) if any(e["step"] > 0 for e in events) else 0
    base = f"{spec.get('url', '').rstrip('/')}/blob/{spec.get('permalink_ref', '')}/"
    origin = events[0]["mono_ns"]
    return [
        {
            "step": e["step"],
            "role": e["role"],
            "symbol": e["symbol"],
            "t_ms": round((e["mono_ns"] - origin) / 1e6, 3),
            "dur_ms": round(e["dur_ns"] / 1e6, 3),
            "count": e.get("count", 1),
            "source": f"{base}{e.get('path', '')}#L{e.get('line', 0)}",
            "where": f"{e.get('path', '')}:{e.get('line', 0)}",
            "values": {k: v for k, v in e["values"].items() if not isinstance(v, (dict, list)) or len(v) <= 8},
        }
        for e in events
        if first <= e["step"] < first + num_steps
    ]


def throughput(driver: dict) -> dict:
    """Output tok/s per round, and per phase the medians per probe state (absent: wrappers removed, the engine's own
    code; off: wrappers passing through; on: recording) and their ratios to the probe-free baseline."""
    rounds = driver.get("rounds", [])
    result = {
        "rounds": [
            {k: r.get(k) for k in ("phase", "round", "probes", "out_tokens", "seconds", "out_tok_s")} for r in rounds
        ],
        "phases": {},
    }
    for phase in dict.fromkeys(r.get("phase", "") for r in rounds):
        by = {"on": [], "off": [], "absent": []}
        for r in rounds:
            if r.get("phase", "") == phase and r.get("probes") and "error" not in r:
                by.setdefault(r["probes"], []).append(r["out_tok_s"])
        row = {f"median_{state}": statistics.median(v) if v else None for state, v in by.items()}
        row["num_pairs"] = min((len(v) for v in by.values() if v), default=0) if sum(map(bool, by.values())) > 1 else 0
        for num, den in (("on", "off"), ("on", "absent"), ("off", "absent")):
            if by[num] and by[den]:
                row[f"{num}_over_{den}"] = round(row[f"median_{num}"] / row[f"median_{den}"], 4)
        for state in list(by)[3:]:  # measuring states (e.g. 'on skip=...'): each against the probe-free rounds
            if by["absent"]:
                row[f"{state}_over_absent"] = round(row[f"median_{state}"] / row["median_absent"], 4)
        result["phases"][phase] = row
    if len(result["phases"]) == 1:
        result.update(next(iter(result["phases"].values())))
    return result
