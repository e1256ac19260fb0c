"""`atlas check` speed: load annotations (cold: no per-file cache; warm: cached), load the index of each pin
(warm: already built), resolve every anchor and piece of evidence. Prints seconds per stage. Target: a warm check
under 5 s. `--alias-uses N` adds an annotation file whose list of 50 real vLLM evidence items is used N times through
a YAML alias (N=400: 20,000 items), as a user might write it. Run: python benchmarks/bench_check.py [--pins default]
[--alias-uses 400]"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from atlas.annotate import check, load_annotations
from atlas.env import Settings
from atlas.env import settings as load_settings
from atlas.graph import load_index


def with_aliased_file(settings: Settings, tmp: Path, uses: int) -> Settings:
    """A copy of the project's annotations (and its manifests) in `tmp`, plus one file whose 50 evidence items,
    taken from the vLLM annotations, are used `uses` times through a YAML alias."""
    root = tmp / "project"
    shutil.copytree(settings.root / "annotations", root / "annotations")
    (root / "pinned_sources").symlink_to(settings.root / "pinned_sources")
    items = [
        (a.symbol, e.symbol, e.pattern)
        for a in load_annotations(settings.root, framework="vllm")
        for c in a.claims
        for e in c.evidence
        if e.pattern and not e.at and not e.is_absent
    ][:50]
    listed = "\n".join(f"          - {{symbol: {symbol}, pattern: {pattern!r}}}" for _, symbol, pattern in items)
    claims = "".join(
        f"      - id: c{i}\n        article: a\n        claim: c\n        verdict: holds\n        evidence: "
        + ("&items\n" + listed if i == 0 else "*items")
        + "\n"
        for i in range(uses)
    )
    (root / "annotations" / "vllm" / "zz-aliased.yaml").write_text(
        f"schema: 1\nframework: vllm\nannotations:\n  - id: vllm.continuous-batching.aliased\n"
        f"    mechanism: continuous-batching\n    symbol: {items[0][0]}\n    role: plan\n    summary: s\n"
        f"    claims:\n{claims}"
    )
    return Settings(root, settings.cache, settings.mirror, settings.build)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pins", default="default")
    parser.add_argument("--alias-uses", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings()
        if args.alias_uses:
            settings = with_aliased_file(settings, Path(tmp), args.alias_uses)
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
