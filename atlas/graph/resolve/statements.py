"""Statements for the call resolver: what each flat statement (atlas.parse.python.ir.Step) writes: assignments to
names, attributes, slots and unpacked targets; `def` and `class` (parameters, decorators, bases); imports; returns,
yields, loops, `with` and `raise`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from atlas.graph.resolve import builtins, calls, classes, contexts, declared, expressions, heap, names, sites, summaries
from atlas.graph.resolve.cells import OUTSIDE, SEPARATOR
from atlas.graph.resolve.heap import PARAMETER, SPREAD, Context
from atlas.graph.resolve.values import (
    BOUND_METHOD,
    BUILTIN,
    CLASS,
    CONSTANT,
    DISPATCHED,
    EXTERNAL,
    FUNCTION,
    GENERATOR,
    INSTANCE,
    LIBRARY_RESULT,
    MODULE,
    NOTHING,
    OBJECT,
    PROPERTY,
    Value,
    Values,
    constant_keys,
    external,
    function,
    instance,
    klass,
    some,
)
from atlas.parse.python.ir import (
    Annotation,
    Assign,
    Attribute,
    Call,
    Constant,
    Define,
    Display,
    Evaluate,
    Expr,
    For,
    Import,
    ImportFrom,
    Name,
    NameTarget,
    Narrow,
    Param,
    Raise,
    Return,
    Scope,
    Site,
    Starred,
    StarTarget,
    Step,
    Subscript,
    Target,
    Unpack,
    With,
    Yield,
)

if TYPE_CHECKING:
    from atlas.graph.resolve.solver import Solver

FIELD_SPECIFIERS: Final = frozenset({"dataclasses.field", "pydantic.Field", "pydantic.fields.Field"})  # given a
# default_factory, each instance made without the field gets what it returns (field_default)
END: Final = 1 << 30  # the line a return or yield reads the heap at: after every statement of its scope


def run(s: Solver, scope: Scope, caller: str, step: Step) -> None:
    stmt = step.stmt
    s.module = scope.module  # (a scope's id may name a scope of another file too: a module and a function)
    for name, version, inputs in step.guard:  # under a type check: only when the checked binding can hold a value
        cell = s.cells.watch(s.cells.variable(scope.id, name))
        cell.flow = True  # its writers are looked at one by one: a new one matters even when the union stays
        writers = cell.writers or {}
        if not writers.get(version) and (
            not inputs or any(writers.get(v) for v in inputs) or (scope.id, name, version) in s.ruled_out
        ):
            return
    if isinstance(stmt, (Return, Yield)):  # what a function gives back: read after every statement of its body
        s.ctx = Context(scope.id, END, caller, False, step.line, s.suffix.get(scope.id, ""))
        if isinstance(stmt, Return):
            if isinstance(stmt.value, Call):
                site = stmt.value.site
                s.call_returns.setdefault(scope.id, set()).add((scope.id, site.end_line, site.end_col))
            elif not isinstance(stmt.value, Constant):
                s.open_returns.add(scope.id)
            heap.write_return(s, scope.id, expressions.evaluate(s, stmt.value))
        else:
            heap.write_yield(s, scope.id, expressions.evaluate(s, stmt.value))
        return
    strong = step.strong and not isinstance(stmt, (For, Raise))
    s.ctx = Context(scope.id, step.top, caller, strong, step.line, s.suffix.get(scope.id, ""))
    if isinstance(stmt, Assign):
        saved, s.owning = s.owning, owning_call(s, scope, stmt)
        if stmt.annotations:
            annotated_assign(s, scope, stmt, step.line)
        elif isinstance(stmt.value, Narrow):
            narrowed(s, scope, stmt, stmt.value)
        else:
            for t in stmt.targets:
                assign_expr(s, t, stmt.value)
        s.owning = saved
    elif isinstance(stmt, Evaluate):
        values = expressions.evaluate(s, stmt.value)
        if stmt.truth and not s.pycg:
            truth(s, values, stmt.line)
    elif isinstance(stmt, Define):
        defined = defined_scope(s, stmt)
        if stmt.is_class:
            define_class(s, defined, stmt.target)
        else:
            define(s, scope, defined, stmt.target)
    elif isinstance(stmt, For):
        assign(s, stmt.target, expressions.iterate(s, expressions.evaluate(s, stmt.iterable)), strong=False)
    elif isinstance(stmt, With):
        with_statement(s, stmt)
    elif isinstance(stmt, Import):
        module = stmt.module if stmt.has_as else stmt.module.split(".")[0]
        assign(s, stmt.alias, {Value(MODULE, module) if module in s.modules else external(module): None})
    elif isinstance(stmt, ImportFrom):
        import_from(s, scope, stmt)
    elif isinstance(stmt, Raise):
        for v in expressions.evaluate(s, stmt.value):
            if v.kind == CLASS:
                calls.construct(s, v.name, (), (), stmt.value, None)


def defined_scope(s: Solver, stmt: Define) -> Scope:
    """The scope a `def` or `class` statement defines: of several with its id (`if X: def f` ... `else: def f`),
    the first that starts at or after the statement (its decorators, defaults and bases are its own); in a clone,
    the clone's (atlas.graph.resolve.contexts)."""
    if s.ctx.suffix:
        return s.scopes[stmt.scope + s.ctx.suffix]
    found = s.scopes[stmt.scope]
    others = s.redefined.get(stmt.scope)
    if others:
        after = [c for c in (found, *others) if c.start >= stmt.line]
        if after:
            found = min(after, key=lambda c: c.start)
    return found


