"""The flow pass: reaching definitions of each scope's local names over the structured IR the walker made, then the
flat statements the resolver runs.

Every binding of a local name (assignment, `for`/`with` target, import, `def`, `class`) gets a version, numbered
from 1 per name (0 is a parameter's value); every read of a local name learns the versions that reach it: a
binding replaces what came before, branches join, a loop joins its body's end into its head until nothing changes,
an exception handler may start after any statement of its `try` body, and nothing follows a `return`, `raise`,
`break` or `continue`. Module and class bodies also record which versions reach their end: what other modules and
methods see of their names."""

from __future__ import annotations

from atlas.parse.python.ir import (
    Assign,
    Attribute,
    Break,
    Call,
    Continue,
    Define,
    DictDisplay,
    Display,
    Either,
    Elements,
    Evaluate,
    Exit,
    Expr,
    For,
    If,
    Import,
    ImportFrom,
    Lambda,
    Loop,
    Name,
    NameTarget,
    Narrow,
    Operation,
    Raise,
    Return,
    Scope,
    Slice,
    Starred,
    StarTarget,
    Step,
    Stmt,
    Subscript,
    Target,
    Try,
    Unpack,
    With,
    Yield,
)

State = dict[str, frozenset[int]]  # local name -> the versions that may be its value here ({}: nothing reaches)


def run(scope: Scope, scopes: dict[str, Scope]) -> None:
    """Number the bindings and resolve the reads of `scope`'s body, fill `scope.steps` (and, for a module or class,
    `scope.exit_versions`), and drop the structured body."""
    flow = _Flow(scope, scopes)
    state: State = {p.name: frozenset((0,)) for p in scope.params}
    end = flow.block(scope.body, state)
    if scope.kind in ("module", "class"):
        scope.exit_versions = {name: tuple(sorted(versions)) for name, versions in sorted(end.items())}
    flatten(scope.body, scope.steps, 0, True)
    scope.body = []


def join(states: list[State]) -> State:
    out: State = {}
    for state in states:
        for name, versions in state.items():
            have = out.get(name)
            out[name] = versions if have is None or have is versions else have | versions
    return out


