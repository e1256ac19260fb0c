"""What holding checkouts to their commit costs a warm `atlas show` (target < 0.5 s): runs of the real command
interleaved with runs of the same command with the check left out (the only difference), then the check alone on
the checkout. Prints medians, the difference and the ratio with their spread (the quartiles over pairs of runs).

    python benchmarks/bench_verify.py [--runs 15] [--framework vllm] [--symbol Scheduler.schedule]

Run from the project root with ATLAS_MIRROR set and the framework synced and indexed (`atlas index FRAMEWORK`); the
check writes nothing to the cache (git's optional index refresh is off for readers)."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UNCHECKED = (  # the same command, with the checkout check left out
    "import sys; import atlas.sources.checkouts as c; c.verify = lambda *a, **k: None; "
    "sys.argv = ['atlas', *sys.argv[1:]]; from atlas.__main__ import run; run()"
)


def timed(command: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def quartiles(values: list[float]) -> tuple[float, float, float]:
    q1, q2, q3 = statistics.quantiles(values, n=4)
    return q1, q2, q3


def check_alone(framework: str, runs: int) -> list[float]:
    """Seconds of the check itself (one `git status` over the checkout), in this process."""
    sys.path.insert(0, str(ROOT))
    from atlas.env import settings
    from atlas.sources import load_all, locate
    from atlas.sources.checkouts import damage

    (manifest,) = load_all(settings().root, [framework])
    checkout = locate(manifest, "default", settings())
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        assert not damage(checkout.path, checkout.pin.commit)
        seconds.append(time.perf_counter() - start)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--framework", default="vllm")
    parser.add_argument("--symbol", default="Scheduler.schedule")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    verb = ["show", args.symbol, "--framework", args.framework]
    checked_cmd = [sys.executable, "-m", "atlas", *verb]
    unchecked_cmd = [sys.executable, "-c", UNCHECKED, *verb]
    timed(checked_cmd, env)  # warm: the graph is loaded from the build folder, files are in the page cache
    timed(unchecked_cmd, env)
    checked, unchecked = [], []
    for number in range(args.runs):  # interleaved, in alternating order: drift on the machine hits both alike
        pair = [(checked, checked_cmd), (unchecked, unchecked_cmd)]
        for into, command in pair if number % 2 == 0 else reversed(pair):
            into.append(timed(command, env))
    differences = [a - b for a, b in zip(checked, unchecked)]
    ratios = [a / b for a, b in zip(checked, unchecked)]
    alone = check_alone(args.framework, args.runs)
    print(f"warm `atlas {' '.join(verb)}`, {args.runs} interleaved pairs (quartiles: q1 / median / q3)")
    print("  with the checkout check:    {:.3f} / {:.3f} / {:.3f} s".format(*quartiles(checked)))
    print("  without it:                 {:.3f} / {:.3f} / {:.3f} s".format(*quartiles(unchecked)))
    print("  difference per pair:        {:+.3f} / {:+.3f} / {:+.3f} s".format(*quartiles(differences)))
    print("  ratio per pair:             {:.3f} / {:.3f} / {:.3f}".format(*quartiles(ratios)))
    q1, median, q3 = quartiles(alone)
    print(f"the check alone (git status): {q1:.3f} / {median:.3f} / {q3:.3f} s   (target < 0.5 s)")


if __name__ == "__main__":
    main()
