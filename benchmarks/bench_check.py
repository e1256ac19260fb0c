"""`atlas check` speed: load annotations (cold: no per-file cache; warm: cached), load the index of each pin
(warm: already built), resolve every anchor and piece of evidence. Prints seconds per stage. Target: a warm check
under 5 s. Run: python benchmarks/bench_check.py [--pins default]"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from atlas.annotate import check, load_annotations
from atlas.env import settings as load_settings
from atlas.graph import load_index


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pins", default="default")
    args = parser.parse_args()
    settings = load_settings()
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "annotations.pickle"
        t = time.perf_counter()
        annotations = load_annotations(settings.root, cache=cache)
        cold = time.perf_counter() - t
        t = time.perf_counter()
        load_annotations(settings.root, cache=cache)
        warm = time.perf_counter() - t
    print(f"annotations: {len(annotations)}  load cold {cold:.2f} s  load warm {warm:.2f} s")
    total = warm
    for framework in sorted({a.framework for a in annotations}):
        load_index(settings, framework, args.pins)  # build if missing; not timed
        t = time.perf_counter()
        index = load_index(settings, framework, args.pins)
        loaded = time.perf_counter() - t
        t = time.perf_counter()
        report = check(annotations, index)
        resolved = time.perf_counter() - t
        total += loaded + resolved
        print(
            f"{index.pin.key} ({index.pin.ref}): index load {loaded:.2f} s  resolve {resolved:.2f} s  "
            f"{len(report.resolutions)} annotations, {len(report.evidence)} evidence, "
            f"{len(report.findings)} findings"
        )
    print(f"warm check total (annotations + indexes + resolution): {total:.2f} s")


if __name__ == "__main__":
    main()
