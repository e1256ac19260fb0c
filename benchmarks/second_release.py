"""A second release of a tree, indexed after the first: what the parse cache shared across releases saves.

The parse cache (atlas.graph.packs, `<build>/pyfacts/`) holds each file's facts under its git blob and module, for
every tree the build folder indexed: a second release of a framework parses only the files whose content changed
since a release already indexed. This script times `atlas index FRAMEWORK --pins SECOND` (a fresh interpreter, as a
user runs it) in a scratch build folder where the FIRST pins are indexed, against the same command with the parse
cache emptied first (every file parsed), runs interleaved; prints the median wall time of each with its spread, the
files parsed, the build's stage timings (parse and decode: wall seconds of the resolving process; resolve and
kernels: its CPU seconds) and the ratio.

Usage: ATLAS_MIRROR=... python benchmarks/second_release.py [FRAMEWORK] [--first default] [--second latest]
       [--runs 3] [--build DIR]
Runs whatever atlas this interpreter imports (PYTHONPATH: a source checkout or an unpacked mypyc wheel)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from atlas.env import settings as load_settings
from atlas.graph.build import folder
from atlas.graph.parsing import cache
from atlas.sources import load_all, locate


def index(root: Path, build: Path, framework: str, pin_set: str) -> tuple[float, dict]:
    """Wall seconds of `atlas index FRAMEWORK --pins PIN_SET` in a fresh interpreter (run in the build folder, so
    that the atlas it imports is PYTHONPATH's), and its report row."""
    env = {**os.environ, "ATLAS_BUILD": str(build), "ATLAS_ROOT": str(root)}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "atlas", "index", framework, "--pins", pin_set, "--format", "json"],
        env=env,
        cwd=build,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"atlas index {framework} --pins {pin_set} failed:\n{done.stderr[-2000:]}")
    return seconds, json.loads(done.stdout)[0]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("framework", nargs="?", default="sglang")
    p.add_argument("--first", default="default")
    p.add_argument("--second", default="latest")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--build", type=Path, help="scratch build folder (default: <build>/bench-second-release)")
    args = p.parse_args(argv)
    settings = load_settings()
    build = args.build or settings.build / "bench-second-release"
    (manifest,) = load_all(settings.root, [args.framework])
    second_graph = folder(
        replace(settings, build=build), args.framework, locate(manifest, args.second, settings).pin.commit
    )
    packs = cache(build).folder
    build.mkdir(parents=True, exist_ok=True)
    print(f"indexing {args.framework} --pins {args.first} into {build} ...", file=sys.stderr)
    index(settings.root, build, args.framework, args.first)
    first_packs = {path.name for path in packs.glob("*.pack")}
    aside = packs.with_name(packs.name + ".aside")

    def reset(shared: bool) -> None:
        shutil.rmtree(second_graph, ignore_errors=True)
        for path in packs.glob("*.pack"):
            if path.name not in first_packs:
                path.unlink()
        if not shared:
            packs.rename(aside)

    def restore() -> None:
        if aside.exists():
            shutil.rmtree(packs, ignore_errors=True)
            aside.rename(packs)

    results: dict[str, list[tuple[float, dict]]] = {"after the first": [], "alone": []}
    try:
        for n in range(args.runs):
            for variant in results:
                reset(variant == "after the first")
                try:
                    results[variant].append(index(settings.root, build, args.framework, args.second))
                finally:
                    restore()
                seconds, row = results[variant][-1]
                print(f"run {n + 1} {variant:16} {seconds:7.1f}s  {row['parsed']} files parsed", file=sys.stderr)
    finally:
        restore()
    print(f"atlas index {args.framework} --pins {args.second} ({args.runs} interleaved runs, wall seconds):")
    medians = {}
    for variant, runs in results.items():
        times = [t for t, _ in runs]
        medians[variant] = statistics.median(times)
        row = runs[-1][1]
        stages = ", ".join(f"{k} {v:.1f}" for k, v in sorted(row.get("timings", {}).items()))
        print(
            f"  {variant:16} median {medians[variant]:6.1f}s  (min {min(times):.1f}, max {max(times):.1f})  "
            f"{row['parsed']} of {row['files']} files parsed  [{stages}]"
        )
    ratios = [a[0] / b[0] for a, b in zip(results["alone"], results["after the first"])]
    print(f"  alone / after the first: {statistics.median(ratios):.2f}x (min {min(ratios):.2f}, max {max(ratios):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
