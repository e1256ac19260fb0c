"""Calls for the call resolver: call sites, edges with their provenance, invoking each kind of value, passing
arguments into parameters, constructors, and calling instances (`__call__`, nn.Module's forward)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from atlas.graph.resolve import (
    builtins,
    classes,
    contexts,
    declared,
    dispatch,
    heap,
    names,
    sites,
    summaries,
)
from atlas.graph.resolve.heap import PARAMETER, SPREAD, Context
from atlas.graph.resolve.values import (
    BOUND_METHOD,
    BUILTIN,
    BUILTIN_METHOD,
    CLASS,
    CONSTANT,
    CONTAINER_METHOD,
    DISPATCHED,
    EXTERNAL,
    FUNCTION,
    GENERATOR,
    INSTANCE,
    LIBRARY_RESULT,
    MODULE,
    NOTHING,
    OBJECT,
    PARAM_RESULT,
    PROPERTY,
    RAISED,
    SUPER,
    Value,
    Values,
    instance,
    klass,
    without_constants,
)
from atlas.model import Provenance
from atlas.parse.python.ir import Attribute, Call, Expr, Keyword, Name, Scope, Site, Starred

if TYPE_CHECKING:
    from atlas.graph.resolve.solver import Solver

# External classes whose __call__ runs a method of the instance: calling a subclass's instance reaches that method.
CALL_RUNS: Final = {"torch.nn.Module": "forward", "torch.nn.modules.module.Module": "forward"}
_NOT_CALLABLE: Final = frozenset({CONSTANT, OBJECT, GENERATOR, SUPER, MODULE})


def call_expr(s: Solver, e: Call) -> Values:
    func = e.func
    receivers: Values | None = None
    if isinstance(func, Attribute):  # (the receiver kept: why a method was not found, atlas.graph.resolve.sites)
        receivers = s.evaluate(func.value)
        callees = names.getattr_(s, receivers, func.attr)
    else:
        callees = s.evaluate(func)
    stubs = unimplemented(s, callees) if receivers is not None and len(callees) > 1 else NOTHING
    site = e.site
    record = sites.record(s, site)
    out: Values = {}
    saved = s.arg_memo
    saved_site = s.site, s.site_record
    s.arg_memo = None  # the arguments are evaluated once, for the first callee that takes them
    s.site, s.site_record = site, record  # the edges this call makes name its targets (edge)
    for v in callees:
        if v.kind in _NOT_CALLABLE:
            continue
        if v in stubs:  # no edge; what it gives all the same (flows stay as if it were called)
            origin = s.origin.get(v.name, v.name)
            if origin in s.raising:
                out[Value(RAISED, origin)] = None
            continue
        out.update(invoke(s, v, e.args, e.keywords, site, func))
    if not arguments_evaluated(s, e):  # no callee took the arguments: their calls run all the same (a dataclass's
        evaluate_arguments(s, e.args, e.keywords)  # fields, an unknown callee)
    s.arg_memo = saved
    s.site, s.site_record = saved_site
    if not record.targets:
        sites.reach_outside(s, record, callees, func)
    if record.targets:
        record.reason = record.parameter = None
    else:
        sites.explain(s, record, func, callees, receivers)
    called = func.id if isinstance(func, Name) else func.attr if isinstance(func, Attribute) else ""
    if s.by_name and called in s.by_name:
        dispatch.note_named_call(s, s.by_name[called], e.args, e.keywords, site)
    if isinstance(func, Name) and not s.pycg:
        marker = summaries.param_call(s, func.id)  # a parameter called: each call site gets its argument's results
        if marker is not None:
            return {marker: None}
    return out


def unimplemented(s: Solver, callees: Values) -> Values:
    """Of the methods a call of an attribute reaches, those that only raise NotImplementedError
    (summaries.not_implemented), where another callee runs code: a receiver that may hold several classes holds, in a
    run that works, one whose class supports the call. `lora_context.punica_wrapper.add_lora_w13(...)` reaches the
    wrappers that implement it, not the base class's stub that the others inherit. Empty when no callee runs code."""
    stubs: Values = {}
    runs = False
    for v in callees:
        if (v.kind == BOUND_METHOD or v.kind == FUNCTION) and s.origin.get(v.name, v.name) in s.not_implemented:
            stubs[v] = None
        elif v.kind in _RUNS:
            runs = True
    return stubs if runs else NOTHING


_RUNS: Final = frozenset({BOUND_METHOD, FUNCTION, EXTERNAL, PROPERTY})  # callees that run code


def arguments_evaluated(s: Solver, e: Call) -> bool:
    memo = s.arg_memo
    return memo is not None and memo[0] is e.args and memo[2] is s.ctx


