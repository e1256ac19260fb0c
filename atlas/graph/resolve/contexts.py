"""Contexts for the call resolver: a function analysed apart per receiver class or per function or class it is given.

A method that several classes inherit runs with `self` of one class at a time; a decorator or a higher-order helper
runs with one function or class at a time. Such a function is analysed once per context, in a clone of its scope and
of the scopes inside it (closures, local classes), named `<id>@<context>`: what `self.x` reads, what a decorator's
wrapper calls and what a helper returns stay apart per context, so a base-class helper never continues into another
subclass and one wrapper never joins the functions it wraps. A clone runs the same statements as its origin; the
scope ids, lambdas and allocation sites they name take the clone's suffix (Context.suffix).

In the graph, a clone's root is its origin's node with the context on its edges (a method runs as one function for
every class), a scope cloned inside it is a node of its own (each application makes a new closure)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from atlas.graph.resolve import classes, sites
from atlas.graph.resolve.cells import SEPARATOR
from atlas.graph.resolve.classes import receiver_attribute
from atlas.graph.resolve.limits import MAX_CONTEXTS
from atlas.graph.resolve.values import BOUND_METHOD, CLASS, DISPATCHED, FUNCTION, INSTANCE, OBJECT, Value, Values
from atlas.model import Provenance
from atlas.parse.python.ir import Assign, Attribute, Call, Evaluate, Expr, Name, Narrow, Return, Scope, Starred

if TYPE_CHECKING:
    from atlas.graph.resolve.solver import Solver

CODE: Final = frozenset({FUNCTION, CLASS, BOUND_METHOD})  # the values a higher-order function is analysed apart for


def clone(s: Solver, fid: str, context: str) -> Scope | None:
    """The clone of function `fid` for `context` (made on first use, its statements added to the plan, to run in
    this round); None past MAX_CONTEXTS, unless a decorator is being applied (Solver.decorating): a decorator's
    clones are one per `@` in the tree, so they are bounded without the cap, and a decorator past it would join
    every function it wraps from then on in one wrapper (SGLang v0.5.23 applies `@cache_once` 272 times)."""
    have = s.contexts.setdefault(fid, {})
    cid = have.get(context)
    if cid is not None:
        return s.scopes[cid]
    if len(have) >= MAX_CONTEXTS and not s.decorating:
        s.merged.add(fid)
        return None
    suffix = SEPARATOR + context
    made_inside = s.scopes.get(fid + suffix)
    given = s.scopes.get(context)
    if made_inside is not None and made_inside.id not in s.roots and given is not None and given.kind == "function":
        # the copy that cloning the function enclosing `fid` made for the same function given (the wrapper a
        # decorator's helper made for it, itself applied to that function as a decorator): that one
        have[context] = made_inside.id
        return made_inside
    root = s.scopes[fid]
    made: list[Scope] = []
    todo = [root]
    while todo:
        scope = todo.pop()
        copy = copy_scope(scope, scope.id + suffix, scope.parent if scope is root else scope.parent + suffix)
        made.append(copy)
        todo.extend(s.children.get(scope.id, ()))
    for copy in made:  # a name bound twice keeps the last body, as Solver does for the originals
        s.scopes[copy.id] = copy
        s.origin[copy.id] = copy.id[: -len(suffix)]
        s.suffix[copy.id] = suffix
    for copy in made:
        s.caller_of[copy.id] = s.caller(copy)
        s.class_of[copy.id] = s.class_of.get(s.origin[copy.id], "")
    cid = root.id + suffix
    have[context] = cid
    s.roots.add(cid)
    for copy in sorted(made, key=lambda c: (c.start, c.id)):
        s.add_steps(copy)
    step = s.define_steps.get(fid)
    if step is not None:  # its def runs again: parameters' defaults and declared types reach the clone too
        s.cells.stale[step] = 1
        s.cells.changed = True
    return s.scopes[cid]


def for_receiver(s: Solver, scope: Scope, receiver: Value | None) -> Scope:
    """The scope a method runs in for `receiver`: the clone for the receiver's class when that is not the class
    defining the method (an inherited method, or one reached by super()) and the method's answer depends on it
    (`depends_on`); the method's own scope otherwise (then shared with other classes: Solver.shared)."""
    if s.pycg or receiver is None or (receiver.kind != INSTANCE and receiver.kind != CLASS) or scope.id in s.origin:
        return scope
    parent = s.scopes.get(scope.parent)
    if parent is None or parent.kind != "class" or receiver.name == parent.id:
        return scope
    if depends_on(s, scope, parent.id, receiver.name):
        found = clone(s, scope.id, receiver.name)
        if found is not None:
            return found
    s.shared.add(scope.id)
    return scope