class _Flow:
    """The pass over one scope: `loops` holds, per enclosing loop, the states at its `break`s and `continue`s;
    `regions` the versions bound inside each enclosing `try` body."""

    def __init__(self, scope: Scope, scopes: dict[str, Scope]):
        self.local = scope.local_names
        self.scopes = scopes
        self.counts: dict[str, int] = {}
        self.loops: list[tuple[list[State], list[State]]] = []
        self.regions: list[dict[str, set[int]]] = []

    def block(self, stmts: tuple[Stmt, ...] | list[Stmt], state: State) -> State:
        for stmt in stmts:
            state = self.statement(stmt, state)
        return state

    def statement(self, s: Stmt, state: State) -> State:
        if isinstance(s, Assign):
            self.uses(s.value, state)  # annotations are type promises: see definition_uses
            for t in s.targets:
                self.target_uses(t, state)
            for t in s.targets:
                self.bind(t, state)
        elif isinstance(s, (Evaluate, Return, Yield, Raise)):
            self.uses(s.value, state)
        elif isinstance(s, For):
            self.uses(s.iterable, state)
            self.target_uses(s.target, state)
            self.bind(s.target, state)
        elif isinstance(s, With):
            self.uses(s.context, state)
            if s.target is not None:
                self.target_uses(s.target, state)
                self.bind(s.target, state)
        elif isinstance(s, Import):
            self.bind(s.alias, state)
        elif isinstance(s, ImportFrom):
            for n in s.names:
                if n.name != "*":
                    self.bind(n.alias, state)
        elif isinstance(s, Define):
            self.definition_uses(self.scopes[s.scope], state)
            self.bind(s.target, state)
        elif isinstance(s, If):
            ends = [self.block(arm, dict(state)) for arm in s.arms]
            if not s.exhaustive:
                ends.append(state)
            return join(ends)
        elif isinstance(s, Loop):
            return self.loop(s, state)
        elif isinstance(s, Try):
            return self.try_statement(s, state)
        elif isinstance(s, (Break, Continue)):
            if self.loops:  # (outside a loop it is a syntax error: the rest of the block is dead all the same)
                self.loops[-1][0 if isinstance(s, Break) else 1].append(state)
            return {}
        elif isinstance(s, Exit):
            return {}
        return state

    def loop(self, s: Loop, entry: State) -> State:
        head = entry
        while True:
            breaks: list[State] = []
            continues: list[State] = []
            self.loops.append((breaks, continues))
            after_header = self.block(s.header, dict(head))
            end = self.block(s.body, dict(after_header))
            self.loops.pop()
            new_head = join([entry, end, *continues])
            if new_head == head:
                break
            head = new_head
        return join([self.block(s.orelse, dict(head)), *breaks])  # a `for` ends when next() finds nothing:
        # its target keeps the last element (or what it was before the loop)

    def try_statement(self, s: Try, entry: State) -> State:
        self.regions.append({})
        after_body = self.block(s.body, dict(entry))
        bound = self.regions.pop()
        handler_entry = join([entry, {name: frozenset(versions) for name, versions in bound.items()}])
        ends = [self.block(h, dict(handler_entry)) for h in s.handlers]
        ends.append(self.block(s.orelse, after_body))
        return self.block(s.final, join(ends))

    # -- bindings and reads ---------------------------------------------------------------------------------------
    def bind(self, t: Target, state: State) -> None:
        if isinstance(t, NameTarget):
            if t.version == 0:  # numbered once: a loop body is run until its head stops changing
                t.version = self.counts[t.id] = self.counts.get(t.id, 0) + 1
            state[t.id] = frozenset((t.version,))
            for region in self.regions:
                region.setdefault(t.id, set()).add(t.version)
        elif isinstance(t, Unpack):
            for e in t.elements:
                self.bind(e, state)
        elif isinstance(t, StarTarget):
            self.bind(t.target, state)

    def target_uses(self, t: Target, state: State) -> None:
        """The reads inside a target: `a.b.c = ...` reads a.b, `d[k] = ...` reads d and k."""
        if isinstance(t, Attribute):
            self.uses(t.value, state)
        elif isinstance(t, Subscript):
            self.uses(t.value, state)
            self.uses(t.index, state)
        elif isinstance(t, Unpack):
            for e in t.elements:
                self.target_uses(e, state)
        elif isinstance(t, StarTarget):
            self.target_uses(t.target, state)

    def definition_uses(self, scope: Scope, state: State) -> None:
        """What a `def` or `class` statement evaluates where it stands: decorators, bases, defaults. Annotations are
        left unversioned (every binding of their names): they promise a type, and a forward reference (`cfg:
        "VllmConfig"` above the class, or any annotation under `from __future__ import annotations`) names the class
        its module binds later."""
        for e in scope.decorators:
            self.uses(e, state)
        for e in scope.bases:
            self.uses(e, state)
        for p in scope.params:
            if p.default is not None:
                self.uses(p.default, state)

    def uses(self, e: Expr, state: State) -> None:
        if isinstance(e, Name):
            if e.id in self.local:
                found = state.get(e.id)
                e.versions = tuple(sorted(found)) if found else ()
        elif isinstance(e, Attribute):
            self.uses(e.value, state)
        elif isinstance(e, Call):
            self.uses(e.func, state)
            for a in e.args:
                self.uses(a, state)
            for k in e.keywords:
                self.uses(k.value, state)
        elif isinstance(e, Subscript):
            self.uses(e.value, state)
            self.uses(e.index, state)
        elif isinstance(e, Slice):
            self.uses(e.value, state)
            if e.lower is not None:
                self.uses(e.lower, state)
            if e.upper is not None:
                self.uses(e.upper, state)
        elif isinstance(e, Display):
            for x in e.elements:
                self.uses(x, state)
        elif isinstance(e, DictDisplay):
            for entry in e.entries:
                if entry.key is not None:
                    self.uses(entry.key, state)
                self.uses(entry.value, state)
        elif isinstance(e, Either):
            for x in e.options:
                self.uses(x, state)
        elif isinstance(e, Operation):
            for x in e.operands:
                self.uses(x, state)
        elif isinstance(e, (Elements, Starred)):
            self.uses(e.value, state)
        elif isinstance(e, Narrow):
            self.uses(e.value, state)
            self.uses(e.types, state)
        elif isinstance(e, Lambda):
            self.definition_uses(self.scopes[e.scope], state)


def flatten(stmts: tuple[Stmt, ...] | list[Stmt], out: list[Step], top: int, strong: bool, guard: tuple = ()) -> None:
    """The statements in order, branches and loops opened up; `top` is the line of the top-level statement that
    holds them (0: they are top-level), `strong` whether they run every time the scope does, `guard` the type checks
    they run under: after `x = Narrow(x, T)` (the walker puts one at the head of a branch that `isinstance(x, T)`
    opens, and after an assert, or that x is not a T, is a class, has an attribute or passes a call that may be a type
    guard), the rest of the block runs only when x can be what the check says (Step.guard); for all but the first,
    also when nothing reached x (the binding's inputs)."""
    for s in stmts:
        if isinstance(s, If):
            for arm in s.arms:
                flatten(arm, out, top or s.line, False, guard)
        elif isinstance(s, Loop):
            flatten(s.header, out, top or s.line, False, guard)
            flatten(s.body, out, top or s.line, False, guard)
            flatten(s.orelse, out, top or s.line, False, guard)
        elif isinstance(s, Try):
            for part in (s.body, *s.handlers, s.orelse, s.final):
                flatten(part, out, top or s.line, False, guard)
        elif not isinstance(s, (Break, Continue, Exit)):
            out.append(Step(s, top or s.line, strong, s.line, guard))
            if isinstance(s, Assign) and isinstance(s.value, Narrow) and isinstance(s.targets[0], NameTarget):
                narrow = s.value
                inputs: tuple[int, ...] = ()
                if (narrow.negative or narrow.identity or narrow.guard or narrow.attribute) and isinstance(
                    narrow.value, Name
                ):
                    inputs = narrow.value.versions or ()
                guard = (*guard, (s.targets[0].id, s.targets[0].version, inputs))
