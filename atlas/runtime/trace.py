"""`atlas trace` end to end: spec -> engine under probes running a workload -> shards -> events.jsonl, trace.json
(Perfetto), summary.json. Pure orchestration over spec, launch, workloads, merge, perfetto and summary."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from atlas.env import Settings
from atlas.errors import AtlasError, BuildMissing, ConfigError
from atlas.publish import write_text
from atlas.runtime import cost, edges, launch, recording, series, workloads
from atlas.runtime import spec as specs
from atlas.runtime.kernels import capture
from atlas.runtime.merge import merge, write_events
from atlas.runtime.perfetto import chrome_trace
from atlas.runtime.series.build import build as build_series
from atlas.runtime.summary import summarise

MODELS = Path(__file__).resolve().parents[1] / "data" / "models"
TP_ARG = {"vllm": "tensor_parallel_size", "sglang": "tp_size"}  # the engines' names for the tensor-parallel size
DEFAULT_MODEL = {"cpu": MODELS / "qwen3-tiny", "cuda": MODELS / "qwen3-0.6b"}
ENGINE_DEFAULTS = {
    ("vllm", "cpu"): {
        "load_format": "dummy",
        "skip_tokenizer_init": True,
        "enforce_eager": True,
        "dtype": "bfloat16",
        "max_model_len": 512,
        "max_num_seqs": 8,
        "kv_cache_memory_bytes": 64 << 20,
        "seed": 0,
    },
    ("vllm", "cuda"): {
        "load_format": "dummy",
        "skip_tokenizer_init": True,
        "dtype": "bfloat16",
        "gpu_memory_utilization": 0.5,
        "max_model_len": 4096,
        "seed": 0,
    },
    ("sglang", "cuda"): {
        "load_format": "dummy",
        "skip_tokenizer_init": True,
        "attention_backend": "triton",
        "sampling_backend": "pytorch",
        "mem_fraction_static": 0.5,
        "context_length": 4096,
        "random_seed": 0,
        "log_level": "warning",
    },
}


class EngineFailed(AtlasError):
    """The engine exited with an error or timed out; the message points at its log."""


@dataclass(frozen=True, slots=True)
class TraceOptions:
    framework: str
    out: Path
    device: str = "cpu"
    model: Path | None = None
    workload: str = "requests"
    workload_params: dict = field(default_factory=dict)
    python: str | None = None
    pin_set: str = "default"
    hooks: str = "auto"
    engine_args: tuple[str, ...] = ()
    rounds: tuple[str, ...] = ("on",)
    warmup: bool = True
    single_process: bool = False
    timeout_s: float = 600.0
    probes: bool = True
    inject_fault: str = ""  # fault injection (tests): this hook also runs the capture `fail`, which raises
    tp: int = 1  # tensor-parallel size handed to the engine
    diagnostics: bool = False  # the probe samples CPU, CPU waits and GC at each flush (summary "cost")
    sample_hz: float = 0.0  # > 0: the probe's sampling profiler, per probe state (summary "profile")
    gpu_every: int = 0  # CUDA-event timing on every Nth execute call (0: the spec's default)
    edges: bool = False  # each engine process records the calls inside the engine's package (probes.edges)
    kernels: bool = False  # GPU kernels per step, joined to the kernel nodes of the pin (probes.kernels)
    bundle: Path | None = None  # specs made where the pinned trees are (no checkout here: the GPU machine)


def parse_engine_args(args: tuple[str, ...]) -> dict:
    """['--max-num-seqs', '4', '--enforce-eager'] -> {'max_num_seqs': 4, 'enforce_eager': True}."""
    out, i = {}, 0
    while i < len(args):
        key = args[i]
        if not key.startswith("--"):
            raise ConfigError(
                f"engine argument {key!r} is not an option; pass engine options after `--` as "
                "--name value (e.g. -- --max-num-seqs 4)"
            )
        name = key[2:].replace("-", "_")
        if "=" in name:
            name, raw = name.split("=", 1)
            i += 1
        elif i + 1 < len(args) and not args[i + 1].startswith("--"):
            raw, i = args[i + 1], i + 2
        else:
            raw, i = "true", i + 1
        out[name] = json_or_text(raw)
    return out


def json_or_text(raw: str):
    """A command-line value: JSON when it parses ('4', 'true', '[1, 2]'), else the text itself."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def engine_config(opts: TraceOptions) -> dict:
    """The engine's keyword arguments: the recipe, the tensor-parallel size, then the user's `-- ENGINE ARGS`."""
    engine = dict(ENGINE_DEFAULTS[(opts.framework, opts.device)])
    if opts.tp > 1:
        engine[TP_ARG[opts.framework]] = opts.tp
    return {**engine, **parse_engine_args(opts.engine_args)}