def with_statement(s: Solver, stmt: With) -> None:
    """`with context as target`: Python calls the context's `__enter__` (`__aenter__`), binds what it returns, and
    calls `__exit__` (`__aexit__`) after the block. A generator function's context (`@contextmanager`) gives what it
    yields; a context the tree does not define (a library's) is bound as it is."""
    enter, leave = ("__aenter__", "__aexit__") if stmt.is_async else ("__enter__", "__exit__")
    site = Site(stmt.line, stmt.line, "with")
    entered: Values = {}
    for v in expressions.evaluate(s, stmt.context):
        if v.kind == INSTANCE or v.kind == DISPATCHED:
            got = expressions.call_method(s, v, enter, (), site)
            expressions.call_method(s, v, leave, (), site)
            entered.update(got or {v: None})
        elif v.kind == GENERATOR:
            entered.update(heap.yields(s, v.name))
        else:
            entered[v] = None
    if stmt.target is not None:
        assign(s, stmt.target, entered)


# -- assignment -----------------------------------------------------------------------------------------------------


def owning_call(s: Solver, scope: Scope, stmt: Assign) -> Site | None:
    """The call whose result a method's `stmt` stores only on its own instance (`self.kernel = C(...)`): what it
    constructs there is a part of that object (declared.is_part)."""
    if scope.kind != "function" or classes.method_class(s, scope) is None:
        return None
    if declared.stores_on_self(scope, stmt):
        assert isinstance(stmt.value, Call)
        return stmt.value.site
    return None


def assign_expr(s: Solver, target: Target, value: Expr) -> None:
    """`target = value`, matching the elements of a tuple target and a tuple display one by one."""
    if (
        isinstance(target, Unpack)
        and isinstance(value, Display)
        and not any(isinstance(i, Starred) for i in value.elements)
    ):
        items, targets = value.elements, target.elements
        stars = [i for i, t in enumerate(targets) if isinstance(t, StarTarget)]
        if not stars and len(items) == len(targets):
            for t, item in zip(targets, items):
                assign_expr(s, t, item)
            return
        if len(stars) == 1 and len(items) >= len(targets) - 1:
            star = stars[0]
            after = len(targets) - star - 1
            for t, item in zip(targets[:star], items[:star]):
                assign_expr(s, t, item)
            for t, item in zip(targets[star + 1 :], items[len(items) - after :]):
                assign_expr(s, t, item)
            middle = Display(items[star : len(items) - after], f"{value.alloc}*")
            starred = targets[star]
            assert isinstance(starred, StarTarget)
            assign(s, starred.target, expressions.evaluate(s, middle))
            return
    assign(s, target, expressions.evaluate(s, value))