def invoke(
    s: Solver, v: Value, args: tuple[Expr, ...], keywords: tuple[Keyword, ...], site: Site | None, func: Expr
) -> Values:
    """What calling `v` with `args` returns; records the edges the call makes."""
    kind = v.kind
    if kind == FUNCTION:
        return call_function(s, v.name, None, args, keywords, site, func)
    if kind == BOUND_METHOD:
        return call_function(s, v.name, v.receiver, args, keywords, site, func)
    if kind == CLASS:
        return construct(s, v.name, args, keywords, func, site)
    if kind == EXTERNAL:
        return builtins.call_external(s, v, args, keywords, site, func)
    if kind == BUILTIN:
        return builtins.call_builtin(s, v.name, args, keywords, site, func)
    if kind == LIBRARY_RESULT or kind == RAISED:  # a method of an object a library returned: resolved outside the
        evaluate_arguments(s, args, keywords)  # tree, no edge; what a call that always raises gave: the same
        return {v: None}
    if kind == BUILTIN_METHOD:
        sites.edge(s, v.name, site, func)
        evaluate_arguments(s, args, keywords)
        return NOTHING
    if kind == CONTAINER_METHOD:
        return builtins.call_container_method(s, v, args, keywords, site, func)
    if kind == INSTANCE or kind == DISPATCHED:
        return call_instance(s, v, args, keywords, site, func)
    if kind == PROPERTY:
        return call_function(s, v.name, None, args, keywords, site, func)
    if kind == PARAM_RESULT:
        out: Values = {}
        for c in summaries.param_results(s, v):
            out.update(invoke(s, c, args, keywords, site, func))
        return out
    return NOTHING


def call_instance(
    s: Solver, v: Value, args: tuple[Expr, ...], keywords: tuple[Keyword, ...], site: Site | None, func: Expr
) -> Values:
    """Calling an instance runs its class's `__call__`; an external base's `__call__` that runs a method of the
    instance (nn.Module -> forward) reaches that method, or the function set on the instance in its place
    (`self.o_proj.forward = gated_forward`), called without the instance."""
    out: Values = {}
    for m in classes.class_attr(s, v.name, "__call__", v):
        method = CALL_RUNS.get(m.name.rpartition(".")[0]) if m.kind == EXTERNAL else None
        if method:
            for f in classes.class_attr(s, v.name, method, v):
                if f.kind == BOUND_METHOD or f.kind == FUNCTION:
                    receiver = f.receiver if f.kind == BOUND_METHOD else None
                    out.update(call_function(s, f.name, receiver, args, keywords, site, func, Provenance.TYPE_INFERRED))
        out.update(invoke(s, m, args, keywords, site, func))
    return out


KWARGS: Final = ":**"  # the allocation id of a function's `**kwargs` dict ends so


def dict_entries(s: Solver, values: Values) -> list[tuple[str, Values]] | None:
    """What `**values` passes by name: each key of the dicts built in the code it may be, with what they hold there;
    None when a key is not a known string or a value no such dict (the call may then give any parameter). Not a
    function's `**kwargs` (KWARGS): that one dict holds what all its callers passed, and a wrapper forwarding it
    would hand one caller's keywords to another's run (a decorated model's `__init__` its sibling's layer type)."""
    entries: dict[str, Values] = {}
    for v in values:
        if v.kind != OBJECT or s.kinds.get(v.name) != "dict" or v.name.endswith(KWARGS):
            return None
        for key in heap.slot_keys(s, v.name):
            if not isinstance(key, str) or key == "*":
                return None
            entries.setdefault(key, {}).update(heap.read_slot(s, v.name, key, flow=False))
    return list(entries.items()) if values else None


def evaluate_arguments(
    s: Solver, args: tuple[Expr, ...], keywords: tuple[Keyword, ...]
) -> tuple[list[Values], list[tuple[str | None, Values]]]:
    """The values of the arguments (parameter results made concrete; constants dropped but in PyCG mode). A call
    with several callees evaluates them once: the memo holds the last evaluation, for the same arguments in the same
    context (call_expr clears it around each call)."""
    memo: tuple | None = s.arg_memo
    if memo is not None and memo[0] is args and memo[1] is keywords and memo[2] is s.ctx:
        return memo[3], memo[4]
    values: list[Values] = []
    for a in args:
        values.append(summaries.concrete(s, s.evaluate(a.value if isinstance(a, Starred) else a)))
    keyword_values = [(k.name, summaries.concrete(s, s.evaluate(k.value))) for k in keywords]
    if not s.pycg:  # constants matter for PyCG's dict and list cases; in real code they only bloat cells
        values = [without_constants(v) for v in values]
        keyword_values = [(k, without_constants(v)) for k, v in keyword_values]
    s.arg_memo = (args, keywords, s.ctx, values, keyword_values)
    return values, keyword_values


