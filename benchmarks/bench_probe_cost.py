"""What the probes cost per engine step: CPU time on the engine thread (wrappers, captures, rows) and on the flusher
thread (writing those rows; a thread of the engine process, so under the same GIL), for the built-in vLLM and SGLang
hooks on stand-in objects shaped like a decode step at batch 16 (SchedulerOutput, ModelRunnerOutput, ScheduleBatch),
with the probes off and on; the engine-loop stall beside a flush; then the same per hooked call. Runs the probes
package of a git revision ("before") and of the working tree ("after") side by side, each in its own interpreter.
usage: python benchmarks/bench_probe_cost.py [--before REV] [--batch 16] [--calls 5000] [--steps 250] [--repeat 3]"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import types
from pathlib import Path

from probe_standins import sglang_objects, vllm_objects

ROOT = Path(__file__).resolve().parents[1]

# (framework, qualname, role, captures, flags): the built-in hooks of atlas/runtime/defaults.py that fire each step
HOOKS = {
    "vllm": [
        (
            "Scheduler.schedule",
            "plan",
            [
                "num_scheduled_tokens",
                "num_computed_tokens",
                "batch_mode",
                "batch_size",
                "request_ids",
                "preempted",
                "draft_tokens",
                "kv_blocks",
            ],
            ["step"],
        ),
        ("BlockPool.get_new_blocks", "allocate", ["kv_blocks"], ["aggregate"]),
        ("GPUModelRunner.execute_model", "execute", ["num_scheduled_tokens", "batch_size"], ["step"]),
        (
            "GPUModelRunner._determine_batch_execution_and_padding",
            "execute",
            ["cuda_graph", "num_scheduled_tokens"],
            [],
        ),
        ("GPUModelRunner.sample_tokens", "execute", [], []),
        (
            "Scheduler.update_from_output",
            "commit",
            ["request_ids", "num_computed_tokens", "draft_tokens", "accepted_tokens", "batch_size"],
            [],
        ),
    ],
    "sglang": [
        (
            "Scheduler.get_next_batch_to_run",
            "plan",
            [
                "batch_mode",
                "batch_size",
                "request_ids",
                "num_scheduled_tokens",
                "num_computed_tokens",
                "prefix_hit_tokens",
                "new_token_ratio",
                "draft_tokens",
            ],
            ["step", "skip_none"],
        ),
        ("ScheduleBatch.prepare_for_decode", "allocate", ["kv_blocks", "batch_size"], []),
        ("Scheduler.run_batch", "execute", ["batch_mode", "batch_size", "cuda_graph"], []),
        ("Scheduler.process_batch_result", "commit", ["accepted_tokens", "request_ids"], []),
        ("RadixCache.match_prefix", "allocate", ["prefix_hit_tokens"], ["aggregate"]),
    ],
}


def per_call_ns(fn, calls: int) -> float:
    """CPU ns of one call on this thread (the flusher's work is its own thread's), best of 5."""
    best = float("inf")
    for _ in range(5):
        t0 = time.thread_time_ns()
        for _ in range(calls):
            fn()
        best = min(best, (time.thread_time_ns() - t0) / calls)
    return best


def thread_cpu_ns(fn) -> int:
    """CPU time `fn` takes in a thread of its own, as the flusher runs (other processes' load does not count)."""
    spent = []

    def run():
        t0 = time.thread_time_ns()
        fn()
        spent.append(time.thread_time_ns() - t0)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return spent[0]


def child(framework: str, batch: int, calls: int, steps: int) -> dict:
    """In a fresh interpreter whose `probes` is the one under test: install, then time each hook and a step."""
    from probes import runtime

    classes, call_table, step = (vllm_objects if framework == "vllm" else sglang_objects)(batch)
    module = types.ModuleType("atlas_bench_engine")
    module.__dict__.update(classes)
    sys.modules[module.__name__] = module
    bare = {q: per_call_ns(fn, calls) for q, fn in call_table.items()}  # before any wrapper goes on
    out = tempfile.mkdtemp(prefix="atlas-probe-cost-")
    spec = {
        "framework": framework,
        "package": "atlas_bench_engine",
        "package_root": "",
        "commit": "0" * 40,
        "engine_version": "0",
        "out": out,
        "blobs": {},
        "flush_interval_s": 0.5,
        "capacity": 10_000_000,
        "gpu_sample_every": 16,
        "hooks": [
            {
                "symbol": f"atlas_bench_engine.{q}",
                "module": module.__name__,
                "qualname": q,
                "role": role,
                "path": "atlas_bench_engine.py",
                "line": 1,
                "end_line": 2,
                "capture": caps,
                **{flag: True for flag in flags},
            }
            for q, role, caps, flags in HOOKS[framework]
        ],
    }
    os.environ.pop("ATLAS_TRACE_DIR", None)
    probe = runtime.install(spec, "0")
    rows = {}
    for qualname, fn in call_table.items():
        probe.is_active = False
        passthrough = per_call_ns(fn, calls)
        probe.is_active = True
        probe.shard.flush()
        before, flusher = probe.shard.num_events + len(probe.shard.buffer), flusher_cpu_ns(probe.shard)
        on = per_call_ns(fn, calls)
        n_records = max(probe.shard.num_events + len(probe.shard.buffer) - before, 1)
        flush_ns = flusher_work_ns(probe.shard, flusher) / n_records
        rows[qualname] = {
            "bare_ns": round(bare[qualname]),
            "passthrough_ns": round(passthrough - bare[qualname]),
            "on_ns": round(on - bare[qualname]),
            "records_per_call": round(n_records / (calls * 5), 3),
            "flush_ns_per_record": round(flush_ns),
        }
    result = {"framework": framework, "hooks": rows, "step": per_step(probe, step, steps)}
    result["stall"] = flush_stall(probe, step, steps)
    result["errors"] = {h.symbol: h.last_error for h in probe.hooks if h.last_error}
    return result


def per_step(probe, step, steps: int, rounds: int = 7) -> dict:
    """CPU ns per decode step with the probes absent (wrappers removed), off and on: the engine thread's, and the
    flusher thread's over the same run (its own flushes on its own schedule, then the last flush); on again with
    the garbage collector off, for its share (rows held until a flush are objects it scans); best of `rounds`.
    Then the flusher's CPU per second with the probes off and the engine idle (its wake-ups)."""
    shard = probe.shard
    best: dict = {}
    for _ in range(rounds):
        for state in ("absent", "off", "on", "on without gc"):
            probe.set_state(state.split()[0])
            shard.flush()
            events, start = shard.num_events, os.path.getsize(shard.path)
            if state == "on without gc":
                gc.disable()
            flusher, engine = flusher_cpu_ns(shard), time.thread_time_ns()
            for _ in range(steps):
                step()
                time.sleep(0)  # the GIL handed back once a step, as an engine does while the GPU works
            engine = (time.thread_time_ns() - engine) / steps
            gc.enable()
            flusher = flusher_work_ns(shard, flusher) / steps
            best[state] = min(best.get(state, float("inf")), engine)
            best[f"{state}_flusher"] = min(best.get(f"{state}_flusher", float("inf")), flusher)
            if state == "on":
                records = (shard.num_events - events) / steps
                size = (os.path.getsize(shard.path) - start) / steps
    probe.set_state("off")
    shard.flush()
    flusher = flusher_cpu_ns(shard)
    time.sleep(2.0)
    idle = (flusher_cpu_ns(shard) - flusher) / 2.0
    probe.set_state("on")
    return {
        "absent_ns": round(best["absent"]),
        "off_ns": round(best["off"] - best["absent"]),
        "engine_ns": round(best["on"] - best["absent"]),
        "gc_ns": round(best["on"] - best["on without gc"]),
        "flusher_ns": round(best["on_flusher"]),
        "total_ns": round(best["on"] - best["absent"] + best["on_flusher"]),
        "records": round(records, 2),
        "bytes": round(size),
        "off_flusher_per_s_ns": round(idle),
        "steps": steps,
    }


def flusher_cpu_ns(shard) -> int:
    """CPU time of the shard's flusher thread so far."""
    return time.clock_gettime_ns(time.pthread_getcpuclockid(shard._thread.ident))


def flusher_work_ns(shard, since: int) -> int:
    """The flusher thread's CPU since `since` plus a last flush of what is left (in a thread of its own), once
    any flush the flusher thread had begun is over."""
    last = thread_cpu_ns(shard.flush)
    with shard._lock:
        return flusher_cpu_ns(shard) - since + last


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


def flush_stall(probe, step, steps: int, flushes: int = 5) -> dict:
    """How long the engine loop waits for the GIL while the flusher writes `steps` steps of records: its p99 and
    longest iteration over `flushes` flushes, and alone (a flusher that held the GIL through a whole flush would
    stall the loop for switch intervals of 5 ms)."""
    alone, beside, records, flush_ms = engine_loop(0.3), [], 0, []
    for _ in range(flushes):
        before = probe.shard.num_events + len(probe.shard.buffer)
        for _ in range(steps):
            step()
        records = probe.shard.num_events + len(probe.shard.buffer) - before
        flusher = threading.Thread(target=probe.shard.flush)
        t0 = time.perf_counter()
        flusher.start()
        beside += engine_loop(0.002)  # at least a few laps, however quick the flush
        while flusher.is_alive():
            beside += engine_loop(0.005)
        flush_ms.append((time.perf_counter() - t0) * 1e3)
    pct = lambda laps, q: round(sorted(laps)[min(int(len(laps) * q), len(laps) - 1)])  # noqa: E731
    return {
        "records": records,
        "flush_ms": round(sorted(flush_ms)[len(flush_ms) // 2], 1),
        "alone_p99_us": pct(alone, 0.99),
        "beside_p99_us": pct(beside, 0.99),
        "beside_max_us": round(max(beside)),
        "laps_beside": len(beside),
    }


def run_child(probes_root: Path, framework: str, batch: int, calls: int, steps: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(probes_root))
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            framework,
            "--batch",
            str(batch),
            "--calls",
            str(calls),
            "--steps",
            str(steps),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
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
    ap.add_argument("--before", default="56b028d", help="git revision whose probes are 'before' ('' to skip)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--steps", type=int, default=250, help="steps per measured run (0.5 s of 2 ms steps)")
    ap.add_argument(
        "--repeat", type=int, default=3, help="interpreters per tree, taking turns; the least disturbed kept"
    )
    ap.add_argument("--child")
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(a.child, a.batch, a.calls, a.steps)))
        return
    trees = ([("before " + a.before, checkout_probes(a.before))] if a.before else []) + [("after", ROOT)]
    report, totals = {}, {}
    for framework in HOOKS:
        for _ in range(a.repeat):
            for label, root in trees:
                result = run_child(root, framework, a.batch, a.calls, a.steps)
                if result["errors"]:
                    print(f"  {framework} {label}: hook errors {result['errors']}", file=sys.stderr)
                totals.setdefault((framework, label), []).append(result["step"]["total_ns"])
                kept = report.setdefault(framework, {}).get(label)
                if kept is None or result["step"]["total_ns"] < kept["step"]["total_ns"]:
                    report[framework][label] = result
        for label, _ in trees:
            report[framework][label]["step"]["totals_us"] = [round(t / 1e3, 1) for t in totals[(framework, label)]]
    print(
        f"decode step at batch {a.batch}, CPU us per step over the probe-free step (best of 7 x {a.steps} steps in "
        f"each of {a.repeat} interpreters per tree, taking turns; the interpreter with the lowest total shown; "
        "engine = the engine thread, flusher = the flusher thread on its own schedule, both under one GIL)"
    )
    for framework, by_tree in report.items():
        print_step(framework, by_tree)
    print(
        f"\nper hooked call, CPU ns over the bare call (best of 5 x {a.calls} calls of one hook in a row, so more rows "
        "wait for the GIL-starved flusher than in a step: the step figures above are the ones to go by); flush = the "
        "flusher thread's CPU per record ('-': an aggregated hook, one record per step)"
    )
    for framework, by_tree in report.items():
        print_hooks(framework, by_tree)
    print(json.dumps(report))


def print_step(framework: str, by_tree: dict) -> None:
    labels = list(by_tree)
    print(f"\n{framework} (one step: {STEP_NOTE[framework]})")
    print(f"  {'':<34}" + "".join(f"{lab:>18}" for lab in labels))
    figures = [
        ("off: wrappers passing through", "off_ns", 1e3),
        ("on: engine thread", "engine_ns", 1e3),
        ("  of which garbage collection", "gc_ns", 1e3),
        ("on: flusher", "flusher_ns", 1e3),
        ("on: total", "total_ns", 1e3),
        ("records per step", "records", 1),
        ("shard bytes per step", "bytes", 1),
        ("flusher, probes off, us CPU per s", "off_flusher_per_s_ns", 1e3),
    ]
    for name, key, scale in figures:
        print(f"  {name:<34}" + "".join(f"{by_tree[lab]['step'][key] / scale:>18.1f}" for lab in labels))
    print(
        f"  {'probe-free step on this machine':<34}"
        + "".join(f"{by_tree[lab]['step']['absent_ns'] / 1e3:>18.1f}" for lab in labels)
    )
    print(
        "  on: total in each interpreter, us: "
        + " | ".join(f"{lab} {' / '.join(str(t) for t in by_tree[lab]['step']['totals_us'])}" for lab in labels)
    )
    if len(labels) == 2:
        old, new = (by_tree[lab]["step"]["total_ns"] for lab in labels)
        print(
            f"  total per step: {old / 1e3:.1f} -> {new / 1e3:.1f} us ({old / max(new, 1):.1f}x cheaper); "
            f"share of a 2.3 ms H200 decode step: {old / 23e3:.1f}% -> {new / 23e3:.1f}%"
        )
    for lab in labels:
        st = by_tree[lab]["stall"]
        print(
            f"  engine-loop iteration (200 us GIL-free wait + ~20 us Python) while the flusher writes "
            f"{st['records']} records, 5 flushes ({lab}): p99 {st['beside_p99_us']} us, longest "
            f"{st['beside_max_us']} us (alone: p99 {st['alone_p99_us']} us; a flush took {st['flush_ms']} ms)"
        )


def print_hooks(framework: str, by_tree: dict) -> None:
    labels = list(by_tree)
    print(f"\n{framework}: " + " | ".join(f"{lab}: pass-through / on / flush per record" for lab in labels))
    for qualname in HOOKS_ORDER(framework):
        cells = []
        for lab in labels:
            row = by_tree[lab]["hooks"][qualname]
            flush = row["flush_ns_per_record"] if row["records_per_call"] >= 0.01 else "-"  # aggregated: per step
            cells.append(f"{row['passthrough_ns']:>6} / {row['on_ns']:>6} / {flush:>6}")
        print(f"  {qualname:<56} " + " | ".join(cells))


STEP_NOTE = {
    "vllm": "schedule, get_new_blocks (a block for one request in 16), execute_model, "
    "_determine_batch_execution_and_padding (vLLM's keyword call), sample_tokens, update_from_output",
    "sglang": "get_next_batch_to_run, prepare_for_decode, run_batch, process_batch_result",
}


def HOOKS_ORDER(framework: str) -> list[str]:  # noqa: N802 (a table lookup)
    return [q for q, *_ in HOOKS[framework]]


if __name__ == "__main__":
    main()
