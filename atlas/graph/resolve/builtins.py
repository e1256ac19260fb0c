"""Calls of what the tree does not define: builtin functions that move values (map, filter, iter, sorted, next,
enumerate, zip, getattr, super), methods of Python's containers, and library calls (nn.ModuleList and islice keep
their arguments' elements; triton.jit makes a kernel of a function)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from atlas.graph.resolve import calls, expressions, heap, names
from atlas.graph.resolve.values import (
    BOUND_METHOD, CLASS, CONSTANT, DICT_UPDATE, FUNCTION, LIBRARY_RESULT, LIST_PUT, NOTHING, SUPER, Value, Values, obj,
)
from atlas.model import Provenance
from atlas.parse.python.ir import Expr, Keyword, Name, Site, Starred

if TYPE_CHECKING:
    from atlas.graph.resolve.solver import Solver

# External callables whose result holds the elements of their arguments: "iterable" (the first argument's
# elements), "iterables" (every argument's elements) or "items" (each positional argument is an element).
CONTAINERS: Final = {"torch.nn.ModuleList": "iterable", "torch.nn.Sequential": "items",
                     "itertools.islice": "iterable", "itertools.chain": "iterables", "collections.deque": "iterable"}
_COPIES: Final = frozenset({"iter", "reversed", "sorted", "list", "tuple", "set", "frozenset"})


def call_external(s: Solver, v: Value, args: tuple[Expr, ...], keywords: tuple[Keyword, ...], site: Site | None,
                  func: Expr) -> Values:
    calls.edge(s, v.name, site, func, Provenance.STATIC if isinstance(func, Name) else Provenance.TYPE_INFERRED)
    values, _ = calls.evaluate_arguments(s, args, keywords)
    if s.pycg:
        return {v: None}
    if v.name in CONTAINERS:  # nn.ModuleList(layers), islice(layers, ...): the elements
        return new_list(s, v.name, site, elements(s, values, CONTAINERS[v.name], args))
    if v.name in calls.KERNEL_WRAPPERS:  # k = triton.jit(fn), triton.jit(**options)(fn)
        kernels = {f: None for f in (values[0] if values else NOTHING) if f.kind == FUNCTION}
        s.kernel_functions.update(f.name for f in kernels)
        return kernels or ({v: None} if not args else {Value(LIBRARY_RESULT, "triton"): None})
    return {Value(LIBRARY_RESULT, v.name.split(".")[0]): None}  # some object of that library


def new_list(s: Solver, name: str, site: Site | None, values: Values) -> Values:
    """A list made at this call site (by a builtin or library call) holding `values`."""
    alloc = f"{name}:{s.ctx.caller}:{site.line if site else 0}"
    s.kinds[alloc] = "list"
    heap.write_slot(s, alloc, "*", values)
    return {obj(alloc): None}


def elements(s: Solver, values: list[Values], how: str, args: tuple[Expr, ...]) -> Values:
    """The elements a container call gets from its evaluated arguments (see CONTAINERS)."""
    if how == "iterable":
        return expressions.iterate(s, values[0]) if values else {}
    out: Values = {}
    for a, value in zip(args, values):
        out.update(expressions.iterate(s, value) if how == "iterables" or isinstance(a, Starred) else value)
    return out


def call_container_method(s: Solver, v: Value, args: tuple[Expr, ...], keywords: tuple[Keyword, ...],
                          site: Site | None, func: Expr) -> Values:
    """`d.update(other)` copies other's slots into d; `l.append(x)`, `l.insert(i, x)`, `l.extend(xs)` add elements."""
    if v.kind == DICT_UPDATE:
        for a in args:
            if not isinstance(a, Starred):
                expressions.copy_slots(s, expressions.evaluate(s, a), v.name)
        return NOTHING
    if v.kind == LIST_PUT:
        method = str(v.extra)
        calls.edge(s, f"<**PyList**>.{method}", site, func)
        values, _ = calls.evaluate_arguments(s, args, keywords)
        if values:
            heap.write_slot(s, v.name, "*", expressions.iterate(s, values[0]) if method == "extend" else values[-1])
    return NOTHING


def call_builtin(s: Solver, name: str, args: tuple[Expr, ...], keywords: tuple[Keyword, ...], site: Site | None,
                 func: Expr) -> Values:
    calls.edge(s, f"<builtin>.{name}", site, func)
    if name == "super":
        cls = s.class_of.get(s.ctx.scope, "")
        calls.evaluate_arguments(s, args, keywords)
        return {Value(SUPER, cls): None} if cls else NOTHING
    values, _ = calls.evaluate_arguments(s, args, keywords)
    if name in ("map", "filter"):
        out: Values = {}
        for value in values:
            expressions.iterate(s, value)
        for value in values:
            for f in value:
                if f.kind in (FUNCTION, BOUND_METHOD, CLASS):
                    out.update(calls.invoke(s, f, (), (), site, func))
        return new_list(s, name, site, out)
    if name in _COPIES and values:
        return new_list(s, name, site, expressions.iterate(s, values[0]))
    if name == "next" and values:
        return expressions.iterate(s, values[0])
    if name in ("enumerate", "zip") and values:  # rows (index, element) / (element of each argument)
        row = f"{name}:{s.ctx.caller}:{site.line if site else 0}:row"
        s.kinds[row] = "list"
        for i, value in enumerate([{}, values[0]] if name == "enumerate" else values):
            heap.write_slot(s, row, i, expressions.iterate(s, value))
        return new_list(s, name, site, {obj(row): None})
    if name == "getattr" and len(values) >= 2:
        out = {}
        for k in values[1]:
            if k.kind == CONSTANT and isinstance(k.extra, str):
                out.update(names.getattr_(s, values[0], k.extra))
        return out
    return NOTHING