def call_function(
    s: Solver,
    fid: str,
    receiver: Value | None,
    args: tuple[Expr, ...],
    keywords: tuple[Keyword, ...],
    site: Site | None,
    func: Expr,
    provenance: Provenance | None = None,
) -> Values:
    """Call the function `fid` (bound to `receiver`, for a method) with the arguments as written at `site`."""
    if fid not in s.scopes:
        return NOTHING
    values, keyword_values = evaluate_arguments(s, args, keywords)
    starred = [isinstance(a, Starred) for a in args]
    return call_values(s, fid, receiver, values, starred, keyword_values, site, func, provenance)


def call_with_values(
    s: Solver, fid: str, receiver: Value | None, values: list[Values], site: Site | None, func: Expr
) -> Values:
    """Call the function `fid` with positional arguments already evaluated (a decorator applied to what it
    decorates, a callback a builtin calls)."""
    if fid not in s.scopes:
        return NOTHING
    return call_values(s, fid, receiver, values, [False] * len(values), [], site, func)


def call_values(
    s: Solver,
    fid: str,
    receiver: Value | None,
    values: list[Values],
    starred: list[bool],
    keyword_values: list[tuple[str | None, Values]],
    site: Site | None,
    func: Expr,
    provenance: Provenance | None = None,
) -> Values:
    """Call the function `fid` with evaluated arguments, in the context they give (atlas.graph.resolve.contexts):
    a method in its receiver class's, a function given functions or classes in one per function or class; an
    edge to each scope it runs in."""
    scope = s.scopes[fid]
    if receiver is not None and receiver.kind == DISPATCHED:  # an instance chosen at run time
        provenance, receiver = Provenance.DISPATCH, instance(receiver.name)
    if receiver is not None:
        scope = contexts.for_receiver(s, scope, receiver)
    split = None
    if scope.id != fid and receiver is not None and not s.pycg:  # run per receiver class: and per class checked
        split = contexts.checked_contexts(s, s.scopes[fid], True, values, starred, keyword_values, receiver.name)
    elif scope.id not in s.origin and not s.pycg:
        if receiver is None and values and not starred[0]:
            split = contexts.explicit_receiver(s, scope, values, keyword_values)
        if split is None and contexts.higher_order(s, scope, receiver is not None):
            split = contexts.argument_contexts(s, scope, values, starred, keyword_values)
            if split is not None and not any(starred):
                split = contexts.and_checked(s, scope, receiver is not None, split)
        if split is None:
            split = contexts.checked_contexts(s, scope, receiver is not None, values, starred, keyword_values)
    if split is not None:
        out: Values = {}
        for target, these, keyword_these in split:
            sites.edge(s, target.id, site, func, provenance)
            out.update(enter(s, target, receiver, these, starred, keyword_these, site))
        return out
    sites.edge(s, scope.id, site, func, provenance)
    return enter(s, scope, receiver, values, starred, keyword_values, site)


def enter(
    s: Solver,
    scope: Scope,
    receiver: Value | None,
    values: list[Values],
    starred: list[bool],
    keyword_values: list[tuple[str | None, Values]],
    site: Site | None,
) -> Values:
    """Pass the arguments into the parameters of `scope` (a `*args` parameter gets a list of the rest, `**kwargs`
    a dict of the unmatched keywords) and give what the call returns."""
    fid = scope.id
    params = scope.params
    saved = s.ctx
    s.ctx = Context(saved.caller, -1, saved.caller, False)
    passed: dict[str, Values] = {}
    calls = s.given.setdefault(fid, {})
    if site is not None:  # this call's, as its latest run sees its arguments
        given: set[str] = set()
        calls[(saved.scope, site.end_line, site.end_col)] = given
        s.entered.setdefault((saved.scope, site.end_line, site.end_col), set()).add(fid)
    else:  # calls the code does not write (a decorator applied, a hook): all of them together
        given = calls.setdefault((saved.scope, 0, 0), set())
    named: list[tuple[str, Values]] = []  # the keywords, and what each `**d` of known keys passes
    for k, value in keyword_values:
        entries = [(k, value)] if k is not None else dict_entries(s, value)
        if entries is None:
            given.add(SPREAD)
        else:
            named.extend(entries)
    if any(starred):
        given.add(SPREAD)
    given.update(k for k, _ in named)
    pos = 0
    if receiver is not None and params:
        heap.write_variable(s, fid, params[0].name, PARAMETER, {receiver: None})
        passed[params[0].name] = {receiver: None}
        pos = 1
    rest: list[Values] = []
    for value, is_star in zip(values, starred):
        if is_star:
            break
        if pos >= len(params) or params[pos].star:
            rest.append(value)
            continue
        p = params[pos]
        given.add(p.name)
        if len(value) <= s.cap:
            heap.write_variable(s, fid, p.name, PARAMETER, value)
            passed[p.name] = value
        else:  # too wide a guess to pass on: calls through the parameter are past a bound
            s.out.capped.add((fid, p.name))
        pos += 1
    extra: list[tuple[str, Values]] = []
    for k, value in named:
        for p in params:
            if p.name == k and not p.star:
                if len(value) <= s.cap:
                    heap.write_variable(s, fid, k, PARAMETER, value)
                    passed[k] = value
                else:
                    s.out.capped.add((fid, k))
                break
        else:
            extra.append((k, value))
    for p in params:
        if p.star == "*" and rest:
            heap.write_variable(s, fid, p.name, PARAMETER, builtins.new_container(s, f"{fid}:*", "list", rest))
            mine: Values = {}
            for value in rest:
                mine.update(value)
            if len(mine) <= s.cap:
                passed["*" + p.name] = mine  # this call's positional arguments there (summaries.pass_through)
        elif p.star == "**" and extra:
            heap.write_variable(s, fid, p.name, PARAMETER, builtins.new_dict(s, fid + KWARGS, extra))
    if fid in s.roots:  # a clone: its parameters' defaults only where this call leaves them out
        explicit = {k for k, _ in keyword_values if k is not None}  # (the keys a `**d` passes may be another
        origin = s.origin[fid]  # call's: a dict merges what its callers put there)
        for p in params[pos:]:
            if p.default is not None and not p.star and p.name not in explicit:
                defaults = s.cells.read(s.cells.variable(origin, heap.DEFAULT + p.name))
                heap.write_variable(s, fid, p.name, PARAMETER, defaults)
    s.ctx = saved
    if scope.is_generator:
        return {Value(GENERATOR, fid): None}
    origin = s.origin.get(fid, fid)
    if origin in s.raising:
        return {Value(RAISED, origin): None}
    result = summaries.pass_through(s, fid, heap.returns(s, fid), passed)
    if origin in s.pr_functions:
        return summaries.instantiate(s, result, fid, passed, f"{s.ctx.caller}:{site.line if site else 0}")
    return result