def assign(s: Solver, target: Target, values: Values, strong: bool | None = None) -> None:
    strong = s.ctx.strong if strong is None else strong
    if isinstance(target, NameTarget):
        assign_name(s, target, values)
    elif isinstance(target, Attribute):
        receivers = expressions.evaluate(s, target.value)
        if not s.pycg:
            call_setters(s, receivers, target.attr)
        names.setattr_(s, receivers, target.attr, values)
    elif isinstance(target, Subscript):
        containers = expressions.evaluate(s, target.value)
        if held_by_an_object(target.value):  # it outlives the call, as an attribute does: no per-call-site results
            values = summaries.concrete(s, values)
        objs = [o for o in containers if o.kind == OBJECT]
        for o in containers:  # `x[k] = v` on an instance of the tree: its class's __setitem__
            if (o.kind == INSTANCE or o.kind == DISPATCHED) and not s.pycg:
                site = Site(target.line or s.ctx.line, target.line or s.ctx.line, "[]=")
                for m in classes.class_attr(s, o.name, "__setitem__", o):
                    if m.kind == BOUND_METHOD:
                        calls.call_with_values(
                            s,
                            m.name,
                            m.receiver,
                            [expressions.evaluate(s, target.index), values],
                            site,
                            Attribute(Name("<instance>"), "__setitem__"),
                        )
        if not objs:
            if not isinstance(target.index, (Name, Constant)):  # the index's calls run all the same
                expressions.evaluate(s, target.index)
            return
        consts = constant_keys(expressions.evaluate(s, target.index))
        for o in objs:
            if consts is not None:
                for c in consts:
                    heap.write_slot(s, o.name, c, values, strong and len(objs) == 1 and len(consts) == 1)
            else:
                heap.write_slot(s, o.name, "*", values)
    elif isinstance(target, Unpack):
        positional = [v for v in values if v.kind == OBJECT]
        rest = expressions.iterate(s, values)
        for i, sub in enumerate(target.elements):
            if isinstance(sub, StarTarget):
                assign(s, sub.target, values, strong=False)
                continue
            found: Values = {}
            for o in positional:
                found.update(heap.read_slot(s, o.name, i, flow=False))
            assign(s, sub, found or rest, strong=False)
    elif isinstance(target, StarTarget):
        assign(s, target.target, values, strong=False)


def assign_name(s: Solver, target: NameTarget, values: Values) -> None:
    scope = s.scopes[s.ctx.scope]
    name = target.id
    if name in scope.global_names:
        heap.write_variable(s, scope.module, name, OUTSIDE, summaries.concrete(s, values))
    elif name in scope.nonlocal_names:
        parent = s.scopes.get(scope.parent)
        while (
            parent is not None
            and parent.kind != "module"
            and (parent.kind == "class" or name not in parent.local_names)
        ):
            parent = s.scopes.get(parent.parent)
        if parent is not None and parent.kind != "module":
            heap.write_variable(s, parent.id, name, OUTSIDE, summaries.concrete(s, values))
    else:
        heap.write_variable(s, scope.id, name, target.version, values)


# -- definitions ----------------------------------------------------------------------------------------------------


def truth(s: Solver, values: Values, line: int) -> None:
    """`if x:` / `while x:` on an instance of a class of the tree: Python calls its `__bool__`, else its `__len__`
    (an edge when the class defines one; a queue tested for emptiness, `if self.waiting:`)."""
    site = Site(line, line, "if")
    for v in values:
        if v.kind != INSTANCE and v.kind != DISPATCHED:
            continue
        for method in ("__bool__", "__len__"):
            found = [m for m in classes.class_attr(s, v.name, method, v) if m.kind == BOUND_METHOD]
            for m in found:
                calls.invoke(s, m, (), (), site, Attribute(Name("<condition>"), method))
            if found:
                break


