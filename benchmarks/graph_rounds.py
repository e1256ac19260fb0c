"""Where call resolution's time goes, round by round, in one process: per round the statements run, their CPU
seconds, and how many of those runs wrote nothing new (no cell grew), with the seconds they took.

Usage: ATLAS_MIRROR=... python benchmarks/graph_rounds.py [FRAMEWORK ...]
The rounds are run by this script's copy of Solver.solve's loop (atlas.graph.resolve.solver), so that each statement
can be timed; the script then checks that the edges and call sites it got are those of Solver.solve() on the same
facts, and exits 1 if not."""

from __future__ import annotations

import gc
import sys
import time

from atlas.env import settings as load_settings
from atlas.graph import components
from atlas.graph.resolve import Solver
from atlas.graph.resolve.rules import load as load_rules
from atlas.parse.python import extract_packed, module_name, parser, unpack
from atlas.sources import analysed_files, load_all, locate

MAX_ROUNDS = 4  # as atlas.graph.store.assemble resolves


def facts_of(settings, manifest) -> list:
    checkout = locate(manifest, "default", settings)
    ts = parser()
    tag = lambda sid: components.component_of(manifest.name, sid)  # noqa: E731
    out = []
    for path, _ in analysed_files(manifest, checkout, (".py",)):
        data = (checkout.path / path).read_bytes()
        out.append(unpack(extract_packed(data, path, *module_name(path, manifest.package_root), ts.parse(data)), tag))
    return out


def timed_rounds(solver: Solver) -> list[tuple[int, float, int, float]]:
    """Solver.solve's rounds, each statement timed: per round (runs, seconds, runs that wrote nothing, their
    seconds)."""
    plan = solver.plan()
    stale = solver.stale = bytearray(b"\x01") * len(plan)
    clock = time.process_time
    rows = []
    for n in range(1, solver.max_rounds + 1):
        solver.changed = False
        runs = idle = 0
        seconds = idle_seconds = 0.0
        i = stale.find(1)
        while i >= 0:
            stale[i] = 0
            solver.reader = i
            scope, caller, stmt = plan[i]
            before = solver.num_changes
            t = clock()
            solver.statement(scope, caller, stmt)
            dt = clock() - t
            solver.num_evaluated += 1
            runs += 1
            seconds += dt
            if solver.num_changes == before:
                idle += 1
                idle_seconds += dt
            i = stale.find(1, i + 1)
        solver.out.rounds = n
        rows.append((runs, seconds, idle, idle_seconds))
        if not solver.changed:
            break
    solver.dispatch_by_name()
    return rows


def main() -> int:
    gc.disable()  # as a build runs (atlas.graph.build.gc_paused)
    settings = load_settings()
    ok = True
    for manifest in load_all(settings.root, sys.argv[1:] or None):
        facts = facts_of(settings, manifest)
        rules = load_rules(components.rules_path(manifest.name))
        solver = Solver(facts, pycg=False, max_rounds=MAX_ROUNDS, rules=rules)
        rows = timed_rounds(solver)
        print(f"{manifest.name}: {sum(len(s.statements) for f in facts for s in f.scopes)} statements")
        for n, (runs, seconds, idle, idle_seconds) in enumerate(rows, 1):
            print(f"  round {n}: {runs} runs, {seconds:.2f} s CPU; {idle} wrote nothing new ({idle_seconds:.2f} s)")
        later = rows[1:]
        print(f"  rounds 2-{len(rows)}: {sum(r[0] for r in later)} runs, {sum(r[1] for r in later):.2f} s; "
              f"{sum(r[2] for r in later)} wrote nothing new ({sum(r[3] for r in later):.2f} s)")
        reference = Solver(facts, pycg=False, max_rounds=MAX_ROUNDS, rules=rules).solve()
        same = reference.edges == solver.out.edges and reference.sites == solver.out.sites
        print(f"  same edges and sites as Solver.solve(): {'yes' if same else 'NO'}")
        ok &= same
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
