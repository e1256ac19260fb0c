"""GPU kernel time attributed on real traces (`atlas trace --kernels` folders, shards kept): each trace's kernel
records joined again with this checkout's join (the kernel nodes from the trace's own spec.json, so no built graph
is needed), and per kind of step (prefill: the plan's batch mode EXTEND or MIXED; decode: DECODE; idle: IDLE;
unrecorded: kernels of windows where the probe recorded no execute call, e.g. the untimed warm-up, so no step
kind) and per launch (eager, or a CUDA-graph replay) the share of GPU time joined to a static kernel node or a
named library (target >= 95%), the rest listed by name; the timed rounds' throughput and TTFT with 95% bootstrap
intervals. With --excerpt, write what tests keep of the traces: every
distinct kernel name with its GPU time and what it joined to. Run from the project root:
    python benchmarks/bench_kernel_trace.py TRACE_DIR... [--excerpt FILE]"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import Counter, defaultdict
from pathlib import Path

from atlas.runtime.experiments.spread import bootstrap
from atlas.runtime.kernels import KernelJoin, KernelNodes, Origin
from atlas.runtime.kernels.steps import kernels_of, read_records, step_modes
from atlas.runtime.merge import merge

KINDS = {"EXTEND": "prefill", "MIXED": "prefill", "DECODE": "decode", "IDLE": "idle"}


def step_kind(mode: str | None) -> str:
    return KINDS.get(mode or "", "unrecorded" if mode is None else mode.lower())


def measure(folder: Path) -> dict:
    """The trace's kernels, by (step kind, eager/graph): GPU ns per origin; and per distinct name its GPU ns."""
    spec = json.loads((folder / "spec.json").read_text())
    records = read_records(folder / "shards")
    merged = merge(folder / "shards")
    join = KernelJoin(KernelNodes.from_json(spec["kernel_nodes"]), records.triton)
    kernels = kernels_of(records, merged.events, join)
    modes = step_modes(merged.events)
    recorded = {(e["pid"], e["step"]) for e in merged.events if e["role"] == "execute"}
    by_kind: dict[tuple[str, str], Counter] = defaultdict(Counter)
    names: dict[str, dict] = {}
    for k in kernels:
        mode = modes.get((k.pid, k.step)) if (k.pid, k.step) in recorded else None
        kind = step_kind(mode) if k.step >= 0 else "unrecorded"
        by_kind[(kind, "graph" if k.graph else "eager")][k.match.origin] += k.dur_ns
        row = names.setdefault(k.name, {"name": k.name, "label": k.match.label, "how": k.match.how, "gpu_ns": 0})
        row["gpu_ns"] += k.dur_ns
    return {"by_kind": by_kind, "names": names, "windows": len(records.windows), "kernels": len(kernels)}


def spread(folder: Path) -> str:
    """The trace's timed rounds (result.json): output tok/s per round, their median and 95% bootstrap interval over
    rounds; time to first token per request, its mean and interval over requests."""
    result = json.loads((folder / "result.json").read_text())
    rounds = [r for r in result["rounds"] if r.get("round", 0) >= 0]
    tok_s = [r["out_tok_s"] for r in rounds]
    ttft = [
        req["tokens"][0][0] - req["submit"]
        for r in rounds
        for req in r.get("requests", {}).values()
        if req.get("tokens")
    ]
    a, b = bootstrap(tok_s, statistics.median, "rounds"), bootstrap(ttft, statistics.fmean, "requests")
    text = f"  rounds: out tok/s {tok_s}"
    if a:
        text += f"; median {a.value} (95% {a.low}-{a.high}, n={a.n} rounds)"
    if b:
        text += f"; TTFT mean {1e3 * b.value:.1f} ms (95% {1e3 * b.low:.1f}-{1e3 * b.high:.1f}, n={b.n} requests)"
    return text + f"; engine import {result.get('import_s')} s, build {result.get('init_s')} s"


def share(c: Counter) -> float:
    total = sum(c.values())
    return (c[Origin.TREE] + c[Origin.LIBRARY]) / total if total else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("traces", nargs="+", type=Path, help="trace folders (ENGINE/RUN: vllm/graph, sglang/eager)")
    ap.add_argument("--excerpt", type=Path, help="write every distinct kernel name, its GPU time and join here")
    a = ap.parse_args()
    excerpt = []
    for folder in a.traces:
        m = measure(folder)
        label = "/".join(folder.parts[-2:])
        total = Counter()
        for c in m["by_kind"].values():
            total.update(c)
        print(
            f"{label}: {m['kernels']} kernels in {m['windows']} windows, {sum(total.values()) / 1e6:.1f} ms GPU, "
            f"attributed {100 * share(total):.2f}%"
        )
        for (kind, launch), c in sorted(m["by_kind"].items()):
            print(
                f"  {kind:10} {launch:5} {sum(c.values()) / 1e6:9.1f} ms  attributed {100 * share(c):6.2f}%  "
                f"(tree {100 * c[Origin.TREE] / sum(c.values()):.1f}%, library "
                f"{100 * c[Origin.LIBRARY] / sum(c.values()):.1f}%)"
            )
        if (folder / "result.json").is_file():
            print(spread(folder))
        rows = sorted(m["names"].values(), key=lambda r: (-r["gpu_ns"], r["name"]))
        for r in rows:
            if r["label"] == "unknown":
                print(f"  unattributed: {r['name'][:100]}  {r['gpu_ns'] / 1e6:.2f} ms")
        excerpt.append({"trace": label, "names": rows})
    if a.excerpt:
        a.excerpt.write_text(json.dumps(excerpt, indent=0, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