def annotation(s: Solver, annotations: tuple[Annotation, ...], where: str) -> Values:
    """The values an annotation promises: an instance of each class it names; the class itself for `type[X]` (so
    calling it constructs); for `list[X]`, `dict[K, X]`, a container of those made for the annotation at `where`
    (one per annotated name: a container shared by every `dict[str, Any]` of the tree would mix all their
    contents)."""
    out: Values = {}
    for a in annotations:
        promised: Values = {}
        for v in expressions.evaluate(s, a.type):
            if v.kind == CLASS:
                promised.update(declared.promised(s, v.name, a.is_class))
            elif v.kind == EXTERNAL and not s.pycg:
                promised[v] = None
            elif v.kind == BUILTIN and v.name in ("str", "bytes") and not a.container:
                promised[some(v.name)] = None  # its methods: <**PyStr**>.*
        if a.container and promised:  # list[X], dict[K, X]: a container of such values
            alloc = f"<{a.container} of {'|'.join(sorted(v.name for v in promised))}>:{where}"
            out.update(builtins.new_container(s, alloc, a.container, [promised]))
        else:
            out.update(promised)
    return out


def define(s: Solver, parent: Scope, scope: Scope, target: NameTarget) -> None:
    """`def` in `parent`: parameters get their defaults and, in the declaring phase, their annotated types where
    nothing else reached them; a method's first parameter the receivers it may have (declared.receivers), each in
    the scope that runs the method for it (contexts.for_receiver); the name gets the function, or what its
    decorators make of it."""
    fid = scope.id
    method = classes.method_class(s, scope) is not None
    receivers: list[tuple[str, Value]] = []  # (the scope running the method, its receiver)
    if method and s.hierarchy_known:
        is_classmethod = "classmethod" in scope.decorator_names
        for v in declared.receivers(s, parent.id, target.id):
            receiver = klass(v.name) if is_classmethod else v
            receivers.append((contexts.for_receiver(s, scope, receiver).id, receiver))
        if is_classmethod:
            receivers.append((fid, klass(parent.id)))
    runs = [fid, *s.contexts.get(fid, {}).values()]  # the function's scope and its clones
    for i, p in enumerate(scope.params):
        if i == 0 and method:
            for sid, receiver in receivers:
                heap.write_variable(s, sid, p.name, PARAMETER, {receiver: None})
            continue
        if p.default is not None:  # a clone a call entered gets them from the calls that leave p out (calls.enter)
            values = expressions.evaluate(s, p.default)
            heap.write_variable(s, fid, heap.DEFAULT + p.name, PARAMETER, values)
            for sid in runs:
                if sid not in s.roots or sid not in s.given:  # (s.given: the scopes calls entered)
                    heap.write_variable(s, sid, p.name, PARAMETER, values)
    if s.declaring:
        declare(s, scope)
    assign(s, target, decorate(s, scope, {function(fid): None}))


def declare(s: Solver, scope: Scope) -> None:
    """The declaring phase's part of a `def`: each annotated parameter, and the return, that nothing informative
    reached (declared.informative) in the function's scope or a clone of it gets what its annotation promises; not
    a parameter that calls reached the run and every one left out (`pool: Optional[KVCache] = None` is None there),
    nor one of a clone no call entered (a method's clone for a subclass's instances runs only for the calls made on
    them: with none, its parameters hold nothing; the function's own scope keeps the promise for calls unseen,
    unless every call of the tree entered a clone: then it stands for no call, and its promise would reach the
    callees it shares with the clones, `adjust(config)` given every config where each clone gives one), nor one of
    a clone made since this declaring pass began (Solver.settled: it is declared by the next pass, once it has run
    and the helpers it calls have returned)."""
    fid = scope.id
    clones = [sid for sid in s.contexts.get(fid, {}).values() if sid not in s.roots or sid in s.given]
    own = stands_for_calls(s, fid, clones)
    clones = [sid for sid in clones if sid in s.settled or sid not in s.roots]  # not one made since the pass began
    runs = [fid, *clones]
    called = runs if own else clones  # the runs whose parameters calls may fill
    for p in scope.params:
        if not p.annotations:
            continue
        empty = [
            sid
            for sid in called
            if not declared.informative(s.cells.variable(sid, p.name).union) and not defaulted(s, sid, p)
        ]
        if empty:
            promised = annotation(s, p.annotations, f"{fid}.{p.name}")
            for sid in empty:
                heap.write_variable(s, sid, p.name, PARAMETER, promised)
    if scope.returns:  # not a run whose every `return` that ran gave a literal (`return None` where a type check
        # ruled the other branches out: the function returns None there, no flow was lost)
        empty = [
            sid
            for sid in runs
            if not declared.informative(s.cells.returned(sid).union)
            and (not closed(s, sid) or not s.cells.returned(sid).union)
        ]
        if empty:
            promised = annotation(s, scope.returns, f"{fid}:return")
            for sid in empty:
                heap.write_return(s, sid, promised)


