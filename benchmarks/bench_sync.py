"""Sync targets (issue 2): a cold `atlas sync` of both default pins from the mirror, then a second run with nothing
to do. Prints the figures; run from the project root:  python benchmarks/bench_sync.py [--mirror DIR]"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(cmd: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mirror", default=os.environ.get("ATLAS_MIRROR", "../shared/sources"))
    args = parser.parse_args()
    atlas = [str(Path(sys.executable).with_name("atlas"))]
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "ATLAS_CACHE": cache, "ATLAS_MIRROR": str(Path(args.mirror).resolve())}
        cold = timed([*atlas, "sync"], env)
        warm = [timed([*atlas, "sync"], env) for _ in range(3)]
    print(f"cold sync, both default pins: {cold:6.2f} s   (target < 120 s)")
    print(f"second sync (median of 3):   {sorted(warm)[1]:6.2f} s   (target < 2 s)")


if __name__ == "__main__":
    main()
