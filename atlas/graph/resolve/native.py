"""The call resolver in C++ (atlas/graph/resolve/cpp, the extension atlas.graph.resolve._solve, built by
scripts/compile.py): Solver's semantics for real code (pycg=False), several times faster. `make_solver` picks it when
it is built and current (atlas.parse.python.compiled.native_solver), else Solver; PyCG mode is Solver's alone.

Both give the same edges, call sites and bases wherever Solver's own result does not depend on the order it iterates
sets in. It can, when rounds stop before a fixpoint (`max_rounds`): which values a statement sees in its last round
may then depend on the order of the writes before it. Solver iterates in hash order, which varies with the
interpreter's hash seed; the C++ solver in an order of its own, the same on every run. Seen once so far, on SGLang
v0.5.23: Solver's edge lines vary by 14 of 339k between hash seeds, all to names outside the tree (ghost chains such
as `torch.nn.Module.forward_mode.is_idle`, found from a passing state and kept), and the C++ solver's lie within that
range; call sites and bases are the same (benchmarks/bench_native.py --seeds 2)."""

from __future__ import annotations

import builtins

from atlas.graph.mro import linearize
from atlas.graph.resolve.rules import DispatchRules
from atlas.graph.resolve.solver import Solver
from atlas.graph.resolve.state import Resolution
from atlas.graph.resolve.summaries import calls_parameters
from atlas.model import Provenance
from atlas.parse.python.compiled import native_solver
from atlas.parse.python.facts import ModuleFacts, pack_scopes

_BUILTINS = tuple(dir(builtins))
_PROVENANCES = (Provenance.STATIC, Provenance.LAUNCH, Provenance.TYPE_INFERRED, Provenance.STRING_DISPATCH,
                Provenance.DISPATCH)  # in the order of cpp/solver.h's Prov


class NativeSolver:
    """Solver's interface as atlas.graph.store.assemble uses it: `solve()` gives the Resolution; then `scopes`,
    `bases` and `mro(cls)`."""

    def __init__(self, module, facts: list[ModuleFacts], max_rounds: int = 30, cap: int = 48,
                 rules: DispatchRules = DispatchRules()):
        self._module = module
        self.max_rounds, self.cap, self.rules = max_rounds, cap, rules
        self.facts = facts
        self.scopes = {s.id: s for f in facts for s in f.scopes}
        self.bases: dict[str, tuple] = {}
        self.timings: dict[str, float] = {}  # seconds: reading the facts in, solving, writing the results out
        self._mro: dict[str, tuple[str, ...]] = {}

    def solve(self) -> Resolution:
        rows = [row for f in self.facts for row in pack_scopes(f.scopes)]
        edges, sites, self.bases, rounds, self.timings = self._module.solve(
            scopes=rows, modules=[f.module for f in self.facts], builtins=_BUILTINS,
            pr_functions=calls_parameters(self.scopes),
            by_name=[(r.call, r.argument, r.classes) for r in self.rules.by_name],
            instances=[(r.attribute, r.classes) for r in self.rules.instances], max_rounds=self.max_rounds,
            cap=self.cap, provenances=_PROVENANCES)
        self._mro.clear()
        return Resolution(edges, sites, rounds)

    def mro(self, cls: str) -> tuple[str, ...]:
        found = self._mro.get(cls)
        if found is None:
            found = self._mro[cls] = linearize(cls, self.bases)
        return found


def make_solver(facts: list[ModuleFacts], max_rounds: int = 30, rules: DispatchRules = DispatchRules()):
    """The C++ resolver when it is built and current, else Solver (both for real code: pycg=False)."""
    module = native_solver()
    if module is None:
        return Solver(facts, pycg=False, max_rounds=max_rounds, rules=rules)
    return NativeSolver(module, facts, max_rounds, rules=rules)