def model_dir(model: Path | None, device: str) -> Path:
    """The model folder (atlas's own for the device unless given), checked to hold a config.json."""
    model = (model or DEFAULT_MODEL[device]).resolve()
    if not (model / "config.json").is_file():
        raise ConfigError(
            f"model folder {model} has no config.json; pass --model with a folder holding one "
            f"(atlas ships {', '.join(p.name for p in MODELS.iterdir())} under {MODELS})"
        )
    return model


def run_trace(opts: TraceOptions, settings: Settings) -> dict:
    """Run the engine under the probes and write the trace folder; returns the summary."""
    if (opts.framework, opts.device) not in ENGINE_DEFAULTS:
        raise ConfigError(
            f"no engine recipe for {opts.framework} on {opts.device}; choose one of: "
            + ", ".join(f"{f}/{d}" for f, d in ENGINE_DEFAULTS)
        )
    out = launch.prepare_out(opts.out.resolve())
    python = launch.engine_python(opts.python)
    model = model_dir(opts.model, opts.device)
    from atlas.sources import load_all

    (manifest,) = load_all(settings.root, [opts.framework])
    version = launch.engine_version(python, opts.framework)
    if not version:
        raise ConfigError(
            f"{python} has no {opts.framework} installed; pass --python (or ATLAS_ENGINE_PYTHON) with "
            "the engine's interpreter (bash scripts/setup_cpu_engine.sh makes one for vLLM on the CPU)"
        )
    pin_set = specs.pick_pin_set(manifest, opts.pin_set, version)
    extra = {
        "diagnostics": opts.diagnostics,
        "sample_hz": opts.sample_hz,
        "edges": opts.edges,
        **({"gpu_sample_every": opts.gpu_every} if opts.gpu_every else {}),
    }
    if opts.bundle is not None:
        spec = capture.bundle_spec(opts.bundle, opts.framework, out, opts.device, {**extra, "kernels": opts.kernels})
    else:
        if opts.kernels:
            extra.update(capture.spec_extra(settings, opts.framework, pin_set))
        spec = specs.build_spec(opts.framework, pin_set, opts.device, out, settings, opts.hooks, extra, opts.tp)
    for hook in spec["hooks"]:
        if hook["symbol"] == opts.inject_fault:
            hook["capture"] = [*hook["capture"], "fail"]
    spec_path = specs.write_spec(spec, out / "spec.json")
    (out / "control").write_text("on")
    vocab = json.loads((model / "config.json").read_text())["vocab_size"]
    workload = workloads.build(opts.workload, vocab=vocab, **opts.workload_params)
    engine = engine_config(opts)
    config = {
        "model": str(model),
        "engine": engine,
        "workload": workload.to_json(),
        "rounds": list(opts.rounds),
        "warmup": opts.warmup,
        "control": str(out / "control"),
        "result": str(out / "result.json"),
    }
    boot = launch.make_boot(out)
    env = launch.engine_env(spec_path, out, boot, opts.probes)
    if opts.single_process:
        env["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"
    (out / "result.json").unlink(missing_ok=True)
    status, log = launch.run_driver(python, opts.framework, config, out, boot, env, opts.timeout_s)
    driver = json.loads((out / "result.json").read_text()) if (out / "result.json").is_file() else None
    summary = collect(out, spec, driver, None if opts.bundle else settings)
    summary.update(engine_version=version, pin_set=pin_set, engine_exit=status, workload=workload.name, out=str(out))
    write_text(out / "summary.json", json.dumps(summary, indent=1, sort_keys=True))
    publish(summary, settings)
    if status != 0 or driver is None:
        tail = " | ".join(log.read_text(errors="replace").strip().splitlines()[-3:])
        raise EngineFailed(
            f"the {opts.framework} engine {'timed out' if status == 124 else f'exited {status}'}; "
            f"the trace up to its last flush is in {out}; see {log}: {tail[-400:]}"
        )
    return summary


def collect(out: Path, spec: dict, driver: dict | None = None, settings: Settings | None = None) -> dict:
    """Merge the shards of a trace folder into events.jsonl, series.json, trace.json and the summary (also after a
    crash); with settings, also the call edges seen at runtime, checked against the static graph when one is built."""
    merged = merge(out / "shards")
    write_events(merged, out / "events.jsonl")
    series.write(build_series(merged, spec), out / series.FILE)
    trace = chrome_trace(merged, spec)
    summary = summarise(merged, spec, driver)
    if spec.get("kernels"):
        origin = min((e["mono_ns"] for e in merged.events + merged.marks), default=0)  # chrome_trace's origin
        summary["kernels"], tracks = capture.collect_kernels(out, merged, spec, origin)
        trace["traceEvents"] += tracks
    write_text(out / "trace.json", json.dumps(trace))
    if spec.get("diagnostics") or spec.get("sample_hz"):
        records = cost.load(out / "shards")
        if spec.get("diagnostics"):
            rows = cost.round_costs(records)
            summary.update(cost=cost.by_state(rows), cost_rounds=rows, duty=cost.duty_summary(records))
        if spec.get("sample_hz"):
            summary["profile"] = cost.profile_summary(records, spec["framework"])
    if settings is not None:
        summary["runtime_edges"] = runtime_edges(merged, spec, settings)
    if spec.get("edges"):
        recorded = recording.collect(out, spec)
        summary["recorded_edges"] = (
            {
                "path": str(out / "edges.json"),
                "num_edges": len(recorded["edges"]),
                "num_processes": recorded["num_processes"],
            }
            if recorded
            else None
        )
    return summary


def publish(summary: dict, settings: Settings) -> Path:
    """The latest trace's summary where `atlas build` looks for it (build/runtime/summary.json)."""
    path = settings.build / "runtime" / "summary.json"
    write_text(path, json.dumps(summary, indent=1, sort_keys=True))
    made = Path(summary.get("out") or "") / series.FILE
    if made.is_file():
        write_text(path.with_name(series.FILE), made.read_text(encoding="utf-8"))
    else:
        path.with_name(series.FILE).unlink(missing_ok=True)
    return path


def runtime_edges(merged, spec: dict, settings: Settings) -> dict:
    from atlas.graph import load_graph, load_symbols
    from atlas.sources import load_all

    (manifest,) = load_all(settings.root, [spec["framework"]])
    index = load_symbols(settings, spec["framework"], spec["pin_set"])  # the parse stage's, cached
    observed = edges.observed_edges(merged.events, index, manifest.package_root)
    result = {
        "observed": [
            {"caller": e.caller, "callee": e.callee, "site": f"{e.site.path}:{e.site.start}", "count": n}
            for e, n in observed
        ],
        "graph_checked": False,
        "missing": [],
    }
    try:
        graph = load_graph(settings, spec["framework"], spec["pin_set"], on_demand=False)
    except BuildMissing:
        return result  # no static graph built for this pin yet: nothing to check against
    result["graph_checked"] = True
    result["missing"] = [
        {"message": f.message, "where": f.where, **f.details} for f in edges.missing_from_graph(observed, graph)
    ]
    return result