def construct(
    s: Solver, cls: str, args: tuple[Expr, ...], keywords: tuple[Keyword, ...], func: Expr, site: Site | None
) -> Values:
    """`cls(...)`: its `__init__` runs on a new instance (an external base's `__init__` is an edge out of the tree);
    a class with no `__init__` in the tree (a dataclass, a msgspec Struct, a class whose only `__init__` is a
    library base's) gets the edge itself."""
    inst = instance(cls)
    declared.note_constructed(s, cls, s.class_of.get(s.ctx.scope, ""), site is not None and site is s.owning)
    if not s.pycg:  # a class of the tree defining __new__ (CustomOp's): it runs first, given the class
        for m in classes.class_attr(s, cls, "__new__", None):
            if m.kind == FUNCTION:
                call_function(s, m.name, klass(cls), args, keywords, site, func)
    inits = classes.class_attr(s, cls, "__init__", inst)
    for m in inits:
        if m.kind == BOUND_METHOD:
            call_function(s, m.name, inst, args, keywords, site, func)
        elif m.kind == EXTERNAL:
            sites.edge(s, m.name, site, func)
    if site is not None and not s.pycg and not any(m.kind == BOUND_METHOD for m in inits):
        sites.edge(s, cls, site, func)
        fields = classes.generated_init_fields(s, cls)
        if fields is not None:
            values, keyword_values = evaluate_arguments(s, args, keywords)
            starred = next((i for i, a in enumerate(args) if isinstance(a, Starred)), len(args))
            init_fields(s, inst, fields, list(zip(fields, values[:starred])) + keyword_values, site)
    return {inst: None}


def init_fields(s: Solver, inst: Value, fields: list[str], given: list[tuple[str | None, Values]], site: Site) -> None:
    """A generated `__init__` (a dataclass's): each argument becomes the attribute of its field; then the class's
    `__post_init__`, if it has one, runs on the instance."""
    for name, values in given:
        if name is not None and name in fields:
            heap.write_attribute(s, inst.name, name, summaries.concrete(s, values))
    for m in classes.class_attr(s, inst.name, "__post_init__", inst):
        if m.kind == BOUND_METHOD:
            call_with_values(s, m.name, inst, [], site, Attribute(Name("<instance>"), "__post_init__"))


def construct_with_values(s: Solver, cls: str, values: list[Values], func: Expr, site: Site | None) -> Values:
    """`cls(...)` with positional arguments already evaluated (a class used as a decorator)."""
    inst = instance(cls)
    inits = classes.class_attr(s, cls, "__init__", inst)
    for m in inits:
        if m.kind == BOUND_METHOD:
            call_with_values(s, m.name, inst, values, site, func)
        elif m.kind == EXTERNAL:
            sites.edge(s, m.name, site, func)
    if not any(m.kind == BOUND_METHOD for m in inits):
        sites.edge(s, cls, site, func)
    return {inst: None}
