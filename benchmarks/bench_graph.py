"""Speed, memory and resolution figures of the Python index and call graph (issue 3's targets).

Usage: ATLAS_MIRROR=... python benchmarks/bench_graph.py [--pins default|latest] [FRAMEWORK ...]
Prints: cold build of the trees into a fresh build folder (atlas.graph.build_many: a process per tree, forked at the
start, each parsing its own files and its share of the others', atlas.graph.schedule; --sequential builds one tree
after another), wall and CPU seconds, per tree the stages of its owner (parse of its own share, decode of the shares
parsed elsewhere, resolve, kernels: its own C++ files and the layer's join, store), tree-sitter alone parsing the
same files in one process,
their ratio (target <= 2), the rebuild with nothing changed (target < 3 s), peak RSS of this process and its workers
(target < 4 GiB), warm load times, call sites resolved per component, and the share of same-framework call sites
resolved in the scheduler, KV-cache, model-runner and engine-core modules (target >= 90%).
Do not edit atlas/graph or atlas/parse/python while it runs: the rebuild would then rightly rebuild everything."""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from atlas.env import settings as load_settings
from atlas.graph import build, build_many, load_graph, load_index
from atlas.parse.python import parser
from atlas.sources import analysed_files, load_all, locate

CORE = ("scheduler", "KV-cache manager", "model runner", "engine core")


def tree_sitter_alone(root: Path, files: list[tuple[str, str]]) -> tuple[float, int]:
    """Seconds to read and parse `files` in this process, the page cache warmed first (as it is for the build,
    which reads the same files right after: a cold read here would flatter the ratio)."""
    for path, _ in files:
        (root / path).read_bytes()
    p = parser()
    lines = 0
    start = time.perf_counter()
    for path, _ in files:
        data = (root / path).read_bytes()
        lines += data.count(b"\n")
        p.parse(data)
    return time.perf_counter() - start, lines


def cpu_seconds() -> float:
    """User + system CPU of this process and of its children that have ended (workers, forked resolvers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def peak_rss_gib() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    return own, children


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("frameworks", nargs="*")
    ap.add_argument("--pins", default="default")
    ap.add_argument("--sequential", action="store_true", help="build one tree after another (atlas.graph.build)")
    args = ap.parse_args()
    settings = load_settings()
    manifests = load_all(settings.root, args.frameworks or None)
    ok = True
    with tempfile.TemporaryDirectory(prefix="atlas-bench-") as tmp:
        fresh = replace(settings, build=Path(tmp))
        parse_alone = parse_alone_cpu = 0.0
        sizes = {}
        for m in manifests:
            checkout = locate(m, args.pins, settings)
            files = analysed_files(m, checkout, (".py",))
            cpu = time.process_time()
            seconds, lines = tree_sitter_alone(checkout.path, files)
            parse_alone_cpu += time.process_time() - cpu
            parse_alone += seconds
            sizes[m.name] = (len(files), lines, seconds)
        cpu = cpu_seconds()
        start = time.perf_counter()
        if args.sequential:
            reports = [build(fresh, m.name, args.pins) for m in manifests]
        else:
            reports = build_many(fresh, [m.name for m in manifests], args.pins)
        cold = time.perf_counter() - start
        cold_cpu = cpu_seconds() - cpu
        for m, report in zip(manifests, reports):
            num_files, lines, seconds = sizes[m.name]
            t = {k: round(v, 1) for k, v in report.timings.items()}
            print(
                f"{m.name} {report.ref}: {num_files} files, {lines / 1e6:.2f} M lines; tree-sitter alone "
                f"{seconds:.1f} s; built {report.seconds:.1f} s after the start {t}"
            )
        ratio = cold / parse_alone
        how = "one tree after another" if args.sequential else "a process per tree (build_many)"
        print(
            f"cold build, all trees ({how}): {cold:.1f} s wall, {cold_cpu:.1f} s CPU in all processes; "
            f"tree-sitter alone, one process: {parse_alone:.1f} s wall, {parse_alone_cpu:.1f} s CPU; "
            f"ratio {ratio:.2f} (target <= 2.0), CPU ratio {cold_cpu / parse_alone_cpu:.2f}"
        )
        ok &= ratio <= 2.0
        start = time.perf_counter()
        for m in manifests:
            build(fresh, m.name, args.pins)
        warm = time.perf_counter() - start
        print(f"rebuild with nothing changed: {warm:.2f} s (target < 3 s)")
        ok &= warm < 3.0
        for m in manifests:
            start = time.perf_counter()
            index = load_index(fresh, m.name, args.pins, on_demand=False)
            loaded_index = time.perf_counter() - start
            g = load_graph(fresh, m.name, args.pins, on_demand=False)
            callees = g.callees((index.find("Scheduler.schedule") or [next(iter(index.symbols))])[0])
            print(
                f"{m.name}: warm load_index {loaded_index:.2f} s; load_graph + one callees query (what `atlas show` "
                f"reads) {time.perf_counter() - start - loaded_index:.2f} s ({len(callees)} callees)"
            )
            ok &= report_resolution(g)
    import atlas.graph.resolve.solver as solver

    print(f"walker and resolver: {'mypyc-compiled' if not solver.__file__.endswith('.py') else 'Python sources'}")
    own, children = peak_rss_gib()
    print(f"peak RSS: this process {own:.2f} GiB, largest worker {children:.2f} GiB (target < 4 GiB)")
    ok &= max(own, children) < 4.0
    print("targets:", "met" if ok else "NOT all met")
    return 0 if ok else 1


def report_resolution(g) -> bool:
    stats = g.stats
    print(
        f"{g.pin.framework} {g.pin.ref}: {stats['num_resolved']}/{stats['num_sites']} call sites resolved "
        f"({stats['num_resolved'] / max(stats['num_sites'], 1):.1%}), {g.graph.number_of_edges()} edges "
        f"{stats['num_edges']}, {len(g.unresolved)} unresolved kept, {stats['rounds']} rounds"
    )
    for comp, row in sorted(stats["per_component"].items()):
        total = sum(row.values())
        resolved = total - row["unresolved"]
        print(f"  {comp:22} {resolved:7}/{total:<7} resolved ({resolved / max(total, 1):.1%})")
    resolved = missed = 0
    for comp in CORE:
        row = stats["internal"].get(comp, {"resolved": 0, "missed": 0})
        resolved += row["resolved"]
        missed += row["missed"]
        print(
            f"  same-framework callees, {comp:18} {row['resolved']}/{row['resolved'] + row['missed']} "
            f"({row['resolved'] / max(row['resolved'] + row['missed'], 1):.1%})"
        )
    share = resolved / max(resolved + missed, 1)
    print(f"  same-framework callees resolved in {', '.join(CORE)}: {share:.1%} (target >= 90%)")
    return share >= 0.9


if __name__ == "__main__":
    sys.exit(main())
