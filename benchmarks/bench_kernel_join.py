"""The kernel join on recorded names (tests/runtime/data/kernel_names.json, which says where each name comes from):
per framework, the share of names joined to a static kernel node of the default pins or to a named library, the
names left unknown, the names several nodes share, and the join's time per distinct name. With a trace folder
(`atlas trace --kernels`), the same for every kernel the probe recorded, weighted by GPU time. Run from the project
root with the default graphs built (`atlas index`):
    python benchmarks/bench_kernel_join.py [--trace TRACE_DIR]"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from atlas.env import settings as load_settings
from atlas.graph import load_index
from atlas.runtime.kernels import KernelJoin, KernelNodes, Origin

DATA = Path(__file__).resolve().parents[1] / "tests" / "runtime" / "data" / "kernel_names.json"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trace", type=Path, help="a trace folder with kernel records (summary.json 'kernels')")
    a = ap.parse_args()
    settings = load_settings()
    data = json.loads(DATA.read_text())
    for framework in ("vllm", "sglang"):
        nodes = KernelNodes.from_symbols(load_index(settings, framework).symbols.values())
        join = KernelJoin(nodes, data["triton_sources"].get(framework, {}))
        rows = [r for r in data["names"] if r["framework"] == framework]
        start = time.perf_counter()
        matches = [join(r["name"]) for r in rows]
        took = (time.perf_counter() - start) / len(rows)
        origins = Counter(m.origin for m in matches)
        joined = len(rows) - origins[Origin.UNKNOWN]
        print(
            f"{framework}: {joined}/{len(rows)} names joined = {100 * joined / len(rows):.1f}% "
            f"(tree {origins[Origin.TREE]}, library {origins[Origin.LIBRARY]}, unknown {origins[Origin.UNKNOWN]}); "
            f"{len(nodes.nodes)} kernel nodes at the pin; {took * 1e6:.0f} us per distinct name"
        )
        for m in matches:
            if m.origin == Origin.UNKNOWN:
                print(f"  unknown: {m.qualname}")
            elif m.candidates:
                print(f"  {len(m.candidates)} candidates ({m.how}): {m.static_id}")
        libraries = Counter(m.library for m in matches if m.library)
        print("  libraries: " + ", ".join(f"{lib} {n}" for lib, n in sorted(libraries.items())))
    if a.trace:
        summary = json.loads((a.trace / "summary.json").read_text())
        kernels = summary.get("kernels") or {}
        print(f"trace {a.trace}: {json.dumps(kernels.get('share'), sort_keys=True)}")
        for row in kernels.get("unattributed", [])[:20]:
            print(f"  unattributed: {row['name'][:100]}  {row['gpu_us']} us")


if __name__ == "__main__":
    main()
