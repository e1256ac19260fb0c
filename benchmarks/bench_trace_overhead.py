"""Probe overhead, measured side by side in one engine run: timed rounds rotate the probe state (the probes poll a
control file: 'absent' puts the engine's own functions back, the probe-free baseline; 'off' leaves the wrappers
passing straight through; 'on' records), same workload each round; prints the median output tok/s of each state
and their ratios to the baseline.
usage: python benchmarks/bench_trace_overhead.py [--framework vllm] [--device cpu] [--concurrency 1,4] [--pairs 3]
       [--single-process] [--python ENGINE_PYTHON] [--out DIR]"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from atlas.env import settings as load_settings
from atlas.runtime import TraceOptions, run_trace


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--framework", default="vllm")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--concurrency", default="1,4")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--requests", type=int, default=8)
    ap.add_argument("--input-len", type=int, default=64)
    ap.add_argument("--output-len", type=int, default=32)
    ap.add_argument("--single-process", action="store_true")
    ap.add_argument("--python")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    out = a.out or Path(tempfile.mkdtemp(prefix="atlas-overhead-"))
    rows = []
    for c in [int(x) for x in a.concurrency.split(",")]:
        opts = TraceOptions(
            a.framework,
            out / f"c{c}",
            device=a.device,
            python=a.python,
            hooks="builtin",
            rounds=("absent", "on", "off", "off", "on", "absent") * (a.pairs // 2)
            + ("absent", "on", "off") * (a.pairs % 2),
            single_process=a.single_process,
            workload_params={"n": a.requests, "input_len": a.input_len, "output_len": a.output_len, "concurrency": c},
        )
        s = run_trace(opts, load_settings())
        t = s["throughput"]
        rows.append(
            {
                "concurrency": c,
                **{
                    k: t.get(k)
                    for k in (
                        "median_absent",
                        "median_off",
                        "median_on",
                        "on_over_absent",
                        "off_over_absent",
                        "on_over_off",
                    )
                },
                "rounds": [(r["probes"], r["out_tok_s"]) for r in t["rounds"]],
                "events": s["num_events"],
                "dropped": s["num_dropped"],
            }
        )
        print(
            f"{a.framework} {a.device} {'1-proc' if a.single_process else 'multi-proc'} concurrency {c}: "
            f"absent {t['median_absent']} / off {t['median_off']} / on {t['median_on']} tok/s; on/absent "
            f"{t.get('on_over_absent')}, off/absent {t.get('off_over_absent')} (median of {a.pairs}); "
            f"rounds {rows[-1]['rounds']}",
            flush=True,
        )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
