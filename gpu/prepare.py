"""Prepare one H200 call here (where the pinned trees and atlas live): the engine jobs of the chosen scenarios
(atlas.runtime.experiments: one engine start per framework and variant), each a folder under .carry_run/JOB with
the probe spec (default pins, device cuda, built-in hooks), the boot folder (probes, drivers, entry points) and the
driver config; jobs.txt lists them in the order they measure. With --overhead, the `graph` jobs also replay the
probe-overhead phases of issue 7 (concurrency 16 and 1; probes absent / on / off, `--reps` times each, in a
balanced order), last, when the other engines have finished starting.
usage: python gpu/prepare.py [--scenarios NAME,...|all|none] [--variants vllm-graph,...]
       [--overhead [--bisect] [--off-bisect] [--ab|--ab-only [--ab-variants]] [--sample-hz 200]] [--reps 3]
       [--order JOB,...] [--edges] [--out .carry_run]"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from atlas.env import settings as load_settings
from atlas.runtime import launch, workloads
from atlas.runtime.defaults import default_hooks
from atlas.runtime.experiments import scenarios as sc
from atlas.runtime.spec import GPU_SAMPLE_EVERY, build_spec, write_spec
from atlas.runtime.trace import DEFAULT_MODEL, ENGINE_DEFAULTS

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / ".carry_run"


# The built-in hooks (atlas/runtime/defaults.py) in the groups the measuring rounds leave out (control option
# skip=, probes.control.parse_control): the model runner's, the commit, the per-request KV / radix-cache ones, the
# scheduler's. A skipped hook that an engine version does not have is simply not there.
GROUPS = {
    "vllm": {
        "runner": "GPUModelRunner.execute_model,GPUModelRunner.sample_tokens,CudaGraphManager.dispatch,"
        "GPUModelRunner._determine_batch_execution_and_padding",
        "commit": "Scheduler.update_from_output",
        "kv": "KVCacheManager.get_computed_blocks,BlockPool.get_new_blocks,KVCacheManager.free",
        "scheduler": "Scheduler.add_request,Scheduler.schedule,Scheduler.update_from_output",
    },
    "sglang": {
        "runner": "Scheduler.run_batch,ScheduleBatch.prepare_for_decode,ScheduleBatch.prepare_for_extend",
        "commit": "Scheduler.process_batch_result",
        "kv": "RadixCache.match_prefix,RadixCache.cache_finished_req,Scheduler.handle_generate_request",
        "scheduler": "Scheduler.get_next_batch_to_run,Scheduler.process_batch_result,Scheduler.run_batch",
    },
}


def unknown_hooks() -> list[str]:
    """Names in GROUPS that are no built-in hook (a group left behind when the hook list changed)."""
    return [
        f"{fw}: {name}"
        for fw, groups in GROUPS.items()
        for names in groups.values()
        for name in names.split(",")
        if name not in {h["qualname"] for h in default_hooks(fw, "cuda")}
    ]


# Measuring states (--bisect): probes on with one part left out or done another way, to find what the probes' cost
# at concurrency 16 is made of: CUDA-event timing, the flusher's writing, rows held as objects until written
# (pack=1 marshals them on the engine thread), the hot path waking the flusher, or a group of hooks.
BISECT = {
    fw: ("on gpu=0", "on write=0", "on pack=1", "on wake=0")
    + tuple(f"on skip={g[name]}" for name in ("runner", "commit", "kv"))
    for fw, g in GROUPS.items()
}

# With --off-bisect: 'off' rounds with one group of wrappers taken away each (the rest in place, passing through):
# vLLM's 'off' rounds ran up to 16% below 'absent' (run 8), which the wrappers' CPU cannot explain; these rounds
# say which wrappers' presence it follows (with --sample-hz, where the time goes).
OFF_BISECT = {fw: tuple(f"off skip={g[name]}" for name in ("scheduler", "kv", "runner")) for fw, g in GROUPS.items()}


def balanced(reps: int, states: tuple[str, ...] = ("absent", "on", "off")) -> list[str]:
    """Each state `reps` times, in blocks that rotate and alternate direction, so that every state is equally
    often early and late and next to each other (cancels drift)."""
    rounds = []
    for rep in range(reps):
        block = states[rep % len(states) :] + states[: rep % len(states)]
        rounds += block[::-1] if rep % 2 else block
    return list(rounds)


# Duty-cycled rounds (--ab): the probe itself flips on and off every DUTY engine steps (~0.2 s at c16), so that on
# and off are compared over neighbouring windows of one run (atlas.runtime.cost.duty_summary): the H200 host's
# speed drifts by tens of per cent from one second-long round to the next (run 6), which buries a 2% cost in
# round-level medians. Variants (--ab-variants): the probe with one part left out or done another way, each
# compared with itself off in the same round. SGLang (met): rows packed on the engine thread, the per-request KV
# hooks left out, no CUDA-event timing. vLLM (4% at c16 and c1, runs 8-10; in run 10 leaving out the commit, the
# runner's padding and sampling hooks, CUDA timing or the flusher's wake-ups changed nothing; run 11: execute_model
# alone cost 2-3.6% with CUDA timing and nothing without): no CUDA timing; every hook but the one that counts the
# duty cycle (execute_model). The windows carry the probe's own time on the engine thread (own_ns).
DUTY = 100
_ALL_BUT_LEADER = ",".join(
    sorted({h["qualname"] for h in default_hooks("vllm", "cuda")} - {"GPUModelRunner.execute_model"})
)  # vLLM's duty cycle counts execute_model
AB_VARIANTS = {
    "sglang": ("pack=1", f"skip={GROUPS['sglang']['kv']}", "gpu=0"),
    "vllm": ("gpu=0", f"skip={_ALL_BUT_LEADER}"),
}


def ab_phases(framework: str, reps: int, vocab: int, variants: bool = False) -> list[dict]:
    """Duty-cycled rounds at concurrency 16 and 1 of steady decoding: 16 (1) requests of 256 -> 1536 tokens, all
    in flight from the first step to the last, so neighbouring windows run the same batch (run 9 mixed arrivals
    in, a prefill every ~8 steps: window step times spread 2-6.5 ms and per-pair ratios by 24%). The probe as
    shipped, 2*reps rounds, and with `variants` also each variant `reps` times."""
    c16 = workloads.requests(n=16, input_len=256, output_len=1536, concurrency=16, vocab=vocab, seed=2)
    c1 = workloads.requests(n=1, input_len=256, output_len=1536, concurrency=1, vocab=vocab, seed=3)
    shipped = f"on duty={DUTY}"
    rounds = (
        balanced(reps, (shipped, shipped) + tuple(f"{shipped} {v}" for v in AB_VARIANTS[framework]))
        if variants
        else [shipped] * (2 * reps)
    )
    return [
        {"name": "c16-ab", "workload": c16.to_json(), "rounds": rounds, "warmup": False},
        {"name": "c1-ab", "workload": c1.to_json(), "rounds": [shipped] * reps, "warmup": False},
    ]


def overhead_phases(reps: int, vocab: int, extra: tuple[str, ...] = (), keep_off: bool = False) -> list[dict]:
    c16 = workloads.requests(n=64, input_len=256, output_len=128, concurrency=16, vocab=vocab)
    c1 = workloads.requests(n=4, input_len=256, output_len=128, concurrency=1, vocab=vocab, seed=1)
    states = ("absent", "on") + ("off",) * keep_off + extra if extra else ("absent", "on", "off")
    return [
        {"name": "c16", "workload": c16.to_json(), "rounds": balanced(reps, states)},
        {"name": "c1", "workload": c1.to_json(), "rounds": balanced(reps)},
    ]


def phase_json(phase: sc.Phase, vocab: int) -> dict:
    return {
        "name": phase.name,
        "workload": workloads.build(phase.workload, vocab=vocab, **phase.params).to_json(),
        "rounds": list(phase.rounds),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenarios", default="all", help="comma-separated scenario names, all, or none")
    ap.add_argument("--variants", default="", help="only these jobs (e.g. vllm-graph,sglang-eager)")
    ap.add_argument("--overhead", action="store_true", help="add issue 7's overhead phases to the graph jobs")
    ap.add_argument("--reps", type=int, default=3, help="rounds per probe state in each overhead phase")
    ap.add_argument("--bisect", action="store_true", help="overhead at c16 also with parts of the probe left out")
    ap.add_argument(
        "--ab",
        action="store_true",
        help="overhead also from duty-cycled rounds (on/off every "
        f"{DUTY} steps within a round) of the probe as shipped",
    )
    ap.add_argument("--ab-variants", action="store_true", help="with --ab: also the variants of AB_VARIANTS")
    ap.add_argument("--ab-only", action="store_true", help="the duty-cycled rounds alone (no rounds per state)")
    ap.add_argument("--off-bisect", action="store_true", help="c16 also 'off' with one group of wrappers away each")
    ap.add_argument(
        "--sample-hz",
        type=float,
        default=0.0,
        help="the probe's sampling profiler (e.g. 200): which "
        "functions gain time with the probes off or on against absent (summary 'profile')",
    )
    ap.add_argument(
        "--gpu-every", type=int, default=GPU_SAMPLE_EVERY, help="CUDA-event timing on every Nth execute call"
    )
    ap.add_argument(
        "--edges",
        action="store_true",
        help="each engine process also records the calls inside the "
        "engine's package (probes.edges; slows the engine): TRACE/edges/*.json, for `atlas graph verify`",
    )
    ap.add_argument("--out", type=Path, default=RUN, help="the carried folder to write (default .carry_run)")
    ap.add_argument("--order", default="", help="job names in the order they measure (the rest after them)")
    a = ap.parse_args()
    if unknown_hooks():
        raise SystemExit(
            f"gpu/prepare.py: GROUPS names hooks the built-in list does not have: {unknown_hooks()}; "
            "bring GROUPS in line with atlas/runtime/defaults.py"
        )
    run = a.out.resolve()
    settings = load_settings()
    chosen = [] if a.scenarios == "none" else sc.pick(a.scenarios.split(","))
    jobs = [j for j in sc.jobs(chosen) if not a.variants or j.name in a.variants.split(",")]
    if a.overhead:  # the overhead phases ride on each framework's graph job, made for them when no scenario needs it
        jobs += [
            sc.Job(fw, "graph", sc.VARIANTS[fw]["graph"], (), ())
            for fw in ("vllm", "sglang")
            if not any(j.name == f"{fw}-graph" for j in jobs)
            and (not a.variants or f"{fw}-graph" in a.variants.split(","))
        ]
    order = a.order.split(",") if a.order else []
    # graph jobs measure last unless --order says otherwise: the others' starts are over by then
    jobs.sort(key=lambda j: (order.index(j.name) if j.name in order else len(order), j.variant == "graph"))
    shutil.rmtree(run, ignore_errors=True)
    model = run / "models" / "qwen3-0.6b"
    model.mkdir(parents=True)
    shutil.copy(DEFAULT_MODEL["cuda"] / "config.json", model / "config.json")
    vocab = json.loads((model / "config.json").read_text())["vocab_size"]
    specs = {}
    for job in jobs:
        out = launch.prepare_out(run / job.name)
        if job.framework not in specs:
            specs[job.framework] = build_spec(
                job.framework,
                "default",
                "cuda",
                out,
                settings,
                source="builtin",
                extra={
                    "gpu_sample_every": a.gpu_every,
                    "flush_interval_s": 0.3,
                    "diagnostics": a.overhead,
                    "sample_hz": a.sample_hz,
                    "edges": a.edges,
                },
            )
        write_spec(specs[job.framework], out / "spec.json")
        launch.make_boot(out)
        phases = [phase_json(p, vocab) for p in job.phases]
        if a.overhead and job.variant == "graph":
            extra = (BISECT[job.framework] if a.bisect else ()) + (OFF_BISECT[job.framework] if a.off_bisect else ())
            if not a.ab_only:
                phases += overhead_phases(a.reps, vocab, extra, keep_off=a.off_bisect)
            if a.ab or a.ab_only:
                phases += ab_phases(job.framework, a.reps, vocab, a.ab_variants)
        engine = {**ENGINE_DEFAULTS[(job.framework, "cuda")], **job.engine}
        if job.framework == "sglang":  # side by side: a port each; INFO logs carry the graph-capture figures
            engine.update(port=31000 + 200 * jobs.index(job), log_level="info")
        config = {
            "model": "",
            "engine": engine,
            "phases": phases,
            "warmup": True,
            "switch_wait_s": 0.8,
            "job": job.name,
            "scenarios": list(job.scenarios),
            "turn": {"dir": "", "order": [j.name for j in jobs], "name": job.name, "max_wait_s": 560, "pipeline": True},
        }
        (out / "engine.config.json").write_text(json.dumps(config))
        print(f"{job.name}: {len(phases)} phases for {', '.join(job.scenarios)}")
    (run / "jobs.txt").write_text("".join(f"{j.name} {j.framework}\n" for j in jobs))
    print(f"{len(jobs)} jobs -> {run}/jobs.txt")


if __name__ == "__main__":
    main()
