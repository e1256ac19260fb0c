"""What the probes cost per engine step when the CPU's caches are cold, as they are in an engine: between two hooked
calls of a step the engine's own work (a model's forward, the scheduler's loops) evicts the probe's code and data,
and each hooked call costs 3-5x what it does in bench_probe_cost.py's tight loop (results/README.md, runs 9-12 and
session 5). Here each hooked method of the vLLM stand-ins (probe_standins.py) does the engine's work first: a 4 MiB
copy and a Python loop over scattered objects, so that the caches are cold when the call returns (as after a
forward) and when the next one begins; printed per hook: the wrappers' own time (their own_ns, as the engine bench
reads it) and the whole added time seen from outside the call (the median call on less the median call absent, in
alternating turns of 10 steps: the wrapper's entry, argument passing and return included; noisier). The probes of
a git revision ("before") and of the working tree ("after") run in alternating fresh interpreters; medians.
usage: python benchmarks/bench_probe_cold.py [--before REV] [--repeat 5] [--steps 2000]"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

from bench_probe_cost import HOOKS, checkout_probes
from probe_standins import vllm_objects

ROOT = Path(__file__).resolve().parents[1]


def child(steps: int) -> dict:
    """In a fresh interpreter whose `probes` is the one under test: per hook, own and outside us per step."""
    from probes import runtime

    classes, calls, _ = vllm_objects(16, work=evict_caches())
    module = types.ModuleType("atlas_bench_engine")
    module.__dict__.update(classes)
    sys.modules[module.__name__] = module
    hooks = [
        {
            "symbol": f"atlas_bench_engine.{q}",
            "module": module.__name__,
            "qualname": q,
            "role": role,
            "path": "atlas_bench_engine.py",
            "line": 1,
            "end_line": 2,
            "capture": caps,
            **dict.fromkeys(flags, True),
        }
        for q, role, caps, flags in HOOKS["vllm"]
    ]
    spec = {
        "framework": "vllm",
        "package": module.__name__,
        "package_root": "",
        "commit": "0" * 40,
        "engine_version": "0",
        "out": tempfile.mkdtemp(prefix="atlas-probe-cold-"),
        "blobs": {},
        "flush_interval_s": 0.5,
        "capacity": 10_000_000,
        "gpu_sample_every": 64,
        "hooks": hooks,
    }
    os.environ.pop("ATLAS_TRACE_DIR", None)
    probe = runtime.install(spec, "0")
    names = [q for q, *_ in HOOKS["vllm"]]
    step = cold_step([calls[q] for q in names])
    for _ in range(200):
        step([[] for _ in names])
    for h in probe.hooks:
        h.own_ns = 0
    on, absent = [[] for _ in names], [[] for _ in names]
    for _ in range(steps // 20):
        probe.set_state("on")
        for _ in range(10):
            step(on)
        probe.set_state("absent")
        for _ in range(10):
            step(absent)
    n = steps // 20 * 10
    own = {h.entry["qualname"]: h.own_ns / n / 1e3 for h in probe.hooks}
    median = statistics.median
    return {
        "own": own,
        "outside": {q: (median(a) - median(b)) / 1e3 for q, a, b in zip(names, on, absent)},
        "errors": {h.symbol: h.last_error for h in probe.hooks if h.last_error},
    }


def evict_caches():
    """The engine's work inside a hooked call, as far as the probe sees it: its code and data leave the caches."""
    dest, src = bytearray(4 << 20), bytes(4 << 20)
    scattered = [{"a": i, "b": str(i)} for i in range(20000)]

    def work() -> None:
        dest[:] = src
        total = 0
        for d in scattered[::7]:
            total += d["a"]

    return work


def cold_step(calls: list):
    """A step: the calls in turn, each one's time seen from outside appended to `spent[i]` (the work inside
    varies by more than the probe costs: the outside figures are medians of on less medians of absent)."""
    clock = time.perf_counter_ns

    def step(spent: list) -> None:
        for i, call in enumerate(calls):
            t0 = clock()
            call()
            spent[i].append(clock() - t0)

    return step


def run_child(probes_root: Path, steps: int) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join((str(probes_root), str(Path(__file__).parent))))
    done = subprocess.run(
        [sys.executable, __file__, "--child", "--steps", str(steps)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        raise SystemExit(f"benchmark child failed ({probes_root}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default="02d940b", help="git revision whose probes are 'before' ('' to skip)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--child", action="store_true")
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(a.steps)))
        return
    trees = ([(f"before {a.before}", checkout_probes(a.before))] if a.before else []) + [("after", ROOT)]
    runs: dict = {label: [] for label, _ in trees}
    for _ in range(a.repeat):
        for label, root in trees:
            runs[label].append(run_child(root, a.steps))
    print(
        f"vLLM stand-ins, decode step at batch 16, caches evicted inside every hooked call; us per step, median "
        f"of {a.repeat} interpreters per tree taken in turns (each run's total in brackets)"
    )
    for label, results in runs.items():
        if results[0]["errors"]:
            print(f"  {label}: hook errors {results[0]['errors']}", file=sys.stderr)
        print(f"\n{label}: {'own':>8} {'outside':>8}")
        for q, *_ in HOOKS["vllm"]:
            print(
                f"  {q:56s} {statistics.median(r['own'][q] for r in results):8.2f} "
                f"{statistics.median(r['outside'][q] for r in results):8.2f}"
            )
        for kind in ("own", "outside"):
            totals = [sum(r[kind].values()) for r in results]
            print(
                f"  {kind + ', all hooks':56s} {statistics.median(totals):8.2f}  "
                f"[{', '.join(f'{t:.1f}' for t in totals)}]"
            )


if __name__ == "__main__":
    main()