def closed(s: Solver, sid: str) -> bool:
    """Whether what the run `sid` returned is all it can return: each `return` that ran gave a literal, or the
    result of a call that entered runs of the tree only, each of them closed (`return get_linear_quant_method(...)`,
    where that helper returned None for an attention layer: no flow was lost, so the annotation promises nothing).
    A run met again through recursion counts as closed."""
    seen, todo = {sid}, [sid]
    while todo:
        run = todo.pop()
        if run in s.open_returns:
            return False
        for call in s.call_returns.get(run, ()):
            runs = s.entered.get(call)
            if not runs:
                return False
            for other in runs:
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
    return True


def stands_for_calls(s: Solver, fid: str, clones: list[str]) -> bool:
    """Whether function `fid`'s own scope may run for a call: a call entered it, or none entered any of its clones
    (the calls unseen: a library's callback, code outside the tree), or its contexts ran out (Solver.merged)."""
    return fid in s.given or fid in s.merged or not any(sid in s.given for sid in clones)


def defaulted(s: Solver, sid: str, p: Param) -> bool:
    """Whether parameter `p` of the run `sid` holds its default on every call: calls entered the run and none gave
    p a value (by position, keyword or a spread)."""
    calls = s.given.get(sid)
    if p.default is None or calls is None:
        return False
    return not any(p.name in given or SPREAD in given for given in calls.values())


def annotated_assign(s: Solver, scope: Scope, stmt: Assign, line: int) -> None:
    """`target: T = value` (or a bare `target: T` in a class body): the target gets the value; what T promises
    only in the declaring phase and only where nothing else reaches the target (a class body's field: no instance
    was given one)."""
    values = expressions.evaluate(s, stmt.value)
    if scope.kind == "class":
        values = {**values, **field_default(s, stmt.value)}
    for t in stmt.targets:
        assign(s, t, values)
    if not s.declaring or declared.informative(values):
        return
    for t in stmt.targets:
        if (
            scope.kind == "class"
            and isinstance(t, NameTarget)
            and declared.informative(classes.instance_attr(s, scope.id, t.id))
        ):
            continue
        if isinstance(t, Attribute) and held_elsewhere(s, t):
            continue
        assign(s, t, annotation(s, stmt.annotations, f"{scope.id}:{line}"), strong=False)


def held_elsewhere(s: Solver, target: Attribute) -> bool:
    """Whether every instance `target` is written on already holds a value of the tree in that attribute, which other
    statements wrote (`self._manager: Manager | None = None` in __init__, `self._manager = CPUManager()` where it is
    made), and no statement wrote it a library object (`req.grammar = future.result()`: there the flow was lost):
    nothing was lost for the annotation to stand in for."""
    owners = [o for o in expressions.evaluate(s, target.value) if o.kind == INSTANCE]
    return bool(owners) and all(written_by_the_tree(s, o.name, target.attr) for o in owners)


def written_by_the_tree(s: Solver, cls: str, name: str) -> bool:
    """Whether the attribute `name` of instances of `cls` was written a value of the tree, and besides only constants
    (its start, a reset to None): no library object, where what the tree made went through code it does not show."""
    found = False
    for k in classes.mro_walk(s, cls)[1]:
        cell = s.cells.attribute(k, name)
        s.cells.read(cell)
        for values in (cell.writers or {}).values():
            for v in values:
                if v.kind in declared.UNINFORMATIVE and v.kind != CONSTANT:
                    return False
                found = found or v.kind != CONSTANT
    return found


