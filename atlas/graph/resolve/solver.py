"""The solver: what call resolution knows (the program, its memory, the class hierarchy, the results) and the rounds
that run every statement until nothing changes. The work per statement lives in module functions that take the
solver first (statements, expressions, names, classes, calls, builtins, summaries, dispatch), as mypyc's own IR
builder is written; each module holds one job."""

from __future__ import annotations

from dataclasses import dataclass, field

from atlas.graph.resolve import calls, contexts, declared, dispatch, expressions, heap, sites, statements
from atlas.graph.resolve.cells import Cells
from atlas.graph.resolve.heap import Context
from atlas.graph.resolve.limits import MAX_ARGUMENT_VALUES, MAX_ROUNDS
from atlas.graph.resolve.rules import ByName, DispatchRules
from atlas.graph.resolve.sites import SiteRecord
from atlas.graph.resolve.summaries import always_raising, calls_parameters, not_implemented, returned_parameters
from atlas.graph.resolve.values import DISPATCHED, Value, Values
from atlas.model import Provenance
from atlas.parse.python.ir import (
    Assign,
    Attribute,
    Call,
    Constant,
    Define,
    Evaluate,
    Expr,
    Import,
    ImportFrom,
    Keyword,
    ModuleFacts,
    Name,
    NameTarget,
    Narrow,
    Scope,
    Site,
    Step,
)


@dataclass(slots=True)
class Resolution:
    """What resolution found: edges (caller, callee) -> {line: provenance}, and every call expression evaluated,
    (module, end line, end column) -> what it reached or why nothing (atlas.graph.resolve.sites)."""

    edges: dict[tuple[str, str], dict[int, Provenance]] = field(default_factory=dict)
    sites: dict[tuple[str, int, int], SiteRecord] = field(default_factory=dict)
    capped: set[tuple[str, str]] = field(default_factory=set)  # (function, parameter) given an argument too wide to
    # pass on (calls.enter): calls through it are past a bound
    # (caller, callee, line) -> the (caller's context, callee's context) pairs it was made in, where a context
    # told them apart (atlas.graph.resolve.contexts.finish)
    contexts: dict[tuple[str, str, int], set[tuple[str, str]]] = field(default_factory=dict)
    clones: dict[str, str] = field(default_factory=dict)  # a node made by cloning a scope -> the scope it copies
    rounds: int = 0
    reached_fixpoint: bool = False


