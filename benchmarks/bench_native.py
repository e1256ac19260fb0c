"""The native parts against the Python code they stand in for, in one process: the walker in C against the Python
walker (mypyc-compiled when built) and the C++ resolver against Solver, on every file of the pinned trees; CPU
seconds of each and whether the results are the same.

Usage: ATLAS_MIRROR=... python benchmarks/bench_native.py [--pins default,latest] [--seeds N] [FRAMEWORK ...]
Prints per tree the facts that differ (none expected) and the edge lines found by one resolver only, split into those
whose callee is in the tree and those to a name outside it. Solver's own edges can vary with the interpreter's hash
seed where rounds stop before a fixpoint (set iteration order decides what a statement sees, and an edge found from a
passing state stays; see atlas.graph.resolve.native); --seeds N resolves N more times in fresh interpreters with
other PYTHONHASHSEEDs and prints how much. Exits 1 when facts, call sites, bases or an in-tree edge differ."""

from __future__ import annotations

import argparse
import gc
import os
import pickle
import subprocess
import sys
import tempfile
import time

from atlas.env import settings as load_settings
from atlas.graph import components
from atlas.graph.resolve import NativeSolver, Solver
from atlas.graph.resolve.rules import load as load_rules
from atlas.parse.python import compiled, module_name, parser, unpack
from atlas.parse.python.extract import walk_packed
from atlas.sources import analysed_files, load_all, locate


def walked(manifest, checkout) -> tuple[list, float, float, int]:
    """(packed facts, CPU seconds of the Python walker, of the C walker, files whose facts differ)."""
    walker, ts = compiled.native_walker(), parser()
    facts, python_s, native_s, differ = [], 0.0, 0.0, 0
    for path, _ in analysed_files(manifest, checkout, (".py",)):
        source = (checkout.path / path).read_bytes()
        module, is_package = module_name(path, manifest.package_root)
        tree = ts.parse(source)
        t = time.process_time()
        python = walk_packed(source, path, module, is_package, tree)
        python_s += time.process_time() - t
        t = time.process_time()
        native = walker.extract_packed(source, path, module, is_package, tree)
        native_s += time.process_time() - t
        differ += python != native
        facts.append(native)
    return facts, python_s, native_s, differ


def edge_set(resolution) -> set:
    return {(caller, callee, line, p.value) for (caller, callee), lines in resolution.edges.items()
            for line, p in lines.items()}


def python_resolution(framework: str, facts_file: str, seed: int) -> set:
    """The Python resolver's edges in a fresh interpreter with PYTHONHASHSEED=seed."""
    code = (f"import pickle, sys; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); "
            f"import bench_native as b; sys.stdout.buffer.write(pickle.dumps(b.resolve_python({framework!r}, "
            f"{facts_file!r})))")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": str(seed)},
                         capture_output=True, check=True)
    return pickle.loads(out.stdout)


def resolve_python(framework: str, facts_file: str) -> set:
    with open(facts_file, "rb") as f:
        facts = [unpack(p) for p in pickle.load(f)]
    return edge_set(Solver(facts, pycg=False, max_rounds=4, rules=load_rules(components.rules_path(framework)))
                    .solve())


def split(edges: set, symbols: set) -> str:
    inside = sum(1 for _, callee, _, _ in edges if callee in symbols)
    return f"{len(edges)} ({inside} to the tree's symbols, {len(edges) - inside} to names outside it)"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("frameworks", nargs="*")
    ap.add_argument("--pins", default="default")
    ap.add_argument("--seeds", type=int, default=0)
    args = ap.parse_args()
    if not (compiled.native_walker() and compiled.native_solver()):
        print("the native parts are not built: run `python scripts/compile.py`", file=sys.stderr)
        return 2
    gc.disable()  # as a build runs (atlas.graph.build.gc_paused)
    settings, ok = load_settings(), True
    print(f"Python walker and resolver: {'mypyc-compiled' if compiled.is_compiled() else 'the Python source'}")
    for pin_set in args.pins.split(","):
        for manifest in load_all(settings.root, args.frameworks or None):
            checkout = locate(manifest, pin_set, settings)
            packed, python_walk, native_walk, differ = walked(manifest, checkout)
            print(f"{manifest.name} {checkout.pin.ref}: {len(packed)} files; walk: Python {python_walk:.2f} s, "
                  f"C {native_walk:.2f} s ({python_walk / native_walk:.1f}x); {differ} files' facts differ")
            ok &= differ == 0
            facts = [unpack(p, lambda sid: components.component_of(manifest.name, sid)) for p in packed]
            symbols = {sym.id for f in facts for sym in f.symbols}
            rules = load_rules(components.rules_path(manifest.name))
            t = time.process_time()
            python_solver = Solver(facts, pycg=False, max_rounds=4, rules=rules)
            python_result = python_solver.solve()
            python_s = time.process_time() - t
            t = time.process_time()
            native_solver = NativeSolver(compiled.native_solver(), facts, 4, rules=rules)
            native_result = native_solver.solve()
            native_s = time.process_time() - t
            python, native = edge_set(python_result), edge_set(native_result)
            stages = ", ".join(f"{k} {v:.2f}" for k, v in native_solver.timings.items())
            same_rest = python_result.sites == native_result.sites and python_solver.bases == native_solver.bases
            print(f"  resolve: Python {python_s:.2f} s, C++ {native_s:.2f} s ({python_s / native_s:.1f}x; {stages}); "
                  f"{len(python)} edge lines; only in Python's {split(python - native, symbols)}; only in C++'s "
                  f"{split(native - python, symbols)}; call sites and bases {'the same' if same_rest else 'DIFFER'}")
            ok &= same_rest and all(callee not in symbols for _, callee, _, _ in python ^ native)
            if args.seeds:
                with tempfile.NamedTemporaryFile(suffix=".pickle") as f:
                    pickle.dump(packed, f)
                    f.flush()
                    runs = [python] + [python_resolution(manifest.name, f.name, seed) for seed in
                                       range(1, args.seeds + 1)]
                varying = set.union(*runs) - set.intersection(*runs)
                print(f"  Python over {len(runs)} hash seeds: {min(map(len, runs))}-{max(map(len, runs))} edge lines, "
                      f"{split(varying, symbols)} vary")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
