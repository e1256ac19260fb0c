"""The series targets on a trace the size of a 10-minute H200 run: 17,000 scheduler steps at concurrency 16 (requests
of 256 prompt -> 128 output tokens, as the committed c16 rounds), with the scheduler state, per-request blocks, an
execute and a commit event per step, as the merge hands them to atlas.runtime.series.build. Prints the size of
series.json (target <= 5 MB), the time to build it at collect, and the time of `atlas explain` on the folder (load
and judge; target < 2 s), each the median of RUNS runs with their spread.

    python benchmarks/bench_series.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from atlas.runtime import series as series_io  # noqa: E402
from atlas.runtime.explain import diagnose, load_trace  # noqa: E402
from atlas.runtime.merge import Merged  # noqa: E402
from atlas.runtime.series.build import build  # noqa: E402

STEPS, CONCURRENCY, PROMPT, OUTPUT, BLOCK = 17_000, 16, 256, 128, 16
RUNS = 5
US = 1000


def event(symbol: str, role: str, pid: int, step: int, t_us: int, dur_us: int, **values) -> dict:
    return {
        "kind": "call",
        "symbol": f"vllm.v1.x.{symbol}",
        "role": role,
        "path": "vllm/v1/x.py",
        "line": 1,
        "pid": pid,
        "step": step,
        "mono_ns": t_us * US,
        "dur_ns": dur_us * US,
        "values": values,
        **({"request_ids": values.pop("ids")} if "ids" in values else {}),
    }


def synthetic_trace() -> Merged:
    """Steps of 3 ms; a request leaves after OUTPUT tokens and the next one arrives in its slot."""
    events, running, made, t = [], {}, 0, 0
    for step in range(1, STEPS + 1):
        while len(running) < CONCURRENCY:
            rid = f"c16-r0-req-{made}"
            made += 1
            running[rid] = -1  # computed tokens before its first plan: none yet
            events.append(
                event("Scheduler.add_request", "plan", 1, step - 1, t, 20, ids=[rid], num_computed_tokens=PROMPT)
            )
        scheduled = {rid: PROMPT if done < 0 else 1 for rid, done in running.items()}
        computed = {rid: max(done, 0) for rid, done in running.items()}
        blocks = {rid: PROMPT // BLOCK for rid, done in running.items() if done < 0}
        blocks.update({rid: 1 for rid, done in running.items() if done >= PROMPT and (done - PROMPT) % BLOCK == 0})
        mode = "MIXED" if any(d < 0 for d in running.values()) else "DECODE"
        tokens = sum(scheduled.values())
        events.append(
            event(
                "Scheduler.schedule",
                "plan",
                1,
                step,
                t + 100,
                150,
                batch_mode=mode,
                batch_size=len(scheduled),
                num_scheduled_tokens=scheduled,
                num_computed_tokens=computed,
                preempted=[],
                draft_tokens=0,
                kv_blocks=sum(blocks.values()),
                new_blocks=blocks,
                running=len(running),
                waiting=0,
                kv_free=40_000,
                kv_cached=300,
                kv_total=44_000,
                block_size=BLOCK,
                ids=list(scheduled),
            )
        )
        gpu = {"gpu_ns": 1_900_000} if step % 64 == 0 else {}
        execute = event(
            "GPUModelRunner.execute_model",
            "execute",
            2,
            step,
            t + 300,
            2200,
            num_scheduled_tokens=tokens,
            batch_size=len(scheduled),
        )
        execute.update(gpu)
        events.append(execute)
        events.append(
            event(
                "CudaGraphManager.dispatch",
                "execute",
                2,
                step,
                t + 320,
                20,
                cuda_graph="FULL" if mode == "DECODE" else "PIECEWISE",
                padded_tokens=tokens,
            )
        )
        finished = [rid for rid, done in running.items() if done >= PROMPT + OUTPUT - 2]
        after = {rid: computed[rid] + n for rid, n in scheduled.items()}
        events.append(
            event(
                "Scheduler.update_from_output",
                "commit",
                1,
                step,
                t + 2600,
                80,
                new_tokens=dict.fromkeys(scheduled, 1),
                finished=finished,
                num_computed_tokens=after,
                accepted_tokens=0,
                ids=sorted(scheduled),
            )
        )
        for rid in scheduled:
            running[rid] = after[rid]
        for rid in finished:
            del running[rid]
        t += 3000
    return Merged(events, [], [], {}, 0, {}, {})


def main() -> None:
    merged = synthetic_trace()
    spec = {"framework": "vllm", "url": "https://github.com/vllm-project/vllm", "permalink_ref": "v0.26.0"}
    summary = '{"framework": "vllm", "engine": "vllm v0.26.0", "device": "cuda", "hooks": {}}'
    builds, explains = [], []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "summary.json").write_text(summary)
        for _ in range(RUNS):  # interleaved: a build, then an explain of what it wrote
            t0 = time.perf_counter()
            series_io.write(build(merged, spec), folder / series_io.FILE)
            builds.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            diagnosis = diagnose(load_trace(folder))
            explains.append(time.perf_counter() - t0)
        size = (folder / series_io.FILE).stat().st_size
        loaded = series_io.load(folder)
    assert loaded is not None
    print(f"trace: {len(loaded.steps)} steps, {len(loaded.requests)} requests, {len(merged.events)} events")
    print(f"series.json: {size / 1e6:.2f} MB (target <= 5 MB)")
    for name, times in (("build at collect", builds), ("atlas explain (load + judge)", explains)):
        print(
            f"{name}: median {statistics.median(times):.3f} s, min {min(times):.3f}, max {max(times):.3f} "
            f"over {RUNS} runs" + (" (target < 2 s)" if "explain" in name else "")
        )
    print("verdicts: " + ", ".join(f"{r.symptom.key} {r.verdict.value}" for r in diagnosis.rows))


if __name__ == "__main__":
    main()