def narrowed(s: Solver, scope: Scope, stmt: Assign, check: Narrow) -> None:
    """`x = Narrow(x, T)`: x where a type check holds. A check no value that reached it passes rules its binding
    out (Solver.ruled_out), and so does a check of bindings all ruled out (the branch after `if isinstance(x, A):
    return` for an A, then `if isinstance(x, B):` that falls through): a later check of that binding finds nothing,
    and nothing was lost there."""
    given = expressions.evaluate(s, check.value)
    values = expressions.narrowing(s, check, given)
    for t in stmt.targets:
        assign(s, t, values)
    target = stmt.targets[0]
    if not values and isinstance(target, NameTarget) and (given or expressions.ruled_out(s, check.value)):
        s.ruled_out.add((scope.id, target.id, target.version))


def field_default(s: Solver, value: Expr) -> Values:
    """`name: T = field(default_factory=F)` in a class body, F a class of the tree: every instance made without the
    field gets a new F (dataclasses, pydantic), so the field holds an F, not whatever else T allows."""
    if not isinstance(value, Call) or not any(k.name == "default_factory" for k in value.keywords):
        return NOTHING
    if not any(v.kind == EXTERNAL and v.name in FIELD_SPECIFIERS for v in expressions.evaluate(s, value.func)):
        return NOTHING
    factory = next(k.value for k in value.keywords if k.name == "default_factory")
    return {instance(v.name): None for v in expressions.evaluate(s, factory) if v.kind == CLASS}


def held_by_an_object(e: Expr) -> bool:
    """Whether a container written through `e` is reached through an attribute (`self.loggers[i] = ...`,
    `self.table[a][b] = ...`), not only through local names."""
    while isinstance(e, Subscript):
        e = e.value
    return isinstance(e, Attribute)


def call_setters(s: Solver, receivers: Values, attr: str) -> None:
    """`x.name = v` on an instance whose class has a property `name` with a setter: the store calls the setter (its
    id is the getter's, as its __qualname__ is)."""
    for o in receivers:
        if o.kind == INSTANCE or o.kind == DISPATCHED:
            for m in classes.class_attr(s, o.name, attr, o):
                if m.kind == PROPERTY and m.name in s.setters:
                    sites.edge(s, m.name, Site(s.ctx.line, s.ctx.line, attr), Attribute(Name("<instance>"), attr))


def accessor(scope: Scope) -> str:
    """ "setter", "deleter" or "getter" for `@name.setter` (...) on `def name`, which adds to the property bound to the
    name; "" for any other def."""
    short = scope.id.rpartition(".")[2]
    for d in scope.decorator_names:
        owner, _, kind = d.rpartition(".")
        if owner == short and kind in ("setter", "deleter", "getter"):
            return kind
    return ""


def decorate(s: Solver, scope: Scope, value: Values) -> Values:
    """What the decorators of a def or class (innermost first) make of `value`: each decorator the tree defines is
    called with it, and the name gets what that returns (a wrapper, or the function itself through a decorator that
    returns its argument: atlas.graph.resolve.summaries.pass_through); one that hands it to a library
    (`return torch.compile(fn)`), or a decorator outside the tree, leaves the function itself there too."""
    site = Site(scope.start, 0, "")
    if accessor(scope):  # `@name.setter def name`: the name keeps its property (the getter's id)
        return value
    for deco in scope.decorators[::-1]:
        decorated: Values = {}
        applied = False
        for d in expressions.evaluate(s, deco):
            if d.kind in (FUNCTION, BOUND_METHOD, CLASS, INSTANCE) and d.name != scope.id:
                s.decorating = True
                decorated.update(this_application(apply(s, d, value, deco, site), value, d.name))
                s.decorating = False
                applied = True
            else:
                if d.kind == EXTERNAL:
                    sites.edge(s, d.name, site, deco)
                decorated.update(value)
        if applied and any(v.kind in (LIBRARY_RESULT, EXTERNAL) for v in decorated):
            decorated.update(value)
        value = decorated
    return value


