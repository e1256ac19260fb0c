"""On the GPU machine, from the repository root, in one device call: land the engines' packs (.gpu/device_run.sh,
the recipe in ../shared/gpu), install atlas from the wheels gpu/pack_atlas.py carried, and run `atlas trace` as a
user types it, for each engine: runs from RUNS (a workload trace with CUDA graphs, one eager) and scenarios, with
--kernels, each into /tmp/traces/ENGINE/NAME; then pack each trace folder, shards kept where they fit, into
$OUT/ENGINE-NAME.tar.xz (the device returns at most 8 files, 16 MB each). atlas runs from a folder outside the
checkout (so that the wheel's atlas is imported, not the checkout's) with ATLAS_ROOT at the bundle (its
pinned_sources/). Standard library only.
usage: OUT=... python3 gpu/trace_on_device.py [--carry .carry_atlas] [--engines vllm,sglang] [--runs graph,eager]
       [--scenarios a,b] [--budget-s 540] [--dry-run] [-- WORKLOAD ARGS]"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

SITES = {"vllm": "/tmp/site_vllm:/tmp/site_common", "sglang": "/tmp/site_sgl:/tmp/site_common"}
ATLAS_SITE = "/tmp/site_atlas"
TRACES = Path("/tmp/traces")
RUN_DIR = Path("/tmp/atlas_run")  # atlas's working folder: no atlas/ beside it to shadow the installed wheel
SCENARIOS = (
    "prefill-scaling",
    "prefix-cache",
    "continuous-batching",
    "chunked-prefill",
    "cuda-graph",
    "overlap",
    "preemption",
    "spec-ngram",
    "beam-search",
)
# The plain runs: name -> the engine options after `--`, per engine (graph: each engine's default, CUDA graphs on).
RUNS = {
    "graph": {"vllm": [], "sglang": []},
    "eager": {"vllm": ["--enforce-eager"], "sglang": ["--disable-cuda-graph"]},
}
ENV = {"VLLM_USE_FLASHINFER_SAMPLER": "0", "PYTHONUNBUFFERED": "1"}


def plan(
    carry: Path,
    out: Path,
    engines: list[str],
    scenarios: list[str],
    runs: list[str] | tuple[str, ...] = ("graph",),
    workload: list[str] | tuple[str, ...] = (),
) -> list[tuple[str, list[str], dict]]:
    """(label, command, extra environment) in the order they run; `out` is where the trace folders go."""
    carry = carry.resolve()
    wheels = sorted(str(p) for p in (carry / "wheels").glob("*.whl")) or [str(carry / "wheels" / "*.whl")]
    steps = [
        ("land the engines", ["bash", ".gpu/device_run.sh"], {}),
        (
            "install atlas",
            [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--target", ATLAS_SITE, *wheels],
            {},
        ),
    ]
    atlas_env = {"ATLAS_ROOT": str(carry / "bundle"), "ATLAS_BUILD": str(RUN_DIR / "build")}
    for engine in engines:
        env = {**ENV, **atlas_env, "PYTHONPATH": f"{ATLAS_SITE}:{SITES[engine]}"}
        base = [sys.executable, "-m", "atlas", "trace", "--framework", engine, "--device", "cuda", "--kernels"]
        base += ["--bundle", str(carry / "bundle"), "--python", sys.executable, "--format", "json"]
        for name in runs:
            command = [*base, *workload, "--out", str(out / engine / name)]
            extra = RUNS[name][engine]
            steps.append((f"{engine} {name}", command + (["--", *extra] if extra else []), env))
        for name in scenarios:
            steps.append((f"{engine} {name}", [*base, "--scenario", name, "--out", str(out / engine / name)], env))
    return steps


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--carry", type=Path, default=Path(".carry_atlas"))
    ap.add_argument("--engines", default="vllm,sglang")
    ap.add_argument("--runs", default="graph,eager", help=f"plain workload runs, of: {', '.join(RUNS)}")
    ap.add_argument("--scenarios", default="", help=f"scenarios, of: {', '.join(SCENARIOS)}")
    ap.add_argument("--budget-s", type=float, default=540.0, help="stop starting commands after this many seconds")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    ap.add_argument("workload", nargs="*", help="after `--`: atlas trace workload options for the plain runs")
    a = ap.parse_args()
    out = Path(os.environ.get("OUT", "/tmp/out"))
    engines = [e for e in a.engines.split(",") if e]
    runs = [r for r in a.runs.split(",") if r]
    steps = plan(a.carry, TRACES, engines, [s for s in a.scenarios.split(",") if s], runs, a.workload)
    start = time.monotonic()
    for label, command, env in steps:
        line = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + (" " if env else "") + shlex.join(command)
        print(f"[{label}] {line}", flush=True)
        if a.dry_run:
            continue
        left = a.budget_s - (time.monotonic() - start)
        if left < 30:
            print(f"[{label}] skipped: the budget is spent", flush=True)
            continue
        log = TRACES / "logs" / f"{label.replace(' ', '-')}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        RUN_DIR.mkdir(parents=True, exist_ok=True)
        cwd = RUN_DIR if "atlas" in command else None
        code = None
        with open(log, "w") as f:
            try:
                code = subprocess.run(
                    command, env={**os.environ, **env}, stdout=f, stderr=subprocess.STDOUT, timeout=left, cwd=cwd
                ).returncode
                print(f"[{label}] exit {code} after {time.monotonic() - start:.0f} s", flush=True)
            except subprocess.TimeoutExpired:
                print(f"[{label}] stopped at the budget after {time.monotonic() - start:.0f} s", flush=True)
        if code != 0:  # the end of a failed command's log, in the call's output
            print(log.read_text(errors="replace")[-1500:], flush=True)
    if not a.dry_run:
        pack(out, engines)


LIMIT = 15_500_000  # bytes: a file the device returns is at most 16 MB
TIERS = ((), ("--exclude=shards",), ("--exclude=shards", "--exclude=trace.json", "--exclude=events.jsonl"))


def pack(out: Path, engines: list[str]) -> None:
    """$OUT/ENGINE-RUN.tar.xz of each trace folder, shards kept where the file stays under LIMIT (else without the
    shards, else without trace.json and events.jsonl too), and $OUT/logs.tar.xz."""
    out.mkdir(parents=True, exist_ok=True)
    folders = [(f"{e}-{d.name}", d.relative_to(TRACES)) for e in engines for d in sorted((TRACES / e).glob("*"))]
    for name, folder in [*folders, ("logs", Path("logs"))]:
        target = out / f"{name}.tar.xz"
        for tier in TIERS:
            options = " ".join(tier)
            subprocess.run(f"tar -C {TRACES} {options} -cf - {folder} | xz -T0 -6 > {target}", shell=True)
            if target.stat().st_size <= LIMIT:
                break
        else:
            target.unlink()
        print(f"[pack] {target}: {target.stat().st_size if target.exists() else 'too big, dropped'} ({options})")


if __name__ == "__main__":
    main()
