"""The solver: call resolution's set-up and its rounds over the statements of every scope; the per-kind work lives in
the parts it extends (atlas.graph.resolve.state: cells, names, values, summaries, calls, bindings, dispatch)."""

from __future__ import annotations

from atlas.graph.resolve.dispatch import Dispatch
from atlas.graph.resolve.rules import DispatchRules
from atlas.graph.resolve.state import Resolution
from atlas.graph.resolve.summaries import calls_parameters
from atlas.parse.python.facts import ModuleFacts, Scope


class Solver(Dispatch):
    """Resolves the calls of every scope of `facts`; `solve()` returns the Resolution."""

    def __init__(self, facts: list[ModuleFacts], pycg: bool = False, max_rounds: int = 30, cap: int = 48,
                 rules: DispatchRules = DispatchRules()):
        self.pycg = pycg
        self.max_rounds = max_rounds
        self.cap = cap
        self.scopes = {}
        self.modules = set()
        for f in facts:
            self.modules.add(f.module)
            parts = f.module.split(".")
            for i in range(1, len(parts)):
                self.modules.add(".".join(parts[:i]))
            for s in f.scopes:
                self.scopes[s.id] = s
        self.submodules = {}
        for m in self.modules:
            parts = m.split(".")
            for i in range(1, len(parts)):
                self.submodules.setdefault(".".join(parts[:i]), set()).add(".".join(parts[i:]))
        self.star_modules = {s.module for s in self.scopes.values() for st in s.statements
                             if st[0] == "from" and any(n == "*" for n, _ in st[2])}
        self.caller_of = {sid: self._caller(s) for sid, s in self.scopes.items()}
        self.class_of = {sid: self._enclosing_class(s) for sid, s in self.scopes.items()}
        self.cells = {}
        self.bases = {}
        self.mro_memo = {}
        self.mro_users = {}
        self.direct_subclasses = {}
        self.kernel_functions = set()
        self.stars = {}
        self.kinds = {}
        self.slot_keys = {}
        self.out = Resolution()
        self.changed = False
        self.num_changes = 0
        self.stale = bytearray()
        self.reader = 0
        self.num_evaluated = 0
        self.mro_read = {}
        self.ctx = ("", 0, "", True)
        self.by_name = {rule.call: rule for rule in rules.by_name}
        self.named_calls = set()
        self.pr_functions = calls_parameters(self.scopes) if not pycg else {}
        self.pr_holders = {}
        self.arg_memo = None
        for rule in rules.instances:
            owner, _, attr = rule.attribute.rpartition(".")
            self.write(("a", owner, attr), {("r", c) for c in rule.classes if c in self.scopes})

    # -- scope helpers ------------------------------------------------------------------------------------------
    def _caller(self, scope: Scope) -> str:
        while scope.kind == "class":
            scope = self.scopes[scope.parent]
        return scope.id

    def _enclosing_class(self, scope: Scope) -> str:
        while scope.parent:
            parent = self.scopes.get(scope.parent)
            if parent is None:
                return ""
            if parent.kind == "class":
                return parent.id
            if scope.kind == "lambda" or parent.kind != "module":
                scope = parent
                continue
            return ""
        return ""

    # -- running ------------------------------------------------------------------------------------------------
    def solve(self, on_round=None) -> Resolution:
        """Rounds over the statements of every scope (the plan: module and class bodies first, so every function
        sees the names they bind from round 1, then functions, each in module order); the first round runs them
        all, later ones only the statements marked stale (a cell they read changed after they read it, earlier in
        the round included), until nothing changes or `max_rounds`; then the by-name calls are linked
        (atlas.graph.resolve.dispatch). A statement whose reads did not change would write what it wrote before,
        so skipping it leaves the result as if every statement had run again."""
        plan = self.plan()
        stale = self.stale = bytearray(b"\x01") * len(plan)
        for n in range(1, self.max_rounds + 1):
            self.changed = False
            before = self.num_changes
            i = stale.find(1)
            while i >= 0:
                stale[i] = 0
                self.reader = i
                scope, caller, stmt = plan[i]
                self.statement(scope, caller, stmt)
                self.num_evaluated += 1
                i = stale.find(1, i + 1)
            self.out.rounds = n
            if on_round:
                on_round(n, self.num_changes - before)
            if not self.changed:
                break
        self.dispatch_by_name()
        return self.out

    def plan(self) -> list[tuple[Scope, str, tuple]]:
        """(scope, caller, statement) in the order a round runs them: module and class bodies, then functions."""
        order = sorted(self.scopes.values(), key=lambda s: (s.kind not in ("module", "class"), s.module, s.start))
        return [(scope, self.caller_of[scope.id], stmt) for scope in order for stmt in scope.statements]

    def statement(self, scope: Scope, caller: str, stmt: tuple) -> None:
        op: str = stmt[0]
        if op == "=":
            self.ctx = (scope.id, stmt[3], caller, stmt[4])
            for target in stmt[1]:
                self.assign_expr(target, stmt[2])
            if stmt[5]:
                instances = self.annotation(stmt[5])
                for target in stmt[1]:
                    self.assign(target, instances, strong=False)
        elif op == "e":
            self.ctx = (scope.id, stmt[2], caller, len(stmt) > 3 and stmt[3])
            self.eval(stmt[1])
        elif op == "ret" or op == "y":
            self.ctx = (scope.id, 1 << 30, caller, False)
            key = ("ret", scope.id) if op == "ret" else ("y", scope.id)
            self.write(key, self.eval(stmt[1]))
        elif op == "def":
            self.ctx = (scope.id, stmt[3], caller, stmt[4])
            self.define(scope, stmt[1], stmt[2])
        elif op == "cls":
            self.ctx = (scope.id, stmt[3], caller, stmt[4])
            self.define_class(scope, stmt[1], stmt[2])
        elif op == "for":
            self.ctx = (scope.id, stmt[3], caller, False)
            self.assign(stmt[1], self.iterate(self.eval(stmt[2])), strong=False)
        elif op == "imp":
            self.ctx = (scope.id, stmt[3], caller, stmt[4])
            mod, alias = stmt[1], stmt[2]
            self.assign(("n", alias or mod.split(".")[0]), {self.module_value(mod if alias else mod.split(".")[0])})
        elif op == "from":
            self.ctx = (scope.id, stmt[3], caller, stmt[4])
            self.import_from(scope, stmt[1], stmt[2])
        elif op == "raise":
            self.ctx = (scope.id, stmt[2], caller, False)
            for v in self.eval(stmt[1]):
                if v[0] == "c":
                    self.construct(v[1], (), (), stmt[1], None)

    def import_from(self, scope: Scope, mod: str, names: tuple) -> None:
        internal = mod in self.modules
        for name, alias in names:
            if name == "*":
                if internal:
                    stars = self.stars.setdefault(scope.module, [])
                    if mod not in stars:
                        stars.append(mod)
                        self.mark(("stars", scope.module))
                        self.changed = True
                continue
            if internal:
                values = self.module_attr(mod, name)
                target = self.scopes.get(mod)
                if not values and not self.pycg and (target is None or name not in target.local_names) and \
                        mod not in self.star_modules:
                    values = {("x", f"{mod}.{name}")}  # not defined in Python: a compiled extension, say
            else:
                values = {("x", f"{mod}.{name}")}
            self.assign(("n", alias or name), values)

    def module_value(self, name: str) -> tuple:
        return ("m", name) if name in self.modules else ("x", name)