class Solver:
    """Resolves the calls of every scope of `facts`; `solve()` returns the Resolution. `pycg`: name things as PyCG's
    micro-benchmark expects (atlas.graph.pycg)."""

    def __init__(
        self,
        facts: list[ModuleFacts],
        pycg: bool = False,
        max_rounds: int = MAX_ROUNDS,
        cap: int = MAX_ARGUMENT_VALUES,
        rules: DispatchRules | None = None,
        every_statement: bool = False,
    ):
        rules = rules or DispatchRules()
        self.pycg = pycg
        self.max_rounds = max_rounds
        self.cap = cap  # limits.MAX_ARGUMENT_VALUES
        self.every_statement = every_statement  # rounds run every statement, not only the stale ones (tests)
        # -- the program, as parsed
        # id -> the scope a name bound twice gives at run time (the last def, or a property's getter: its setter and
        # deleter share the id, as they share __qualname__); `bodies`: every scope, each run under its id
        self.scopes: dict[str, Scope] = {}
        self.bodies: list[Scope] = []
        self.modules: set[str] = set()
        self.packages: set[str] = {f.module for f in facts if f.is_package}  # modules with a __path__
        for f in facts:
            parts = f.module.split(".")
            for i in range(1, len(parts) + 1):
                self.modules.add(".".join(parts[:i]))
            for s in f.scopes:
                self.bodies.append(s)
                if s.id not in self.scopes or not statements.accessor(s):
                    self.scopes[s.id] = s
        self.redefined: dict[str, list[Scope]] = {}  # ids of several scopes (`if X: def f` ... `else: def f`)
        for b in self.bodies:
            if self.scopes[b.id] is not b:
                self.redefined.setdefault(b.id, []).append(b)
        # properties with a setter (the ids of their getters)
        self.setters = frozenset(b.id for b in self.bodies if statements.accessor(b) == "setter")
        self.submodules: dict[str, set[str]] = {}  # module -> the dotted names under it that are modules
        for m in self.modules:
            parts = m.split(".")
            for i in range(1, len(parts)):
                self.submodules.setdefault(".".join(parts[:i]), set()).add(".".join(parts[i:]))
        self.star_modules = {
            s.module
            for s in self.scopes.values()
            for step in s.steps
            if isinstance(step.stmt, ImportFrom) and any(n.name == "*" for n in step.stmt.names)
        }
        self.outside_stars: dict[str, list[str]] = {}  # module -> the modules outside the tree it star-imports
        for s in self.bodies:
            for step in s.steps if s.kind == "module" else ():
                stmt = step.stmt
                if isinstance(stmt, ImportFrom) and stmt.module not in self.modules and stmt.names[0].name == "*":
                    self.outside_stars.setdefault(s.id, []).append(stmt.module)
        self.caller_of = {sid: self.caller(s) for sid, s in self.scopes.items()}
        self.class_of = {sid: self._enclosing_class(s) for sid, s in self.scopes.items()}
        self.children: dict[str, list[Scope]] = {}  # scope id -> the bodies directly inside it
        for b in self.bodies:
            if b.parent:
                self.children.setdefault(b.parent, []).append(b)
        # -- contexts (atlas.graph.resolve.contexts)
        self.contexts: dict[str, dict[str, str]] = {}  # function -> context -> its clone's id
        self.origin: dict[str, str] = {}  # a cloned scope's id -> the id of the scope it copies
        self.suffix: dict[str, str] = {}  # a cloned scope's id -> "@<context>", appended to the ids it names
        self.given: dict[str, dict[tuple[str, int, int], set[str]]] = {}  # each scope a call entered: per call
        # (caller, line, column), the parameters it gave a value as its latest run saw its arguments (SPREAD where a
        # `*args` or `**kwargs` may give any); the others hold their defaults (statements.defaulted)
        self.roots: set[str] = set()  # the clones made for a function (not the scopes cloned inside them)
        # the clones a declaring pass may give promises: those made before it started, which ran to a fixpoint (a
        # clone made during it has not run yet, and its empty return is no lost flow: statements.declare)
        self.settled: set[str] = set()
        self.merged: set[str] = set()  # functions with more contexts than MAX_CONTEXTS: the rest share the origin
        self.decorating = False  # a decorator is being applied: its clones do not count against MAX_CONTEXTS
        # (contexts.clone)
        self.shared: set[str] = set()  # methods whose own scope also runs for other classes (contexts.depends_on)
        self.receiver_reads: dict[str, tuple[frozenset[str], bool, frozenset[str]]] = {}  # contexts.receiver_reads
        self.self_assigned: dict[str, frozenset[str]] = {}  # class -> contexts.assigned
        self.checked: dict[
            str, str
        ] = {}  # function -> the parameter it checks the type of (contexts.checked_parameter)
        self.plan_steps: list[tuple[Scope, str, Step]] = []
        self.define_steps: dict[str, int] = {}  # function id -> the plan index of its `def`
        self.pr_functions: dict[str, frozenset[str]] = calls_parameters(self.scopes) if not pycg else {}
        self.passthrough: dict[str, tuple[str, ...]] = returned_parameters(self.scopes)
        self.raising: frozenset[str] = always_raising(self.scopes)  # calls of these give RAISED
        self.not_implemented: frozenset[str] = not_implemented(self.scopes)  # stubs (calls.unimplemented)
        self.patched_names: frozenset[str] = assigned_attributes(self.bodies)
        self.forwarding: set[tuple[str, str]] = set()  # (class, name) being read through a forwarding __getattr__
        # module -> the names it binds only under `if TYPE_CHECKING:` (they do not exist at run time: a module's
        # __getattr__ gives them, names.module_attribute)
        # classes the program may make (atlas.graph.resolve.declared): named as values, or constructed in the rounds
        self.made_names: frozenset[str]
        self.handed_names: frozenset[str]  # of them, those used as values elsewhere than stored on a `self` (is_part)
        self.made_names, self.handed_names = declared.made_classes(self.bodies)
        self.constructed: set[str] = set()
        # class -> the classes whose code constructs it, each with whether it only stores the new instance on its own
        # `self` (`self.kernel = C()`: declared.is_part)
        self.made_by: dict[str, set[tuple[str, bool]]] = {}
        self.owning: Site | None = None  # the call whose result the statement running stores on `self`
        self.ruled_out: set[tuple[str, str, int]] = set()  # (scope, name, version) of a check's binding no value
        # that reached the check passed (statements.narrowed)
        self.open_returns: set[str] = set()  # runs that ran a `return` of more than a literal or a call's result
        self.call_returns: dict[str, set[tuple[str, int, int]]] = {}  # per run, the calls whose result a `return`
        # of it gave (`return helper(layer)`): open where a run that call entered is (statements.closed)
        self.entered: dict[tuple[str, int, int], set[str]] = {}  # per call (caller, line, column), the runs it entered
        self.hierarchy_known = False  # every class statement has run once: a method's `self` can be told
        self.declaring = False  # the last phase: annotations fill what nothing else reached
        self.waiting: set[str] = set()  # the functions the first declaring pass left to the next (_declare)
        self.type_only: dict[str, frozenset[str]] = {
            s.id: type_only_names(s)
            for s in self.scopes.values()
            if s.kind == "module" and f"{s.id}.__getattr__" in self.scopes
        }
        # -- memory
        self.cells = Cells()
        self.kinds: dict[str, str] = {}  # allocation id -> "list" or "dict"
        self.copied: dict[tuple[str, object, str, str, int], Values] = {}  # heap.copy_slots: what a copy last wrote
        self.slot_keys: dict[str, list[object]] = {}  # allocation id -> the keys of its slots, in order of first write
        self.stars: dict[str, list[str]] = {}  # module -> the modules it star-imports
        self.kernel_functions: set[str] = set()  # functions jit'd by a call, `k = triton.jit(fn)`: launches of k
        self.pr_holders: dict[str, set[str]] = {}  # function -> the containers its parameter results were put in
        # -- classes (atlas.graph.resolve.classes)
        self.bases: dict[str, tuple[tuple[str, ...], ...]] = {}  # class -> per written base, what it may be
        self.mro_memo: dict[str, tuple] = {}  # class -> (MRO, internal classes, walk)
        self.mro_users: dict[str, set[str]] = {}  # class -> the memoized classes whose MRO holds it
        self.mro_active: set[str] = set()  # classes whose MRO is being computed (cycles of bases)
        self.mro_read: dict[str, int] = {}  # class -> the last statement run that registered reading its MRO
        self.direct_subclasses: dict[str, dict[str, None]] = {}  # class -> the classes naming it as a base
        self.abstract: dict[str, bool] = {}  # class -> classes.is_abstract, until a base in its MRO changes
        # -- running
        self.ctx = Context("", 0, "", True)
        self.num_evaluated = 0
        self.arg_memo: tuple | None = None  # see atlas.graph.resolve.calls.evaluate_arguments
        self.module = ""  # the module of the statement being evaluated
        self.site: Site | None = None  # the call being evaluated, and its record (atlas.graph.resolve.sites)
        self.site_record = SiteRecord(Site(0, 0, ""), "")
        self.by_name: dict[str, ByName] = {rule.call: rule for rule in rules.by_name}
        self.named_calls: set[tuple[str, int, str, ByName]] = set()
        self.out = Resolution()
        for rule in rules.instances:
            self.constructed.update(rule.classes)
            owner, _, attr = rule.attribute.rpartition(".")
            heap.write_attribute(
                self, owner, attr, {Value(DISPATCHED, c): None for c in rule.classes if c in self.scopes}
            )

    # -- the hub ------------------------------------------------------------------------------------------------------
    # What the modules below call back into: evaluating an expression, iterating values, calling. Routed through the
    # solver (as mypyc's IR builder routes its recursion through its visitor), no module of atlas.graph.resolve
    # imports one above it (the import-linter contract `resolve-layers`).
    def evaluate(self, e: Expr) -> Values:
        return expressions.evaluate(self, e)

    def iterate(self, values: Values) -> Values:
        return expressions.iterate(self, values)

    def call_method(self, receiver: Value, method: str, args: tuple[Expr, ...], site: Site | None) -> Values:
        return expressions.call_method(self, receiver, method, args, site)

    def evaluate_arguments(
        self, args: tuple[Expr, ...], keywords: tuple[Keyword, ...]
    ) -> tuple[list[Values], list[tuple[str | None, Values]]]:
        return calls.evaluate_arguments(self, args, keywords)

    def call_with_values(
        self, fid: str, receiver: Value | None, values: list[Values], site: Site | None, func: Expr
    ) -> Values:
        return calls.call_with_values(self, fid, receiver, values, site, func)

    def call_values(
        self,
        fid: str,
        receiver: Value | None,
        values: list[Values],
        starred: list[bool],
        keyword_values: list[tuple[str | None, Values]],
        site: Site | None,
        func: Expr,
        provenance: Provenance | None = None,
    ) -> Values:
        return calls.call_values(self, fid, receiver, values, starred, keyword_values, site, func, provenance)

    def construct(
        self, cls: str, args: tuple[Expr, ...], keywords: tuple[Keyword, ...], func: Expr, site: Site | None
    ) -> Values:
        return calls.construct(self, cls, args, keywords, func, site)

    # -- scope helpers ------------------------------------------------------------------------------------------------
    def caller(self, scope: Scope) -> str:
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

    # -- running ------------------------------------------------------------------------------------------------------
    def solve(self, on_round=None) -> Resolution:
        """Rounds over the statements of every scope (module and class bodies first, so every function sees the
        names they bind from round 1, then functions, each in module order): the first round runs them all, later
        ones only the statements marked stale (a cell they read changed since they read it), until nothing changes
        (a fixpoint) or `max_rounds`; then the by-name calls are linked (atlas.graph.resolve.dispatch). A statement
        whose reads did not change would write what it wrote before, so skipping it leaves the result as if every
        statement had run again. Everything iterates in a fixed order: the result is the same on every run."""
        cells = self.cells
        cells.stale = bytearray()
        plan = self.plan()
        stale = cells.stale
        self._rounds(plan, self.max_rounds - 1, None)  # module and class bodies once: the class hierarchy
        self.hierarchy_known = True
        stale[:] = b"\x01" * len(plan)
        n = self._rounds(plan, 0, on_round)
        if not self.pycg:  # the declaring phase: annotations fill what stayed empty; again for the clones its
            self.declaring = True  # flows made, once they have run
            first = True
            while True:
                self.settled |= self.roots
                self._declare(plan, first)
                first = False
                n = self._rounds(plan, n, on_round)
                if (not self.roots - self.settled and not self.waiting) or n >= self.max_rounds:
                    break
        dispatch.link_by_name(self)
        sites.ruled_out(self)
        contexts.finish(self)
        return self.out

    def _rounds(self, plan: list[tuple[Scope, str, Step]], done: int, on_round) -> int:
        """Rounds over the stale statements until a fixpoint or `max_rounds` in all; the rounds run so far."""
        cells = self.cells
        stale = cells.stale
        n = done
        self.out.reached_fixpoint = False
        while n < self.max_rounds:
            n += 1
            cells.changed = False
            before = cells.num_changes
            if self.every_statement:  # the reference the tests hold the worklist to: stale marks made, ignored
                stale[:] = bytes(len(stale))
                i = 0
                while i < len(plan) and (self.hierarchy_known or plan[i][0].kind in ("module", "class")):
                    cells.reader = i
                    scope, caller, step = plan[i]
                    statements.run(self, scope, caller, step)
                    self.num_evaluated += 1
                    i += 1
                stale[:] = bytes(len(stale))
            i = stale.find(1)
            while i >= 0:
                stale[i] = 0
                cells.reader = i
                scope, caller, step = plan[i]
                statements.run(self, scope, caller, step)
                self.num_evaluated += 1
                i = stale.find(1, i + 1)
            self.out.rounds = n
            if on_round:
                on_round(n, cells.num_changes - before)
            if not cells.changed and stale.find(1) < 0:
                self.out.reached_fixpoint = True
                break
        return n

    def _declare(self, plan: list[tuple[Scope, str, Step]], first: bool) -> None:
        """A declaring pass: each `def` with annotations declares its parameters and return now (as the statement
        itself would, in its context: it reads the annotations' names), each annotated assignment and each type
        check's binding (a Narrow) runs again. In the first pass, a function no call entered that a function with
        annotations calls by name waits for the next: what this pass promises that caller may reach it by a call
        (SGLang's `override_config(config, ...)`, called only by `get_linear_quant_method` for the layers its
        promised callers hand it, would otherwise be promised every config before the GPTQ configs arrive)."""
        stale = self.cells.stale
        called = (
            {name for s in self.scopes.values() if s.kind == "function" and _annotated(s) for name in s.called_names}
            if first
            else set()
        )
        self.waiting = set()
        for i, (scope, caller, step) in enumerate(plan):
            stmt = step.stmt
            if isinstance(stmt, Assign) and (stmt.annotations or isinstance(stmt.value, Narrow)):
                stale[i] = 1
            elif isinstance(stmt, Define) and not stmt.is_class:
                suffix = self.suffix.get(scope.id, "")
                function = self.scopes.get(stmt.scope + suffix)
                if function is not None and _annotated(function):
                    if function.id not in self.given and stmt.target.id in called:
                        self.waiting.add(function.id)
                        continue
                    self.cells.reader = i
                    self.ctx = Context(scope.id, step.top, caller, step.strong, step.line, suffix)
                    statements.declare(self, function)

    def plan(self) -> list[tuple[Scope, str, Step]]:
        """(scope, caller, step) in the order a round runs them: module and class bodies, then functions; clones
        are added at the end as they are made (atlas.graph.resolve.contexts)."""
        self.plan_steps = []
        self.define_steps = {}
        for scope in sorted(self.bodies, key=lambda s: (s.kind not in ("module", "class"), s.module, s.start, s.id)):
            self.add_steps(scope)
        return self.plan_steps

    def add_steps(self, scope: Scope) -> None:
        """Append `scope`'s statements to the plan, stale (they run in this round)."""
        caller = self.caller_of[scope.id]
        suffix = self.suffix.get(scope.id, "")
        stale = self.cells.stale
        mark = 1 if self.hierarchy_known or scope.kind in ("module", "class") else 0  # functions wait for the
        # first round over the bodies (Solver.solve)
        for step in scope.steps:
            stmt = step.stmt
            if isinstance(stmt, Define) and not stmt.is_class:
                self.define_steps[stmt.scope + suffix] = len(self.plan_steps)
            self.plan_steps.append((scope, caller, step))
            stale.append(mark)


