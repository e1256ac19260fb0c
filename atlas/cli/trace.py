"""`atlas trace`: run vLLM or SGLang under the runtime probes on a built-in workload and write the trace folder
(events.jsonl, trace.json for Perfetto, summary.json). Thin body over atlas.runtime."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from atlas.cli import output, verb
from atlas.env import Settings
from atlas.errors import ConfigError
from atlas.publish import write_text
from atlas.runtime import TraceOptions, collect, run_trace
from atlas.runtime.experiments.scenarios import SCENARIOS
from atlas.runtime.report import TraceReport, read_report
from atlas.runtime.spec import HOOK_SOURCES
from atlas.runtime.trace import json_or_text
from atlas.runtime.wording import counts_text
from atlas.runtime.workloads import BUILTIN


def register(sub: argparse._SubParsersAction) -> None:
    p = verb(
        sub,
        "trace",
        "run an engine under the probes on a workload; write events, a Perfetto trace and a summary",
        "Run vLLM or SGLang (its own interpreter: --python or ATLAS_ENGINE_PYTHON) under the runtime probes, hooked "
        "where the annotations anchor at the pin set of the engine (--pins; the CPU engine runs vLLM v0.32.0, pin "
        "set cpu), on a built-in workload; write events, a Perfetto trace and a summary into --out. The hooks are "
        "resolved from the pin set's symbol index, made from the parse stage on the first run (about a minute).",
        (
            "atlas trace --framework vllm --pins cpu --workload requests",
            "atlas trace --framework vllm --device cuda --rounds absent,on,off --edges",
        ),
    )
    p.add_argument("--framework", required=True, choices=("vllm", "sglang"))
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument(
        "--model",
        type=Path,
        help="folder with a config.json (default: atlas's qwen3-tiny on cpu, qwen3-0.6b on cuda; random weights)",
    )
    p.add_argument("--workload", choices=sorted(BUILTIN), default="requests")
    p.add_argument("--requests", type=int, dest="n", help="number of requests (workload 'requests')")
    p.add_argument("--input-len", type=int, help="prompt tokens per request")
    p.add_argument("--output-len", type=int, help="output tokens per request")
    p.add_argument("--concurrency", type=int, help="requests in flight at most")
    p.add_argument("--out", type=Path, default=Path("trace-out"), help="trace folder (default ./trace-out)")
    p.add_argument("--python", help="the engine's interpreter (default $ATLAS_ENGINE_PYTHON, else this one)")
    p.add_argument(
        "--hooks",
        choices=HOOK_SOURCES,
        default="auto",
        help="hooks from the annotations, or the built-in list (auto: annotations when any exist)",
    )
    p.add_argument(
        "--rounds",
        default="on",
        help="probe state per timed round: on (recording), off (wrappers "
        "passing through), absent (wrappers removed), e.g. absent,on,on,absent; to find what the probes "
        "cost, a state may take options, rounds then separated by ';': 'absent;on;on gpu=0;on write=0;"
        "on skip=Scheduler.update_from_output' (no CUDA-event timing / rows kept in memory / hooks left "
        "out)",
    )
    p.add_argument(
        "--sample-hz",
        type=float,
        default=0.0,
        help="a sampling profiler in each engine process, this "
        "many stacks a second, counted per probe state: the summary's 'profile' lists the functions whose "
        "share moved most against the absent rounds (e.g. --sample-hz 200 --rounds absent,off,on)",
    )
    p.add_argument(
        "--gpu-every",
        type=int,
        default=0,
        metavar="N",
        help="CUDA-event GPU timing on every Nth execute call (default 64; 1 times every call, at a cost)",
    )
    p.add_argument(
        "--diagnostics",
        action="store_true",
        help="the probe samples process and thread CPU, CPU waits "
        "and garbage collection at each flush; the summary sets them beside each round (summary 'cost')",
    )
    p.add_argument(
        "--edges",
        action="store_true",
        help="also record every call between two functions of the "
        "engine's package (sys.setprofile in each engine process; slows the engine): OUT/edges.json, "
        "for `atlas graph verify`",
    )
    p.add_argument(
        "--kernels",
        action="store_true",
        help="GPU kernels per step (--device cuda): profiling windows of CUPTI activity, each kernel joined to "
        "its static kernel node or library; summary 'kernels', a kernel track per step in trace.json",
    )
    p.add_argument(
        "--bundle",
        type=Path,
        help="trace without the pinned trees (the GPU machine): the specs in this folder, made where the trees "
        "are by `python gpu/pack_atlas.py`",
    )
    p.add_argument("--no-warmup", action="store_true", help="skip the untimed warm-up round")
    p.add_argument(
        "--tp",
        type=int,
        default=1,
        help="tensor-parallel size: passed to the engine "
        "(vLLM tensor_parallel_size, SGLang tp_size); above 1 the collectives are hooked too",
    )
    p.add_argument(
        "--single-process",
        action="store_true",
        help="vLLM: VLLM_ENABLE_V1_MULTIPROCESSING=0 (front end, EngineCore and worker in one process)",
    )
    p.add_argument("--no-probes", action="store_true", help="run the same workload with no probe installed")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds before the engine is stopped")
    p.add_argument(
        "--collect-only",
        action="store_true",
        help="only merge the shards already in --out (e.g. after a crash) into events/trace/summary",
    )
    p.add_argument(
        "--scenario",
        choices=sorted(SCENARIOS),
        help="run one of the article's experiments instead of "
        "--workload: every engine variant it needs for --framework, probes on and absent; writes a trace "
        "folder per variant and OUT/results/SCENARIO.json",
    )
    p.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="with --scenario: override a workload parameter (e.g. length=300) or rounds=on,absent",
    )
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        help="with --scenario: only this engine variant (e.g. graph); repeatable",
    )
    p.add_argument(
        "engine_args", nargs="*", metavar="-- ENGINE ARGS", help="engine options after `--`, e.g. -- --max-num-seqs 4"
    )
    p.set_defaults(func=trace)


def trace(args: argparse.Namespace, settings: Settings) -> int:
    if args.collect_only:
        spec_path = args.out / "spec.json"
        if not spec_path.is_file():
            raise ConfigError(f"{args.out} holds no spec.json; point --out at a folder `atlas trace` wrote")
        summary = collect(args.out, json.loads(spec_path.read_text()), settings=settings)
        write_text(args.out / "summary.json", json.dumps(summary, indent=1, sort_keys=True))
        return report(summary, args)
    if args.kernels and args.device != "cuda":
        raise ConfigError("--kernels records GPU kernels: add --device cuda (on a machine with a GPU)")
    if args.scenario:
        return scenario(args, settings)
    rounds = parse_rounds(args.rounds)
    if args.gpu_every < 0:
        raise ConfigError(f"--gpu-every {args.gpu_every}: give N >= 1 (time every Nth execute call), or leave it out")
    if args.tp < 1:
        raise ConfigError(f"--tp {args.tp}: give the tensor-parallel size, 1 or more (e.g. --tp 2)")
    params = {k: getattr(args, k) for k in ("n", "input_len", "output_len", "concurrency")}
    opts = TraceOptions(
        framework=args.framework,
        out=args.out,
        device=args.device,
        model=args.model,
        workload=args.workload,
        workload_params={k: v for k, v in params.items() if v is not None},
        python=args.python,
        pin_set=args.pin_sets[0],
        hooks=args.hooks,
        engine_args=tuple(args.engine_args),
        rounds=rounds,
        warmup=not args.no_warmup,
        single_process=args.single_process,
        timeout_s=args.timeout,
        probes=not args.no_probes,
        tp=args.tp,
        diagnostics=args.diagnostics,
        sample_hz=args.sample_hz,
        gpu_every=args.gpu_every,
        edges=args.edges,
        kernels=args.kernels,
        bundle=args.bundle,
    )
    return report(run_trace(opts, settings), args)


def parse_rounds(text: str) -> tuple[str, ...]:
    """'absent,on,on' or, with options, 'absent;on;on skip=A,B gpu=0' -> the rounds' control texts, each checked
    against what the probes read (probes.control.control_problems)."""
    from probes.control import CONTROL_OPTIONS, control_problems

    rounds = tuple(r.strip() for r in text.split(";" if ";" in text else ",") if r.strip())
    for r in rounds:
        if control_problems(r):
            raise ConfigError(
                f"--rounds {text!r}: round {r!r} is not a probe state; give on/off/absent, e.g. "
                "absent,on,on,absent, or with options separated by ';': 'absent;on gpu=0;on write=0;"
                "on duty=100;on skip=Scheduler.update_from_output' (options: "
                f"{', '.join(CONTROL_OPTIONS)})"
            )
    if not rounds:
        raise ConfigError(f"--rounds {text!r}: give at least one round, e.g. absent,on")
    return rounds


def report(summary: dict, args: argparse.Namespace) -> int:
    if args.format == "json":
        output.data(summary)
        return 0
    for line in report_lines(read_report(summary)):
        output.text(line)
    output.message(f"trace folder: {args.out} (trace.json opens in ui.perfetto.dev; `atlas explain {args.out}`)")
    return 0


def report_lines(r: TraceReport) -> list[str]:
    """The summary as a person reads it: counts in words, one hook a line, then what the probes cost."""
    out = [
        f"{r.framework} {r.ref} ({r.commit[:12]}), hooks: {r.hook_source}",
        f"events {r.num_events}  dropped {r.num_dropped}  capture errors {r.num_capture_errors}  steps by mode "
        f"{counts_text(r.steps_by_batch_mode)}  cuda graph {counts_text(r.cuda_graph)}",
        f"preempted {r.preempted}  retracted {r.retracted}  prefix hit tokens {r.prefix_hit_tokens}  median TTFT "
        f"{'-' if r.ttft_ms_median is None else r.ttft_ms_median} ms",
    ]
    for h in r.hooks:
        out.append(
            f"  {h.role:9} {h.fired:6}  {'at pin' if h.at_pin else 'NOT at pin':10}  {h.symbol}  ({h.path}:{h.line})"
        )
    out += [f"  round {x.round} probes {x.probes:6}: {x.out_tok_s} out tok/s" for x in r.rounds]
    for phase, states in r.cost.items():
        for state, c in states.items():
            out.append(
                f"  cost {phase} {state:8}: {c.tok_s} tok/s, process CPU {c.cpu_ms_s} ms/s, engine thread "
                f"{c.engine_run_ms_s} ms/s on a CPU + {c.engine_wait_ms_s} waiting, flusher {c.flusher_ms_s} ms/s, "
                f"GC {c.gc_ms_s} ms/s ({c.gc2_s} full/s)"
            )
    for phase, moves in r.profile.items():
        for m in moves:
            top = ", ".join(f"{where.rsplit('/', 1)[-1]} {delta:+.1%}" for where, delta in m.functions[:5])
            out.append(f"  profile {phase} {m.label} ({m.samples[0]}/{m.samples[1]} samples): {top}")
    for state, d in r.duty.items():
        out.append(
            f"  duty-cycled {state}: on/off {d.median} (95% {d.ci95[0]}-{d.ci95[1]}, pooled {d.pooled}, "
            f"{d.pairs} pairs of {d.window_ms} ms windows)"
        )
    says = {"on_over_absent": "probes on / absent", "off_over_absent": "probes off / absent"}
    says["on_over_off"] = "probes on / off"
    out += [f"  {says[k]} (median output tok/s): {v}" for k, v in r.ratios.items()]
    if r.kernels is not None:
        k = r.kernels
        out.append(
            f"  kernels: {k.kernels} in {k.windows} windows over {k.steps_profiled} steps, {k.gpu_ms} ms GPU; "
            f"attributed {_value(k.share.attributed)} (tree {_value(k.share.tree)}, library "
            f"{_value(k.share.library)}); capture cost {_value(k.read_us_per_profiled_step)} us read + "
            f"{_value(k.execute_us_added_per_step)} us execute per profiled step"
        )
        out += [f"    unattributed: {u.name[:90]} ({u.gpu_us} us GPU)" for u in k.unattributed[:5]]
    for rank in r.ranks:
        out.append(
            f"  {rank.label}: {rank.steps} steps, median step {rank.step_ms_median} ms, collectives "
            f"{rank.collective_ms_per_step} ms/step ({rank.collective_share} of step time)"
        )
    if r.clock_barriers:
        out.append(
            f"  clock skew between processes: median {r.clock_skew_us[0]} us, max {r.clock_skew_us[1]} us over "
            f"{r.clock_barriers} barriers"
        )
    return out


def _value(x: float | None) -> str:
    return "-" if x is None else str(x)


def parse_config(pairs: list[str]) -> dict:
    """['length=300', 'rounds=on,absent'] -> {'length': 300, 'rounds': 'on,absent'} (values read as JSON when they
    parse, else kept as text)."""
    out = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"--config {pair!r}: give KEY=VALUE, e.g. --config length=300")
        out[key] = json_or_text(raw)
    return out


def scenario(args: argparse.Namespace, settings: Settings) -> int:
    """`atlas trace --scenario NAME`: the scenario's jobs for one framework on this machine, then its results."""
    from atlas.runtime.experiments import results as rs
    from atlas.runtime.experiments import run
    from atlas.runtime.experiments import scenarios as sc
    from atlas.runtime.trace import model_dir

    (chosen,) = sc.apply_config(sc.pick([args.scenario]), parse_config(args.config))
    if args.framework not in chosen.variants:
        raise ConfigError(
            f"scenario {chosen.name} has no {args.framework} run; it runs on: {', '.join(chosen.variants)}"
        )
    unknown = set(args.variant) - set(chosen.variants[args.framework])
    if unknown:
        raise ConfigError(
            f"--variant {', '.join(sorted(unknown))}: {chosen.name} on {args.framework} runs "
            f"{', '.join(chosen.variants[args.framework])}"
        )
    model = model_dir(args.model, args.device)
    opts = run.RunOptions(
        out=args.out.resolve(),
        device=args.device,
        model=model,
        python=args.python,
        pin_set=args.pin_sets[0],
        timeout_s=args.timeout,
        kernels=args.kernels,
        bundle=args.bundle,
    )
    command = "atlas trace --framework {} --scenario {} {}".format(
        args.framework, chosen.name, " ".join(f"--config {c}" for c in args.config)
    ).strip()
    (result,) = run.run_scenarios([chosen], (args.framework,), opts, settings, model, command, tuple(args.variant))
    path = rs.write(result, args.out / "results")
    if args.format == "json":
        output.data(result)
        return 0
    for row in result["rows"]:
        output.text(
            f"  {row['engine']:6} {row['variant']:14} {row['label']:10} {row['metric']:24} "
            f"absent {row['absent']}  on {row['on']}  {row['unit']}"
        )
    for e in result["evidence"]:
        output.text(f"  evidence: {e['symbol']} ({e['where']}): {e['text']}")
    for error in result["errors"]:
        output.message(f"error: {error}")
    output.message(f"results: {path}; trace folders under {args.out}")
    return 1 if result["errors"] else 0
