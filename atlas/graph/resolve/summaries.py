"""Higher-order calls for the call resolver. What a function gets by calling one of its parameters (`layer_fn(...)`
in `make_layers(n, layer_fn)`) is kept as a parameter result; where the function returns it, in containers too, each
call site gets what its own argument returns (the containers that hold one copied per call site), so one shared
helper does not mix the results of every caller. In the function's own body, and where it leaves the body other
than by its return (an argument, an attribute), it stands for what any argument returns."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas.graph.resolve import classes, heap
from atlas.graph.resolve.cells import CALL_SITE
from atlas.graph.resolve.limits import MAX_COPY_DEPTH, MAX_COPY_SLOTS
from atlas.graph.resolve.sites import calls_in
from atlas.graph.resolve.values import (
    BOUND_METHOD,
    CLASS,
    DISPATCHED,
    EXTERNAL,
    FUNCTION,
    GENERATOR,
    INSTANCE,
    LIBRARY_RESULT,
    NOTHING,
    OBJECT,
    PARAM_RESULT,
    Value,
    Values,
    instance,
    obj,
)
from atlas.parse.python.ir import Call, Constant, Evaluate, Name, Raise, Return, Scope, Subscript

if TYPE_CHECKING:
    from atlas.graph.resolve.solver import Solver


def param_call(s: Solver, name: str) -> Value | None:
    """The parameter result of `name(...)` when it calls a parameter of the function being evaluated (one that
    `calls_parameters` found)."""
    fid = s.ctx.scope
    return Value(PARAM_RESULT, fid, None, name) if name in s.pr_functions.get(s.origin.get(fid, fid), ()) else None


def param_results(s: Solver, v: Value) -> Values:
    """What the parameter's values give when called, for a use of a parameter result in its function's own body
    (never a parameter result itself: one the results hold is expanded in turn). Elsewhere, where only a container
    that was not copied per call site can have brought it, it stands for nothing: every caller's results would be a
    guess for any one of them."""
    out: Values = {}
    if s.ctx.scope != v.name:
        return out
    todo = [v]
    seen = {v}
    while todo:
        p = todo.pop()
        for r in call_results(s, heap.read_local(s, p.name, str(p.extra), None)):
            if r.kind != PARAM_RESULT:
                out[r] = None
            elif r not in seen:
                seen.add(r)
                todo.append(r)
    return out


def concrete(s: Solver, values: Values) -> Values:
    """`values` with each parameter result replaced by what it stands for: for a value leaving the function's
    locals, containers and return (an argument, an attribute, a global)."""
    if s.origin.get(s.ctx.scope, s.ctx.scope) not in s.pr_functions or not any(v.kind == PARAM_RESULT for v in values):
        return values  # (outside its own function a parameter result stands for nothing: kept, it stays inert)
    out: Values = {}
    for v in values:
        if v.kind == PARAM_RESULT:
            out.update(param_results(s, v))
        else:
            out[v] = None
    return out


def call_results(s: Solver, values: Values) -> Values:
    """What calling each of `values` returns, without evaluating a call (no edges, no arguments)."""
    out: Values = {}
    for f in values:
        kind = f.kind
        if kind == FUNCTION or kind == BOUND_METHOD:
            scope = s.scopes.get(f.name)
            if scope is not None:
                out.update({Value(GENERATOR, f.name): None} if scope.is_generator else heap.returns(s, f.name))
        elif kind == CLASS:
            out[instance(f.name)] = None
        elif kind == EXTERNAL:
            out[Value(LIBRARY_RESULT, f.name.split(".")[0])] = None
        elif kind == INSTANCE or kind == DISPATCHED:
            for m in classes.class_attr(s, f.name, "__call__", f):
                if m.kind == BOUND_METHOD:
                    out.update(heap.returns(s, m.name))
    return out


def instantiate(s: Solver, values: Values, fid: str, passed: dict[str, Values], tag: str, depth: int = 0) -> Values:
    """`values` (what `fid` returned) with its parameter results replaced by what the arguments `passed` to them
    return; a small container that holds one is copied under an allocation id of this call site (`tag`)."""
    s.cells.watch(s.cells.topic("holders", fid))  # a container of fid's that gains one later: the caller runs again
    holders = s.pr_holders.get(fid, set())
    out: Values = {}
    for v in list(values):  # a snapshot: the copies below may grow the cells `values` came from
        if v.kind == PARAM_RESULT and v.name == fid:
            out.update(call_results(s, passed.get(str(v.extra), {})))
        elif (
            v.kind == OBJECT
            and depth < MAX_COPY_DEPTH
            and CALL_SITE not in v.name
            and holders
            and holds_param_result(s, v.name, holders)
        ):  # (a copy is not copied again: allocations stay finite)
            copy = f"{v.name}{CALL_SITE}{tag}"
            s.kinds[copy] = s.kinds.get(v.name, "list")
            for key in list(heap.slot_keys(s, v.name)):
                heap.write_slot(
                    s,
                    copy,
                    key,
                    instantiate(s, heap.read_slot(s, v.name, key, flow=False), fid, passed, tag, depth + 1),
                )
            out[obj(copy)] = None
        else:
            out[v] = None
    return out


def holds_param_result(s: Solver, alloc: str, holders: set[str]) -> bool:
    """Whether the container holds a parameter result (`holders`: its function's), itself or in a container in one
    of its (few) slots."""
    if alloc in holders:
        return True
    keys = heap.slot_keys(s, alloc)
    if len(keys) > MAX_COPY_SLOTS:
        return False
    for key in keys:
        for v in heap.read_slot(s, alloc, key, flow=False):
            if v.kind == OBJECT and v.name in holders:
                return True
    return False


def pass_through(s: Solver, fid: str, result: Values, passed: dict[str, Values]) -> Values:
    """What a call of `fid` returns at one call site, when `fid` returns a parameter as it got it (`return fn` in a
    decorator that registers fn, `def identity(x): return x`): this site's argument for it, not every caller's."""
    params = s.passthrough.get(s.origin.get(fid, fid))
    if not params:
        return result
    others: Values = {}
    for p in params:  # (a `*args` parameter's elements: what every call passed there)
        others.update(heap.elements(s, f"{fid}:*") if p[0] == "*" else heap.read_local(s, fid, p, None))
    out = {v: None for v in result if v not in others}
    for p in params:
        out.update(passed.get(p, NOTHING))
    return out


def always_raising(scopes: dict[str, Scope]) -> frozenset[str]:
    """The functions that never return: a `raise` runs every time (not under if/for/while/try/with) and no `return`
    is written. Not an @abstractmethod: its overrides return, and reaching it says the receiver's class is unknown."""
    return frozenset(
        sid
        for sid, scope in scopes.items()
        if scope.kind == "function"
        and not scope.is_generator
        and any(step.strong and isinstance(step.stmt, Raise) for step in scope.steps)
        and not any(isinstance(step.stmt, Return) for step in scope.steps)
        and not classes.is_abstract_method(scope)
    )


def not_implemented(scopes: dict[str, Scope]) -> frozenset[str]:
    """The functions whose body only raises NotImplementedError, after a docstring or what formats its message: the
    idiom for a method a class does not support (calls.unimplemented). The message may call anything (the f-string
    parts the walker evaluates before the raise start on or after its line: `f"{type(self).__name__} ..."`); a
    statement before the raise may call nothing (a method that logs and then raises runs code)."""
    out = []
    for sid, scope in scopes.items():
        steps = scope.steps
        if scope.kind != "function" or not steps or not isinstance(steps[-1].stmt, Raise):
            continue
        raised = steps[-1].stmt.value
        if isinstance(raised, Call):
            raised = raised.func
        if not (isinstance(raised, Name) and raised.id == "NotImplementedError" and raised.versions is None):
            continue
        line = steps[-1].stmt.line
        if all(
            isinstance(step.stmt, Evaluate) and (step.stmt.line >= line or not any(calls_in(step.stmt)))
            for step in steps[:-1]
        ):
            out.append(sid)
    return frozenset(out)


def returned_parameters(scopes: dict[str, Scope]) -> dict[str, tuple[str, ...]]:
    """Function id -> the parameters it returns as it got them (`return p`, p never rebound before; `return
    args[0]` of a `*args` parameter: "*args", one of the positional arguments it got)."""
    out: dict[str, tuple[str, ...]] = {}
    for sid, scope in scopes.items():
        if scope.kind not in ("function", "lambda") or not scope.params:
            continue
        params = {p.name for p in scope.params if not p.star}
        star = {p.name for p in scope.params if p.star == "*"}
        found = []
        for step in scope.steps:
            value = step.stmt.value if isinstance(step.stmt, Return) else None
            if isinstance(value, Name) and value.id in params and value.versions == (0,):
                found.append(value.id)
            elif (
                isinstance(value, Subscript)
                and isinstance(value.value, Name)
                and value.value.id in star
                and value.value.versions == (0,)
                and isinstance(value.index, Constant)
                and type(value.index.value) is int
            ):
                found.append("*" + value.value.id)
        if found:
            out[sid] = tuple(dict.fromkeys(found))
    return out


def calls_parameters(scopes: dict[str, Scope]) -> dict[str, frozenset[str]]:
    """Function id -> the parameters its body calls (`layer_fn(...)`), found in the IR before the rounds."""
    out = {}
    for sid, scope in scopes.items():
        if scope.kind != "function":
            continue
        skip = 1 if scopes[scope.parent].kind == "class" else 0
        params = {p.name for p in scope.params[skip:] if not p.star}
        if not params or params.isdisjoint(scope.called_names):  # the walker saw no call of a parameter here
            continue
        called = set()
        todo: list[object] = [step.stmt for step in scope.steps]
        while todo:
            node = todo.pop()
            if isinstance(node, Call) and isinstance(node.func, Name) and node.func.id in params:
                called.add(node.func.id)
            if isinstance(node, (tuple, list)):
                todo.extend(node)
            elif hasattr(node, "__dataclass_fields__"):
                todo.extend(getattr(node, f) for f in node.__dataclass_fields__)
        if called:
            out[sid] = frozenset(called)
    return out