def explicit_receiver(
    s: Solver, scope: Scope, values: list[Values], keyword_values: list[tuple[str | None, Values]]
) -> list[tuple[Scope, list[Values], list[tuple[str | None, Values]]]] | None:
    """A method called through a class with its receiver passed first (`Base.method(self, ...)`: a mixin, a
    patched `__call__` handing on to the original): per class of the receiver given, the scope `for_receiver` gives
    it, with that part of the first argument; None when every receiver runs the method's own scope, or the method
    is a staticmethod (its first argument is no receiver)."""
    if classes.method_class(s, scope) is None or not values or not values[0]:
        return None
    groups: dict[str, Values] = {}
    for v in values[0]:
        target = scope
        if v.kind == INSTANCE or v.kind == DISPATCHED:
            target = for_receiver(s, scope, v if v.kind == INSTANCE else Value(INSTANCE, v.name))
        groups.setdefault(target.id, {})[v] = None
    if len(groups) == 1 and scope.id in groups:
        return None
    return [(s.scopes[sid], [these, *values[1:]], keyword_values) for sid, these in groups.items()]


def depends_on(s: Solver, scope: Scope, cls: str, receiver: str) -> bool:
    """Whether method `scope` of class `cls` may do otherwise for a receiver of class `receiver`: it hands the
    receiver on (passes, returns or stores `self`, calls super(), or reads one of its methods as a value: a bound
    method holds it), or reads through it a name that a class between the receiver's and `cls` in the MRO defines,
    or that any class of the receiver's MRO sets on its instances (`self.x = ...` in its methods: instance
    attributes are kept per class, so even one `cls` sets differs)."""
    reads = s.receiver_reads.get(scope.id)
    if reads is None:
        reads = s.receiver_reads[scope.id] = receiver_reads(s, scope)
    names, hands_on, bound = reads
    if hands_on:
        return True
    if not names:
        return False
    mro = classes.mro_walk(s, receiver)[1]
    if cls not in mro:
        return True  # a function set on another class: analyse it apart
    if any(defines_method(s, k, name) for k in mro for name in bound):
        return True  # `return self.forward_cuda`: a bound method holds the receiver
    before = True
    for k in mro:
        before = before and k != cls
        body = s.scopes.get(k)
        if body is None:
            continue
        if (before and not names.isdisjoint(body.local_names)) or not names.isdisjoint(assigned(s, k)):
            return True
    return False


def receiver_reads(s: Solver, scope: Scope) -> tuple[frozenset[str], bool, frozenset[str]]:
    """The attribute names method `scope` (and the scopes inside it) reads on its first parameter, whether it hands
    that parameter on (any other use of it, or a call of super()), and the names of those it reads as a value, not
    to call them (`return self.forward_cuda`: a method read so is bound to the receiver)."""
    me = scope.params[0].name if scope.params else ""
    names: set[str] = set()
    values: set[str] = set()
    hands_on = False
    bodies = [scope]
    while bodies:
        body = bodies.pop()
        bodies.extend(s.children.get(body.id, ()))
        todo: list[object] = [step.stmt for step in body.steps]
        while todo:
            x = todo.pop()
            if isinstance(x, Call) and isinstance(x.func, Attribute) and receiver_attribute(x.func, me):
                names.add(x.func.attr)
                todo.extend(getattr(x, f) for f in x.__dataclass_fields__ if f != "func")
            elif isinstance(x, Attribute) and receiver_attribute(x, me):
                names.add(x.attr)
                values.add(x.attr)
            elif isinstance(x, Name):
                hands_on |= x.id == me or x.id == "super"
            elif isinstance(x, (tuple, list)):
                todo.extend(x)
            elif hasattr(x, "__dataclass_fields__"):
                todo.extend(getattr(x, f) for f in x.__dataclass_fields__)
    return frozenset(names), hands_on, frozenset(values)


