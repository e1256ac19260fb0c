"""Where call resolution's time goes, round by round, in one process: per round the statements run, their CPU
seconds, and how many of those runs wrote nothing new (no cell grew), with the seconds they took.

Usage: ATLAS_MIRROR=... python benchmarks/graph_rounds.py [--rounds N] [--pins SET] [FRAMEWORK ...]
By default as many rounds as builds run (atlas.graph.store.ROUNDS); `--rounds 64` shows what later rounds add (edge
lines per round) and what they cost, up to the fixpoint. The rounds are run by this script's copy of Solver.solve's
loop (atlas.graph.resolve.solver), so that each statement can be timed; the script then checks that the edges and
call sites it got are those of Solver.solve() on the same facts, and exits 1 if not."""

from __future__ import annotations

import argparse
import gc
import sys
import time

from atlas.env import settings as load_settings
from atlas.graph import components
from atlas.graph.resolve import Solver, dispatch, statements
from atlas.graph.resolve.rules import load as load_rules
from atlas.graph.store import ROUNDS
from atlas.parse.python import extract_packed, module_name, parser, unpack
from atlas.sources import analysed_files, load_all, locate


def facts_of(settings, manifest, pin_set: str) -> list:
    checkout = locate(manifest, pin_set, settings)
    ts = parser()
    tag = lambda sid: components.component_of(manifest.name, sid)  # noqa: E731
    out = []
    for path, _ in analysed_files(manifest, checkout, (".py",)):
        data = (checkout.path / path).read_bytes()
        out.append(unpack(extract_packed(data, path, *module_name(path, manifest.package_root), ts.parse(data)), tag))
    return out


def timed_rounds(solver: Solver) -> list[tuple[int, float, int, float, int]]:
    """Solver.solve's rounds, each statement timed: per round (runs, seconds, runs that wrote nothing, their
    seconds, edge lines found so far)."""
    plan = solver.plan()
    cells = solver.cells
    stale = cells.stale = bytearray(b"\x01") * len(plan)
    clock = time.process_time
    rows = []
    for n in range(1, solver.max_rounds + 1):
        cells.changed = False
        runs = idle = 0
        seconds = idle_seconds = 0.0
        i = stale.find(1)
        while i >= 0:
            stale[i] = 0
            cells.reader = i
            scope, caller, step = plan[i]
            before = cells.num_changes
            t = clock()
            statements.run(solver, scope, caller, step)
            dt = clock() - t
            solver.num_evaluated += 1
            runs += 1
            seconds += dt
            if cells.num_changes == before:
                idle += 1
                idle_seconds += dt
            i = stale.find(1, i + 1)
        solver.out.rounds = n
        rows.append((runs, seconds, idle, idle_seconds, sum(len(lines) for lines in solver.out.edges.values())))
        if not cells.changed and stale.find(1) < 0:
            solver.out.reached_fixpoint = True
            break
    dispatch.link_by_name(solver)
    return rows


def main() -> int:
    gc.disable()  # as a build runs (atlas.graph.build.gc_paused)
    parser_ = argparse.ArgumentParser()
    parser_.add_argument("--rounds", type=int, default=ROUNDS)
    parser_.add_argument("--pins", default="default")
    parser_.add_argument("frameworks", nargs="*")
    args = parser_.parse_args()
    settings = load_settings()
    ok = True
    for manifest in load_all(settings.root, args.frameworks or None):
        facts = facts_of(settings, manifest, args.pins)
        rules = load_rules(components.rules_path(manifest.name))
        solver = Solver(facts, pycg=False, max_rounds=args.rounds, rules=rules)
        rows = timed_rounds(solver)
        print(
            f"{manifest.name}: {sum(len(s.steps) for f in facts for s in f.scopes)} statements, "
            f"{'fixpoint' if solver.out.reached_fixpoint else 'stopped'} after {solver.out.rounds} rounds"
        )
        for n, (runs, seconds, idle, idle_seconds, lines) in enumerate(rows, 1):
            print(
                f"  round {n}: {runs} runs, {seconds:.2f} s CPU; {idle} wrote nothing new ({idle_seconds:.2f} s); "
                f"{lines} edge lines so far"
            )
        later = rows[1:]
        print(
            f"  rounds 2-{len(rows)}: {sum(r[0] for r in later)} runs, {sum(r[1] for r in later):.2f} s; "
            f"{sum(r[2] for r in later)} wrote nothing new ({sum(r[3] for r in later):.2f} s)"
        )
        reference = Solver(facts, pycg=False, max_rounds=args.rounds, rules=rules).solve()
        same = reference.edges == solver.out.edges and reference.sites == solver.out.sites
        print(f"  same edges and sites as Solver.solve(): {'yes' if same else 'NO'}")
        ok &= same
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