def _annotated(function: Scope) -> bool:
    """Whether a function declares a parameter's type or its return's."""
    return bool(function.returns) or any(p.annotations for p in function.params)


def assigned_attributes(scopes: list[Scope]) -> frozenset[str]:
    """The attribute names the tree assigns, `x.name = ...` or `setattr(x, "name", ...)`: only those can hold what
    the tree put on a library's objects (names.getattr_ reads them there; other external attributes need no cell)."""
    out: set[str] = set()
    for scope in scopes:
        for step in scope.steps:
            stmt = step.stmt
            if isinstance(stmt, Assign):
                out.update(t.attr for t in stmt.targets if isinstance(t, Attribute))
            elif isinstance(stmt, Evaluate) and isinstance(stmt.value, Call):
                call = stmt.value
                if (
                    isinstance(call.func, Name)
                    and call.func.id == "setattr"
                    and len(call.args) > 1
                    and isinstance(call.args[1], Constant)
                    and isinstance(call.args[1].value, str)
                ):
                    out.add(call.args[1].value)
    return frozenset(out)


def type_only_names(module: Scope) -> frozenset[str]:
    """The names a module body binds only inside `if TYPE_CHECKING:` (steps whose top-level statement is such an
    `if`; an `else:` arm shares that top line and counts with it)."""
    checking = {
        step.top
        for step in module.steps
        if isinstance(step.stmt, Evaluate) and step.line == step.top and _names_type_checking(step.stmt.value)
    }
    inside: set[str] = set()
    outside: set[str] = set()
    for step in module.steps:
        stmt = step.stmt
        names: list[str] = []
        if isinstance(stmt, Assign):
            names = [t.id for t in stmt.targets if isinstance(t, NameTarget)]
        elif isinstance(stmt, Import):
            names = [stmt.alias.id]
        elif isinstance(stmt, ImportFrom):
            names = [n.alias.id for n in stmt.names]
        elif isinstance(stmt, Define):
            names = [stmt.target.id]
        (inside if step.top in checking else outside).update(names)
    return frozenset(inside - outside)


def _names_type_checking(e: object) -> bool:
    return (isinstance(e, Name) and e.id == "TYPE_CHECKING") or (isinstance(e, Attribute) and e.attr == "TYPE_CHECKING")