def defines_method(s: Solver, cls: str, name: str) -> bool:
    """Whether the body of class `cls` defines a function `name`."""
    scope = s.scopes.get(f"{cls}.{name}")
    return scope is not None and scope.kind == "function"


def assigned(s: Solver, cls: str) -> frozenset[str]:
    """The attribute names the methods of class `cls` set on their first parameter (`self.x = ...`)."""
    found = s.self_assigned.get(cls)
    if found is None:
        out: set[str] = set()
        for method in s.children.get(cls, ()):
            me = method.params[0].name if method.kind == "function" and method.params else ""
            for step in method.steps if me else ():
                stmt = step.stmt
                if isinstance(stmt, Assign):
                    out.update(t.attr for t in stmt.targets if isinstance(t, Attribute) and receiver_attribute(t, me))
        found = s.self_assigned[cls] = frozenset(out)
    return found


def higher_order(s: Solver, scope: Scope, bound: bool) -> bool:
    """Whether calls of `scope` are analysed per function or class given (not a clone): a function, or a method
    that makes a closure (`self.maybe_compile(fn)` returning a `wrapper` over `fn`: one wrapper per function, as a
    decorator's; `bound`: called on a receiver)."""
    if s.pycg or scope.kind not in ("function", "lambda") or scope.id in s.origin:
        return False
    if classes.method_class(s, scope) is None:
        return not bound
    return any(child.kind in ("function", "lambda") for child in s.children.get(scope.id, ()))


def argument_contexts(
    s: Solver, scope: Scope, values: list[Values], starred: list[bool], keyword_values: list[tuple[str | None, Values]]
) -> list[tuple[Scope, list[Values], list[tuple[str | None, Values]]]] | None:
    """For a call of a higher-order function given functions or classes (or containers of them): per function,
    class or container given to the first parameter that gets some, the clone for it and the arguments with that
    parameter holding it alone (and the other values given there); None when the call gives none, or past
    MAX_CONTEXTS."""
    params = scope.params
    position = -1  # which argument (positional index, or len(values) + keyword index) carries the context
    for i, (value, star) in enumerate(zip(values, starred)):
        if star:
            break
        if any(_carries(s, v) for v in value):
            position = i
            break
    if position < 0:
        names = {p.name for p in params if not p.star}
        for j, (name, value) in enumerate(keyword_values):
            if name in names and any(_carries(s, v) for v in value):
                position = len(values) + j
                break
    if position < 0:
        return None
    given = values[position] if position < len(values) else keyword_values[position - len(values)][1]
    rest = {v: None for v in given if not _carries(s, v)}
    out = []
    for v in given:
        if not _carries(s, v):
            continue
        target = clone(s, scope.id, _context_of(s, scope, v))
        if target is None:
            return None
        one: Values = {v: None, **rest}
        if position < len(values):
            out.append((target, [*values[:position], one, *values[position + 1 :]], keyword_values))
        else:
            k = position - len(values)
            name = keyword_values[k][0]
            out.append((target, values, [*keyword_values[:k], (name, one), *keyword_values[k + 1 :]]))
    return out


def _context_of(s: Solver, scope: Scope, v: Value) -> str:
    """The context a function or class given to `scope` makes: itself, also when it is a clone (a lambda made in a
    method's run for a subclass is that run's own); but a clone of a scope inside `scope` (a wrapper handed back to
    its own decorator) or a clone of a clone stands for what it copies, so that contexts do not nest without end."""
    origin = s.origin.get(v.name)
    if origin is None:
        return v.name
    if origin.startswith(scope.id + ".") or v.name.count(SEPARATOR) > 1:
        return origin
    return v.name


def _carries(s: Solver, v: Value) -> bool:
    """Whether `v` gives a higher-order function a context: a function or class, or a container of classes only
    (a list of kernel classes a helper filters: per list, the helper returns that list's classes)."""
    if v.kind in CODE:
        return True
    if v.kind != OBJECT:
        return False
    keys = s.slot_keys.get(v.name)  # read, not watched: a call does not run again on each change of an argument's
    if not keys:  # elements (such lists are module constants, filled before any function runs)
        return False
    found = False
    for key in keys:
        for e in s.cells.slot(v.name, key).union:
            if e.kind != CLASS:
                return False
            found = True
    return found