def this_application(result: Values, value: Values, decorator: str) -> Values:
    """What one application of a decorator gives: what it returns, less the functions and classes it was given at
    its other applications (its returns are one cell for all of them: an identity decorator applied to a hundred
    kernels returns each of them everywhere). Kept: `value` itself, the wrappers and classes the decorator
    defines, the clones made for the one function given wherever they are defined (a decorator handing its argument
    to a helper that returns its own wrapper: `instrument` calling `instrument_otel(func)`), and other objects."""
    out: Values = {}
    inside = decorator + "."
    only = next(iter(value)).name if len(value) == 1 else None
    for v in result:
        if (
            (v.kind == FUNCTION or v.kind == CLASS)
            and v not in value
            and not v.name.startswith(inside)
            and (only is None or v.name.partition(SEPARATOR)[2] != only)
        ):
            continue
        out[v] = None
    return out


def apply(s: Solver, decorator: Value, value: Values, func: Expr, site: Site) -> Values:
    """Call `decorator` with `value`, as a decorator is."""
    if decorator.kind == CLASS:
        return calls.construct_with_values(s, decorator.name, [value], func, site)
    if decorator.kind == INSTANCE:
        out: Values = {}
        for m in classes.class_attr(s, decorator.name, "__call__", decorator):
            if m.kind == BOUND_METHOD:
                out.update(calls.call_with_values(s, m.name, m.receiver, [value], site, func))
        return out
    return calls.call_with_values(
        s, decorator.name, decorator.receiver if decorator.kind == BOUND_METHOD else None, [value], site, func
    )


def define_class(s: Solver, scope: Scope, target: NameTarget) -> None:
    cid = scope.id
    found = []
    for b in scope.bases:
        entries = []
        for v in expressions.evaluate(s, b):
            if v.kind == CLASS:
                entries.append(v.name)
            elif v.kind == EXTERNAL:
                entries.append(f"x:{v.name}")
            elif v.kind == BUILTIN:
                entries.append(f"b:{v.name}")
        found.append(tuple(sorted(entries)))
    classes.set_bases(s, cid, tuple(found))
    if not s.pycg:  # making the class calls a base's __init_subclass__ (an implicit classmethod) with it
        site = Site(scope.start, scope.start, "class")
        for m in classes.class_attr(s, cid, "__init_subclass__", None, start_after=cid):
            if m.kind == FUNCTION or m.kind == BOUND_METHOD:
                calls.call_with_values(s, m.name, klass(cid), [], site, Attribute(Name("<class>"), "__init_subclass__"))
    assign(s, target, decorate(s, scope, {klass(cid): None}))


def import_from(s: Solver, scope: Scope, stmt: ImportFrom) -> None:
    module = stmt.module
    internal = module in s.modules
    hook = f"{module}.__getattr__"
    if internal and module not in s.packages and hook in s.scopes and not s.pycg:
        # `from M import x` asks the module for `__path__` first (is it a package?): a plain module's __getattr__
        # (PEP 562) runs for it on every such import, whatever names follow
        sites.edge(s, hook, Site(stmt.line, stmt.line, "import"), Attribute(Name(module), "__getattr__"))
    for n in stmt.names:
        if n.name == "*":
            if internal:
                stars = s.stars.setdefault(scope.module, [])
                if module not in stars:
                    stars.append(module)
                    s.cells.mark(s.cells.topic("stars", scope.module))
                    s.cells.changed = True
            continue
        if internal:
            values = names.module_attribute(s, module, n.name)
            body = s.scopes.get(module)
            if (
                not values
                and not s.pycg
                and (body is None or n.name not in body.local_names)
                and module not in s.star_modules
            ):
                values = {external(f"{module}.{n.name}"): None}  # not defined in Python: a compiled extension, say
        else:
            values = {external(f"{module}.{n.name}"): None}
        assign(s, n.alias, values)
