"""Running experiment jobs on this machine (`atlas trace --scenario`, `atlas experiments run`): one engine start
per job, one after the other, each under the probes with its trace folder; then the results per scenario. The H200
runs use the same jobs through gpu/prepare.py -> gpu/run_on_device.sh -> gpu/collect.py (engines side by side)."""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from pathlib import Path

from atlas.env import Settings
from atlas.publish import write_text
from atlas.runtime import launch, workloads
from atlas.runtime.experiments import results as rs
from atlas.runtime.experiments import scenarios as sc
from atlas.runtime.kernels import capture
from atlas.runtime.merge import merge
from atlas.runtime.spec import build_spec, pick_pin_set, write_spec
from atlas.runtime.trace import ENGINE_DEFAULTS, collect
from atlas.sources import load_all

# On the CPU (vLLM only, always eager) a variant keeps only the arguments that mean the same there: the KV memory
# and graph settings are the device recipe's.
CPU_KEEPS = {
    "max_num_batched_tokens",
    "num_gpu_blocks_override",
    "block_size",
    "speculative_config",
    "async_scheduling",
    "disable_log_stats",
}


@dataclass(frozen=True, slots=True)
class RunOptions:
    out: Path  # one trace folder per job under it
    device: str = "cuda"
    model: Path | None = None
    python: str | None = None
    pin_set: str = "default"  # the pins the probe maps lines to; the installed engine's own version wins
    timeout_s: float = 900.0
    kernels: bool = False  # GPU kernels per step (probes.kernels): each job's folder gets trace.json and summary.json
    bundle: Path | None = None  # specs made where the pinned trees are (atlas.runtime.kernels.capture.bundle_spec)


def engine_args(job: sc.Job, device: str) -> dict:
    base = dict(ENGINE_DEFAULTS[(job.framework, device)])
    extra = job.engine if device == "cuda" else {k: v for k, v in job.engine.items() if k in CPU_KEEPS}
    return {**base, **extra}


def engine_pin_set(framework: str, opts: RunOptions, settings: Settings) -> str:
    """The pin set the installed engine's version matches (else the one asked for): lines map onto its source."""
    (manifest,) = load_all(settings.root, [framework])
    version = launch.engine_version(launch.engine_python(opts.python), framework)
    return pick_pin_set(manifest, opts.pin_set, version)


def run_job(job: sc.Job, opts: RunOptions, settings: Settings, model: Path, pin_set: str) -> rs.JobRun:
    """Start the job's engine under the probes, replay its phases, and read back what it left (also on failure)."""
    out = launch.prepare_out(opts.out / job.name)
    python = launch.engine_python(opts.python)
    if opts.bundle is not None:
        spec = capture.bundle_spec(opts.bundle, job.framework, out, opts.device, {"kernels": opts.kernels})
    else:
        extra = capture.spec_extra(settings, job.framework, pin_set) if opts.kernels else None
        spec = build_spec(job.framework, pin_set, opts.device, out, settings, source="builtin", extra=extra)
    write_spec(spec, out / "spec.json")
    (out / "control").write_text("on")
    boot = launch.make_boot(out)
    vocab = json.loads((model / "config.json").read_text())["vocab_size"]
    phases = [
        {
            "name": p.name,
            "rounds": list(p.rounds),
            "workload": workloads.build(p.workload, vocab=vocab, **p.params).to_json(),
        }
        for p in job.phases
    ]
    config = {
        "model": str(model),
        "engine": engine_args(job, opts.device),
        "phases": phases,
        "warmup": True,
        "job": job.name,
        "scenarios": list(job.scenarios),
        "control": str(out / "control"),
        "result": str(out / "result.json"),
    }
    (out / "result.json").unlink(missing_ok=True)
    env = launch.engine_env(out / "spec.json", out, boot, True)
    _, log = launch.run_driver(python, job.framework, config, out, boot, env, opts.timeout_s)
    driver = json.loads((out / "result.json").read_text()) if (out / "result.json").is_file() else None
    if opts.kernels:  # the job's own trace: its kernels per step on Perfetto tracks, their summary
        write_text(out / "summary.json", json.dumps(collect(out, spec, driver), indent=1, sort_keys=True))
    merged = merge(out / "shards")
    return rs.JobRun(job, driver, merged.events, merged.marks, spec, log.read_text(errors="replace"))


def run_scenarios(
    scenarios: list[sc.Scenario],
    frameworks: tuple[str, ...],
    opts: RunOptions,
    settings: Settings,
    model: Path,
    command: str,
    variants: tuple[str, ...] = (),
) -> list[dict]:
    """Every job the scenarios need (optionally only some variants), then one results dict per scenario."""
    jobs = [j for j in sc.jobs(scenarios, frameworks) if not variants or j.variant in variants]
    pin_sets = {fw: engine_pin_set(fw, opts, settings) for fw in {j.framework for j in jobs}}
    runs = [run_job(job, opts, settings, model, pin_sets[job.framework]) for job in jobs]
    context = {
        "command": command,
        "date": datetime.date.today().isoformat(),
        "gpu": opts.device,
        "model": f"{model.name} (random weights, token ids in/out)",
    }
    return [rs.scenario_results(s.name, runs, context) for s in scenarios if any(s.name in j.scenarios for j in jobs)]
