"""On the GPU machine, from the repository root, in one device call: land the engines' packs (.gpu/device_run.sh,
the recipe in ../shared/gpu), install atlas from the wheels gpu/pack_atlas.py carried, and run `atlas trace` as a
user types it, for each engine: a workload trace and every scenario, with --kernels, each into $OUT/ENGINE/NAME;
then pack $OUT's trace folders (shards dropped: the summaries, trace.json and results stay). Standard library only.
usage: OUT=... python3 gpu/trace_on_device.py [--carry .carry_atlas] [--engines vllm,sglang] [--scenarios a,b]
       [--budget-s 540] [--dry-run]"""

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
ENV = {"VLLM_USE_FLASHINFER_SAMPLER": "0", "PYTHONUNBUFFERED": "1"}


def plan(carry: Path, out: Path, engines: list[str], scenarios: list[str]) -> list[tuple[str, list[str], dict]]:
    """(label, command, extra environment) in the order they run."""
    wheels = sorted(str(p) for p in (carry / "wheels").glob("*.whl")) or [str(carry / "wheels" / "*.whl")]
    steps = [
        ("land the engines", ["bash", ".gpu/device_run.sh"], {}),
        (
            "install atlas",
            [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--target", ATLAS_SITE, *wheels],
            {},
        ),
    ]
    for engine in engines:
        env = {**ENV, "PYTHONPATH": f"{ATLAS_SITE}:{SITES[engine]}"}
        base = [sys.executable, "-m", "atlas", "trace", "--framework", engine, "--device", "cuda", "--kernels"]
        base += ["--bundle", str(carry / "bundle"), "--python", sys.executable, "--format", "json"]
        steps.append((f"{engine} trace", [*base, "--out", str(out / engine / "trace")], env))
        for name in scenarios:
            steps.append((f"{engine} {name}", [*base, "--scenario", name, "--out", str(out / engine / name)], env))
    return steps


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--carry", type=Path, default=Path(".carry_atlas"))
    ap.add_argument("--engines", default="vllm,sglang")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--budget-s", type=float, default=540.0, help="stop starting commands after this many seconds")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    a = ap.parse_args()
    out = Path(os.environ.get("OUT", "/tmp/out"))
    steps = plan(a.carry, out, a.engines.split(","), [s for s in a.scenarios.split(",") if s])
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
        log = out / "logs" / f"{label.replace(' ', '-')}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "w") as f:
            try:
                done = subprocess.run(
                    command, env={**os.environ, **env}, stdout=f, stderr=subprocess.STDOUT, timeout=left
                )
                print(f"[{label}] exit {done.returncode} after {time.monotonic() - start:.0f} s", flush=True)
            except subprocess.TimeoutExpired:
                print(f"[{label}] stopped at the budget", flush=True)
    if not a.dry_run:
        for shards in out.rglob("shards"):
            subprocess.run(["rm", "-rf", str(shards)], check=False)


if __name__ == "__main__":
    main()
