"""Where call resolution's time goes, phase by phase and round by round, in one process: per round the statements
run, the cell changes they made, their CPU seconds and the plan's size (clones add statements as they are made);
then whether the fixpoint was reached, in how many rounds, and the edges found.

Usage: ATLAS_MIRROR=... python benchmarks/graph_rounds.py [--pins SET] [--max-rounds N] [FRAMEWORK ...]
The phases (atlas.graph.resolve.solver.Solver.solve): one round over the module and class bodies (the class
hierarchy), the rounds to the fixpoint, then the declaring phase's rounds (annotations where nothing flowed)."""

from __future__ import annotations

import argparse
import gc
import sys
import time

from atlas.env import settings as load_settings
from atlas.graph import components
from atlas.graph.resolve import Solver
from atlas.graph.resolve.limits import MAX_ROUNDS
from atlas.graph.resolve.rules import load as load_rules
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


def main() -> int:
    gc.disable()  # as a build runs (atlas.graph.build.gc_paused)
    parser_ = argparse.ArgumentParser()
    parser_.add_argument("--max-rounds", type=int, default=MAX_ROUNDS)
    parser_.add_argument("--pins", default="default")
    parser_.add_argument("frameworks", nargs="*")
    args = parser_.parse_args()
    settings = load_settings()
    for manifest in load_all(settings.root, args.frameworks or None):
        facts = facts_of(settings, manifest, args.pins)
        solver = Solver(facts, max_rounds=args.max_rounds, rules=load_rules(components.rules_path(manifest.name)))
        print(f"{manifest.name}: {sum(len(s.steps) for f in facts for s in f.scopes)} statements")
        clock = [time.process_time(), 0]
        start = clock[0]

        def on_round(n: int, changes: int, solver: Solver = solver, clock: list = clock) -> None:
            now = time.process_time()
            phase = "declaring" if solver.declaring else "flow"
            print(
                f"  {phase} round {n}: {solver.num_evaluated - clock[1]} runs, {changes} changes, "
                f"{now - clock[0]:.2f} s CPU, plan {len(solver.plan_steps)} statements"
            )
            clock[0], clock[1] = now, solver.num_evaluated

        out = solver.solve(on_round)
        lines = sum(len(v) for v in out.edges.values())
        print(
            f"  {'fixpoint' if out.reached_fixpoint else 'STOPPED before the fixpoint'} after {out.rounds} rounds, "
            f"{time.process_time() - start:.1f} s CPU, {solver.num_evaluated} statement runs, "
            f"{len(solver.roots)} contexts ({len(solver.origin)} cloned scopes), {lines} edge lines"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