def checked_contexts(
    s: Solver,
    scope: Scope,
    bound: bool,
    values: list[Values],
    starred: list[bool],
    keyword_values: list[tuple[str | None, Values]],
    within: str = "",
) -> list[tuple[Scope, list[Values], list[tuple[str | None, Values]]]] | None:
    """For a call of a function that checks a parameter's type (`if isinstance(layer, LinearBase): ...`, a quant
    config's get_quant_method given each layer): per class of the instances given there, the clone for it (context
    `<parameter>=<class>`, or `<context>;<parameter>=<class>` within another context the call chose: a receiver
    class's, for_receiver, or a function's given, argument_contexts) and the arguments with that parameter holding
    those instances alone; None when the function checks none, or the call gives that parameter no instance of the
    tree (`bound`: the call binds the first parameter to a receiver)."""
    checked = checked_parameter(s, scope)
    if not checked:
        return None
    params = [p.name for p in scope.params]
    index = params.index(checked) - (1 if bound else 0)
    position = index if 0 <= index < len(values) and not any(starred[: index + 1]) else -1
    if position < 0:
        found = [j for j, (name, _) in enumerate(keyword_values) if name == checked]
        if not found:
            return None
        position = len(values) + found[0]
    given = values[position] if position < len(values) else keyword_values[position - len(values)][1]
    by_class: dict[str, Values] = {}
    for v in given:
        if v.kind == INSTANCE or v.kind == DISPATCHED:
            by_class.setdefault(v.name, {})[v] = None
    if not by_class:
        return None
    rest = {v: None for v in given if v.kind != INSTANCE and v.kind != DISPATCHED}
    out = []
    for cls, these in by_class.items():
        target = clone(s, scope.id, f"{within};{checked}={cls}" if within else f"{checked}={cls}")
        if target is None:
            return None
        one: Values = {**these, **rest}
        if position < len(values):
            out.append((target, [*values[:position], one, *values[position + 1 :]], keyword_values))
        else:
            k = position - len(values)
            out.append((target, values, [*keyword_values[:k], (checked, one), *keyword_values[k + 1 :]]))
    return out


def and_checked(
    s: Solver, scope: Scope, bound: bool, split: list[tuple[Scope, list[Values], list[tuple[str | None, Values]]]]
) -> list[tuple[Scope, list[Values], list[tuple[str | None, Values]]]]:
    """A split per function or class given (argument_contexts), each part split again per class of the parameter the
    function checks (`_get_quant_method(layer, prefix, Linear=..., Moe=...)`: per method classes given, and per
    layer class); a part past MAX_CONTEXTS stays whole."""
    out = []
    for target, values, keyword_values in split:
        starred = [False] * len(values)
        within = target.id[len(scope.id) + len(SEPARATOR) :]
        parts = checked_contexts(s, scope, bound, values, starred, keyword_values, within)
        out.extend(parts if parts is not None else [(target, values, keyword_values)])
    return out


def checked_parameter(s: Solver, scope: Scope) -> str:
    """The first parameter whose type the function checks as it was given: its own statements narrow it (a Narrow of
    the parameter's binding), or a statement hands it on as given, in a call that is the whole statement's value, to
    a method of its class (`return self._get_quant_method(layer, prefix)`) or a function of its module whose
    parameter it becomes is checked; or "". Memoized in Solver.checked (a cycle of such calls checks nothing)."""
    found_memo = s.checked.get(scope.id)
    if found_memo is not None:
        return found_memo
    s.checked[scope.id] = ""
    names = {p.name for p in scope.params if not p.star}
    found: set[str] = set()
    for step in scope.steps:
        stmt = step.stmt
        value = stmt.value if isinstance(stmt, (Assign, Evaluate, Return)) else None
        if isinstance(value, Narrow) and not (value.identity or value.guard or value.attribute):
            if isinstance(value.value, Name) and value.value.id in names and value.value.versions == (0,):
                found.add(value.value.id)
        elif isinstance(value, Call):
            found.update(_handed_to_checked(s, scope, value, names))
    out = s.checked[scope.id] = next((p.name for p in scope.params if p.name in found), "")
    return out


