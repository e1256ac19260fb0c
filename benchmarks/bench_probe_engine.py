"""What the probes cost inside a real engine: vLLM on this machine's CPU (the `cpu` pin set, model runner V1),
steady decoding, rounds duty-cycled on/off every N engine steps; prints each hook's own time per call (the wrapper's
time less the engine's call, measured by the wrappers themselves), its calls per step, and the on/off figures with
the probes' own time per step. `bench_probe_cost.py` times the wrappers in a tight loop on stand-in objects, warm in
every cache; in an engine each call costs 3-5x that (results/README.md, runs 9-12), and the H200 host's engine thread
another ~1.4x this machine's.
usage: python benchmarks/bench_probe_engine.py [--python ENGINE_PYTHON] [--concurrency 16] [--output-len 400]
       [--rounds 3] [--duty 50] [--control 'skip=GPUModelRunner.sample_tokens'] [--out DIR]"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from atlas.env import settings as load_settings
from atlas.runtime import TraceOptions, run_trace


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--python",
        default=os.environ.get("ATLAS_ENGINE_PYTHON") or str(Path.home() / ".cache/atlas/engine-cpu/bin/python"),
    )
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--input-len", type=int, default=64)
    ap.add_argument("--output-len", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duty", type=int, default=50)
    ap.add_argument("--control", default="", help="more control options for every round (probes.control.parse_control)")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    out = a.out or Path(tempfile.mkdtemp(prefix="atlas-probe-engine-"))
    opts = TraceOptions(
        "vllm",
        out,
        python=a.python,
        hooks="builtin",
        single_process=True,
        diagnostics=True,
        rounds=(f"on duty={a.duty} {a.control}".strip(),) * a.rounds,
        workload_params={
            "n": a.concurrency,
            "input_len": a.input_len,
            "output_len": a.output_len,
            "concurrency": a.concurrency,
        },
    )
    s = run_trace(opts, load_settings())
    steps = sum(s["steps_by_batch_mode"].values())
    print(
        f"vLLM {s['ref']} on this CPU, {a.concurrency} requests of {a.input_len} -> {a.output_len} tokens, "
        f"{a.rounds} rounds duty-cycled every {a.duty} steps ({steps} recorded steps; trace in {out})"
    )
    total = 0.0
    for symbol, h in sorted(s["hooks"].items(), key=lambda kv: -kv[1]["own_us_per_call"] * kv[1]["fired"]):
        if h["fired"]:
            per_step = h["own_us_per_call"] * h["fired"] / max(steps, 1)
            total += per_step
            name = ".".join(symbol.rsplit(".", 2)[-2:])
            print(
                f"  {name:58s} own {h['own_us_per_call']:6.2f} us "
                f"a call, {h['fired'] / max(steps, 1):5.2f} calls a step, {per_step:6.2f} us a step"
            )
    print(f"  all hooks: {total:.1f} us a step")
    for state, d in (s.get("duty") or {}).items():
        print(
            f"  {state}: on/off median {d['median']} [{d['ci95'][0]}, {d['ci95'][1]}], pooled {d['pooled']} "
            f"({d['pairs']} pairs); own {d.get('own_us_per_step')} us of a {d.get('step_us')}-us step"
        )


if __name__ == "__main__":
    main()
