"""Per-hook cost of the probes on the engine thread (ns per hooked call, wrapper + captures + record), and the
flusher's cost per record (JSON, off the engine thread but under the GIL), for the built-in vLLM and SGLang hooks on
stand-in objects shaped like a decode step at concurrency 16 (SchedulerOutput, ModelRunnerOutput, ScheduleBatch).
Runs the probes package of a git revision ("before") and of the working tree ("after") side by side, each in its
own interpreter. usage: python benchmarks/bench_probe_cost.py [--before REV] [--batch 16] [--calls 20000]"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import types
from enum import Enum
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NS = types.SimpleNamespace

# (framework, qualname, role, captures, flags): the built-in hooks of atlas/runtime/defaults.py that fire each step
HOOKS = {
    "vllm": [
        ("Scheduler.schedule", "plan", ["num_scheduled_tokens", "num_computed_tokens", "batch_mode", "batch_size",
                                        "request_ids", "preempted", "draft_tokens", "kv_blocks"], ["step"]),
        ("KVCacheManager.allocate_slots", "allocate", ["kv_blocks", "preempted"], ["aggregate"]),
        ("GPUModelRunner.execute_model", "execute", ["num_scheduled_tokens", "batch_size"], ["step"]),
        ("GPUModelRunner._determine_batch_execution_and_padding", "execute", ["cuda_graph", "num_scheduled_tokens"],
         []),
        ("GPUModelRunner.sample_tokens", "execute", [], []),
        ("Scheduler.update_from_output", "commit", ["request_ids", "num_computed_tokens", "draft_tokens",
                                                    "accepted_tokens", "batch_size"], []),
    ],
    "sglang": [
        ("Scheduler.get_next_batch_to_run", "plan", ["batch_mode", "batch_size", "request_ids",
                                                     "num_scheduled_tokens", "num_computed_tokens",
                                                     "prefix_hit_tokens", "new_token_ratio", "draft_tokens"],
         ["step", "skip_none"]),
        ("ScheduleBatch.prepare_for_decode", "allocate", ["kv_blocks", "batch_size"], []),
        ("Scheduler.run_batch", "execute", ["batch_mode", "batch_size", "cuda_graph"], []),
        ("Scheduler.process_batch_result", "commit", ["accepted_tokens", "request_ids"], []),
        ("RadixCache.match_prefix", "allocate", ["prefix_hit_tokens"], ["aggregate"]),
    ],
}


class Mode(Enum):
    DECODE = 1
    FULL = 2


def vllm_objects(batch: int):
    rids = [f"req-{i}" for i in range(batch)]
    so = NS(num_scheduled_tokens={r: 1 for r in rids}, scheduled_new_reqs=[],
            scheduled_cached_reqs=NS(req_ids=rids, num_computed_tokens=[300] * batch, new_block_ids=[None] * batch),
            scheduled_spec_decode_tokens={}, preempted_req_ids=set(), total_num_scheduled_tokens=batch)
    requests = {r: NS(num_prompt_tokens=256, num_computed_tokens=300, request_id=r) for r in rids}
    mro = NS(req_ids=rids, sampled_token_ids=[[7] for _ in rids])
    emitted = {0: NS(outputs=[NS(request_id=r, new_token_ids=[7], finish_reason=None) for r in rids])}
    blocks = NS(blocks=([],))

    class Scheduler:
        def __init__(self):
            self.requests = requests

        def schedule(self):
            return so

        def update_from_output(self, scheduler_output, model_runner_output):
            return emitted

    class KVCacheManager:
        def allocate_slots(self, request, num_new_tokens):
            return blocks

    class GPUModelRunner:
        def execute_model(self, scheduler_output):
            return None

        def _determine_batch_execution_and_padding(self, num_tokens):
            return Mode.FULL, None

        def sample_tokens(self, grammar_output):
            return mro

    sched, kv, runner = Scheduler(), KVCacheManager(), GPUModelRunner()
    req = requests[rids[0]]
    calls = {"Scheduler.schedule": lambda: sched.schedule(),
             "KVCacheManager.allocate_slots": lambda: kv.allocate_slots(req, 1),
             "GPUModelRunner.execute_model": lambda: runner.execute_model(so),
             "GPUModelRunner._determine_batch_execution_and_padding":
                 lambda: runner._determine_batch_execution_and_padding(batch),
             "GPUModelRunner.sample_tokens": lambda: runner.sample_tokens(None),
             "Scheduler.update_from_output": lambda: sched.update_from_output(so, mro)}
    return {"Scheduler": Scheduler, "KVCacheManager": KVCacheManager, "GPUModelRunner": GPUModelRunner}, calls


def sglang_objects(batch: int):
    class Req:
        def __init__(self, i):
            self.rid = f"req-{i}"
            self.origin_input_ids = list(range(256))
            self.output_ids = list(range(40))
            self.prefix_indices = list(range(256))
            self.extend_input_len = 0
            self.fill_ids = self.origin_input_ids

        def finished(self):
            return False

    class ScheduleBatch:
        def __init__(self):
            self.reqs = [Req(i) for i in range(batch)]
            self.forward_mode = Mode.DECODE
            self.spec_num_draft_tokens = 0

        def prepare_for_decode(self):
            return None

    the_batch, result = ScheduleBatch(), NS(can_run_cuda_graph=True, num_correct_drafts=0)
    match = NS(device_indices=list(range(64)))

    class Scheduler:
        new_token_ratio = 0.4

        def get_next_batch_to_run(self):
            return the_batch

        def run_batch(self, batch):
            return result

        def process_batch_result(self, batch, result):
            return None

    class RadixCache:
        def match_prefix(self, key):
            return match

    sched, cache = Scheduler(), RadixCache()
    calls = {"Scheduler.get_next_batch_to_run": lambda: sched.get_next_batch_to_run(),
             "ScheduleBatch.prepare_for_decode": lambda: the_batch.prepare_for_decode(),
             "Scheduler.run_batch": lambda: sched.run_batch(the_batch),
             "Scheduler.process_batch_result": lambda: sched.process_batch_result(the_batch, result),
             "RadixCache.match_prefix": lambda: cache.match_prefix(None)}
    return {"Scheduler": Scheduler, "ScheduleBatch": ScheduleBatch, "RadixCache": RadixCache}, calls


def per_call_ns(fn, calls: int) -> float:
    best = float("inf")
    for _ in range(5):  # best of 5: the least disturbed by the other processes sharing the cores
        t0 = time.perf_counter_ns()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter_ns() - t0) / calls)
    return best


def child(framework: str, batch: int, calls: int) -> dict:
    """In a fresh interpreter whose `probes` is the one under test: install, then time each hook."""
    from probes import runtime

    classes, call_table = (vllm_objects if framework == "vllm" else sglang_objects)(batch)
    module = types.ModuleType("atlas_bench_engine")
    module.__dict__.update(classes)
    sys.modules[module.__name__] = module
    bare = {q: per_call_ns(fn, calls) for q, fn in call_table.items()}  # before any wrapper goes on
    out = tempfile.mkdtemp(prefix="atlas-probe-cost-")
    spec = {"framework": framework, "package": "atlas_bench_engine", "package_root": "", "commit": "0" * 40,
            "engine_version": "0", "out": out, "blobs": {}, "flush_interval_s": 3600.0, "capacity": 10_000_000,
            "gpu_sample_every": 16, "hooks": [
                {"symbol": f"atlas_bench_engine.{q}", "module": module.__name__, "qualname": q, "role": role,
                 "path": "atlas_bench_engine.py", "line": 1, "end_line": 2, "capture": caps,
                 **{flag: True for flag in flags}} for q, role, caps, flags in HOOKS[framework]]}
    os.environ.pop("ATLAS_TRACE_DIR", None)
    probe = runtime.install(spec, "0")
    rows = {}
    for qualname, fn in call_table.items():
        probe.is_active = False
        passthrough = per_call_ns(fn, calls)
        probe.is_active = True
        before = probe.shard.num_events
        on = per_call_ns(fn, calls)
        n_records = max(probe.shard.num_events - before, 1)
        t0 = time.perf_counter_ns()
        probe.shard.flush()
        flush_ns = (time.perf_counter_ns() - t0) / n_records
        rows[qualname] = {"bare_ns": round(bare[qualname]), "passthrough_ns": round(passthrough - bare[qualname]),
                          "on_ns": round(on - bare[qualname]), "records_per_call": round(n_records / (calls * 5), 3),
                          "flush_ns_per_record": round(flush_ns)}
    errors = {h.symbol: h.last_error for h in probe.hooks if h.last_error}
    return {"framework": framework, "hooks": rows, "errors": errors, "stall": flush_stall(probe, call_table)}


def engine_loop(seconds: float) -> list[float]:
    """A stand-in engine loop: wait for the 'GPU' (a GIL-free sleep of 200 us), then ~20 us of Python; the
    durations of its iterations in microseconds."""
    laps, end = [], time.perf_counter() + seconds
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        time.sleep(0.0002)
        sum(i * i for i in range(60))
        laps.append((time.perf_counter() - t0) * 1e6)
    return laps


def flush_stall(probe, call_table: dict, steps: int = 300) -> dict:
    """How long the engine loop waits for the GIL while the flusher writes `steps` steps of records: its p99 and
    longest iteration, alone and beside a flush (the flusher's share of the GIL comes back in switch intervals of
    5 ms unless it hands the GIL back itself)."""
    import threading

    alone = engine_loop(0.3)
    for _ in range(steps):
        for fn in call_table.values():
            fn()
    flusher = threading.Thread(target=probe.shard.flush)
    t0 = time.perf_counter()
    flusher.start()
    beside = []
    while flusher.is_alive():
        beside += engine_loop(0.01)
    flush_ms = (time.perf_counter() - t0) * 1e3
    pct = lambda laps, q: round(sorted(laps)[min(int(len(laps) * q), len(laps) - 1)])  # noqa: E731
    return {"records": steps * len(call_table), "flush_ms": round(flush_ms, 1), "alone_p99_us": pct(alone, 0.99),
            "beside_p99_us": pct(beside, 0.99), "beside_max_us": round(max(beside)), "laps_beside": len(beside)}


def run_child(probes_root: Path, framework: str, batch: int, calls: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(probes_root))
    done = subprocess.run([sys.executable, __file__, "--child", framework, "--batch", str(batch), "--calls",
                           str(calls)], env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"benchmark child failed ({probes_root}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def checkout_probes(rev: str) -> Path:
    """probes/ as of `rev`, extracted into a temporary folder (the working tree is left alone)."""
    folder = Path(tempfile.mkdtemp(prefix=f"atlas-probes-{rev[:8]}-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "probes"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default="17b7ca8", help="git revision whose probes are 'before' ('' to skip)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--child")
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(a.child, a.batch, a.calls)))
        return
    trees = ([("before " + a.before, checkout_probes(a.before))] if a.before else []) + [("after", ROOT)]
    report = {}
    for framework in HOOKS:
        for label, root in trees:
            result = run_child(root, framework, a.batch, a.calls)
            report.setdefault(framework, {})[label] = result
            if result["errors"]:
                print(f"  {framework} {label}: hook errors {result['errors']}", file=sys.stderr)
    print(f"per hooked call at batch {a.batch}, ns over the bare call (best of 5 x {a.calls} calls); flush = "
          "the flusher's JSON per record (off the engine thread, under the GIL)")
    for framework, by_tree in report.items():
        labels = list(by_tree)
        print(f"\n{framework}: " + " | ".join(f"{lab}: pass-through / on / flush per record" for lab in labels))
        totals = {lab: [0, 0, 0] for lab in labels}
        for qualname in HOOKS_ORDER(framework):
            cells = []
            for lab in labels:
                row = by_tree[lab]["hooks"][qualname]
                flush_per_call = row["flush_ns_per_record"] * row["records_per_call"]
                totals[lab][0] += row["passthrough_ns"]
                totals[lab][1] += row["on_ns"]
                totals[lab][2] += flush_per_call
                cells.append(f"{row['passthrough_ns']:>6} / {row['on_ns']:>6} / {row['flush_ns_per_record']:>6}")
            print(f"  {qualname:<56} " + " | ".join(cells))
        print(f"  {'one step (each hook once), ns':<56} " + " | ".join(
            f"{t[0]:>6} / {t[1]:>6} / {round(t[2]):>6}" for t in totals.values()))
        for lab in labels:
            st = by_tree[lab]["stall"]
            print(f"  engine-loop iteration while the flusher writes {st['records']} records ({lab}): p99 "
                  f"{st['beside_p99_us']} us, longest {st['beside_max_us']} us (alone: p99 {st['alone_p99_us']} us; "
                  f"flush took {st['flush_ms']} ms)")
    print(json.dumps(report))


def HOOKS_ORDER(framework: str) -> list[str]:  # noqa: N802 (a table lookup)
    return [q for q, *_ in HOOKS[framework]]


if __name__ == "__main__":
    main()