def _handed_to_checked(s: Solver, scope: Scope, call: Call, names: set[str]) -> list[str]:
    """The parameters of `scope` that `call` passes as given to a checked parameter of a method of its class (through
    its first parameter) or a function of its module."""
    func = call.func
    callee: Scope | None = None
    skip = 0
    if isinstance(func, Attribute) and isinstance(func.value, Name) and scope.params:
        parent = s.scopes.get(scope.parent)
        if parent is not None and parent.kind == "class" and func.value.id == scope.params[0].name:
            defining = classes.defining_class(s, parent.id, func.attr)
            callee, skip = s.scopes.get(f"{defining}.{func.attr}"), 1
    elif isinstance(func, Name) and func.id not in scope.local_names:
        callee = s.scopes.get(f"{scope.module}.{func.id}")
    if callee is None or callee.kind != "function" or callee.id in s.origin:
        return []
    inner = checked_parameter(s, callee)
    if not inner:
        return []
    params = [p.name for p in callee.params]
    out: list[Expr] = []
    for i, a in enumerate(call.args):
        if isinstance(a, Starred):
            break
        if i + skip < len(params) and params[i + skip] == inner:
            out.append(a)
    out.extend(k.value for k in call.keywords if k.name == inner)
    return [a.id for a in out if isinstance(a, Name) and a.id in names and a.versions == (0,)]


def copy_scope(scope: Scope, sid: str, parent: str) -> Scope:
    """`scope` under another id and parent; its statements and name sets are shared (read-only while solving)."""
    return Scope(
        sid,
        scope.kind,
        parent,
        scope.module,
        scope.start,
        scope.end,
        scope.params,
        scope.decorators,
        scope.decorator_names,
        scope.bases,
        scope.returns,
        scope.is_generator,
        scope.local_names,
        scope.global_names,
        scope.nonlocal_names,
        scope.body,
        scope.steps,
        scope.exit_versions,
        scope.called_names,
        scope.fields,
        scope.guards,
        scope.guard_negates,
    )


def node_of(s: Solver, sid: str) -> tuple[str, str]:
    """The graph node a scope's calls belong to and the context they were made in: a clone's root is its origin
    in the clone's context; a scope cloned inside it is a node of its own; a method's own scope runs in its class's
    context (unless calls past MAX_CONTEXTS were merged into it: any context)."""
    origin = s.origin.get(sid)
    if origin is not None:
        if sid in s.roots:
            return origin, sid[len(origin) + 1 :]
        return sid, ""
    if sid in s.merged or sid in s.shared:
        return sid, ""
    scope = s.scopes.get(sid)
    if scope is None:
        return sid, ""
    parent = classes.method_class(s, scope)
    return sid, parent.id if parent is not None else ""


def finish(s: Solver) -> None:
    """The resolution's edges between graph nodes (node_of): a clone's edges on its origin's node, the contexts they
    were made in kept per edge line; each call site's caller the function the code shows, its targets nodes."""
    out = s.out
    edges: dict[tuple[str, str], dict[int, Provenance]] = {}
    found: dict[tuple[str, str, int], set[tuple[str, str]]] = {}
    ranks = sites.RANK
    for (caller, callee), lines in out.edges.items():
        a, a_ctx = node_of(s, caller)
        b, b_ctx = node_of(s, callee)
        have = edges.setdefault((a, b), {})
        for line, provenance in lines.items():
            was = have.get(line)
            if was is None or ranks[provenance] < ranks[was]:
                have[line] = provenance
            if a_ctx or b_ctx:
                found.setdefault((a, b, line), set()).add((a_ctx, b_ctx))
    for record in out.sites.values():  # one per call expression: its caller is the function the code shows
        record.caller = s.origin.get(record.caller, record.caller)
        record.targets = {node_of(s, t)[0]: None for t in record.targets}
    out.edges = edges
    out.contexts = found
    out.clones = {sid: origin for sid, origin in s.origin.items() if sid not in s.roots}
