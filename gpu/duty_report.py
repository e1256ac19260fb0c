"""The duty-cycled figures of H200 calls (gpu/prepare.py --ab / --ab-only): for each tarball of
gpu/run_on_device.sh and each engine job in it, per phase and probe state the on/off ratio of neighbouring windows
(median with its bootstrap 95% interval, geometric mean, pooled), the probe's own time per step on the engine
thread (windows of probes that record it) and the step time (atlas.runtime.cost.duty_summary).
usage: python gpu/duty_report.py [--json OUT.json] NAME=TARBALL [NAME=TARBALL ...]"""

from __future__ import annotations

import argparse
import json
import tarfile
import tempfile
from pathlib import Path

from atlas.runtime import cost


def report(tarball: Path) -> dict:
    """job -> 'PHASE: STATE' -> duty figures."""
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(tarball) as tar:
        tar.extractall(tmp, filter="data")
        return {
            job.name: cost.duty_summary(cost.load(job / "shards"))
            for job in sorted(Path(tmp, "trace").iterdir())
            if (job / "shards").is_dir()
        }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+", help="NAME=TARBALL")
    ap.add_argument("--json", type=Path, help="also write every figure here")
    a = ap.parse_args()
    out = {}
    for run in a.runs:
        name, _, path = run.partition("=")
        out[name] = report(Path(path))
        for job, states in out[name].items():
            for state, f in states.items():
                own = f" own {f['own_us_per_step']} us of {f['step_us']} us a step" if "own_us_per_step" in f else ""
                print(
                    f"{name} {job} {state}: median {f['median']} [{f['ci95'][0]}, {f['ci95'][1]}] geomean "
                    f"{f['geomean']} pooled {f['pooled']} ({f['pairs']} pairs){own}"
                )
    if a.json:
        a.json.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
