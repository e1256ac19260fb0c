"""atlas diff target (issue 6): with both pins built, a diff takes under 10 s. Prints the time of each stage and the
whole `atlas diff` command for the four bumps the issue names. Builds the graphs first if they are missing (that
time is not counted). Run from the project root with ATLAS_MIRROR set:  python benchmarks/bench_diff.py"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from atlas.annotate import load_annotations
from atlas.diff.annotations import annotation_statuses
from atlas.diff.calls import call_changes, registration_changes
from atlas.diff.symbols import symbol_changes
from atlas.env import settings as load_settings
from atlas.graph import Index, load_graph
from atlas.model import ChangeKind
from atlas.sources import analysed_files, load_all, sync_ref

BUMPS = [
    ("vllm", "v0.26.0", "v0.33.0"),
    ("vllm", "v0.32.0", "v0.33.0"),
    ("sglang", "v0.5.17", "v0.5.23"),
    ("sglang", "v0.5.22", "v0.5.23"),
]


def stages(settings, framework: str, old: str, new: str) -> dict[str, float]:
    (manifest,) = load_all(settings.root, [framework])
    clock, out = time.perf_counter(), {}

    def lap(name):
        nonlocal clock
        now = time.perf_counter()
        out[name] = now - clock
        clock = now

    old_co, new_co = sync_ref(manifest, old, settings), sync_ref(manifest, new, settings)
    old_files = dict(analysed_files(manifest, old_co, (".py",)))
    new_files = dict(analysed_files(manifest, new_co, (".py",)))
    same = {p for p, blob in old_files.items() if new_files.get(p) == blob}
    lap("sync + list files")
    g, h = load_graph(settings, framework, old_co.pin_set), load_graph(settings, framework, new_co.pin_set)
    a, b = Index(old_co.pin, old_co.path, g.symbols), Index(new_co.pin, new_co.path, h.symbols)
    lap("load graphs")
    changes = list(symbol_changes(a, b, same))
    lap("symbol changes")
    renames = {c.symbol: c.new_symbol for c in changes if c.kind in (ChangeKind.RENAMED, ChangeKind.MOVED)}
    changes += call_changes(g, h, renames)
    changes += registration_changes(g, h)
    lap("call + registration changes")
    annotations = load_annotations(settings.root, framework, cache=settings.build / "annotations.pickle")
    list(annotation_statuses(annotations, b, changes))
    lap("annotation status")
    out["files differing"] = len(set(old_files) ^ set(new_files)) + sum(
        1 for p in old_files.keys() & new_files.keys() if p not in same
    )
    return out


def main() -> None:
    settings = load_settings()
    atlas = str(Path(sys.executable).with_name("atlas"))
    print(f"{'bump':34} {'atlas diff (s)':>14}   stages (s)")
    for framework, old, new in BUMPS:
        subprocess.run(
            [atlas, "diff", framework, old, new, "--format", "json"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=os.environ,
        )  # builds what is missing, uncounted
        start = time.perf_counter()
        subprocess.run(
            [atlas, "diff", framework, old, new, "--format", "json"], stdout=subprocess.DEVNULL, env=os.environ
        )
        whole = time.perf_counter() - start
        split = stages(settings, framework, old, new)
        detail = ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in split.items())
        print(f"{framework + ' ' + old + ' -> ' + new:34} {whole:14.2f}   {detail}")
    print("target: under 10 s per diff with both pins built")


if __name__ == "__main__":
    main()
