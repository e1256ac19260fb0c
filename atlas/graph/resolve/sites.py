"""Call sites as resolution leaves them: for each call expression, what it reached (functions and classes of the
tree, names outside it) or, when nothing, why. atlas.graph.resolve.calls.call_expr keeps one record per call; the
edges the call makes name its targets (edge); `explain` runs where a call reached nothing."""

from __future__ import annotations

import builtins
import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from atlas.graph.resolve.values import (
    BUILTIN,
    CLASS,
    CONSTANT,
    CONTAINER_METHOD,
    DISPATCHED,
    GENERATOR,
    INSTANCE,
    LIBRARY_RESULT,
    RAISED,
    SUPER,
    Value,
    Values,
)
from atlas.model import Provenance, Unresolved
from atlas.parse.python.ir import Attribute, Call, Expr, Name, Scope, Site, Slice, Subscript

if TYPE_CHECKING:
    from atlas.graph.resolve.solver import Solver

PYCG_PREFIX: Final = {"dict": "<**PyDict**>", "list": "<**PyList**>"}  # PyCG's names of the builtin containers
OBJECT_ATTRIBUTES: Final = frozenset(dir(object))  # what every class has from `object` (`super().__init__()`)
BUILTIN_NAMES: Final = frozenset(dir(builtins))


# Which provenance an edge keeps when one call site reaches a callee in several ways (first = surest).
RANK: Final = {
    p: i
    for i, p in enumerate(
        (
            Provenance.STATIC,
            Provenance.LAUNCH,
            Provenance.TYPE_INFERRED,
            Provenance.STRING_DISPATCH,
            Provenance.DISPATCH,
            Provenance.REGISTRATION,
            Provenance.NAME_MATCH,
            Provenance.RUNTIME,
        )
    )
}


class SiteRecord:
    """One call expression: where it is, the names it reached (symbol ids of the tree, dotted names outside it, in
    the order found), and why it reached nothing (None while it reached something); for a parameter nobody passes,
    which one (function, name): a function nobody calls, or an argument too wide to pass, say more (the store
    tells, atlas.graph.sites)."""

    def __init__(self, site: Site, caller: str) -> None:
        self.site = site
        self.caller = caller
        self.targets: dict[str, None] = {}
        self.reason: Unresolved | None = None
        self.parameter: tuple[str, str] | None = None

    def __eq__(self, other: object) -> bool:
        """The same call with the same targets (in the same order) and reason: two resolutions agree on it."""
        return (
            isinstance(other, SiteRecord)
            and self.site == other.site
            and self.caller == other.caller
            and list(self.targets) == list(other.targets)
            and self.reason is other.reason
            and self.parameter == other.parameter
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<site {self.site.line}:{self.site.col} {self.site.text} {list(self.targets)} {self.reason}>"


def record(s: Solver, site: Site) -> SiteRecord:
    """The record of the call at `site` in the module being evaluated (made on its first evaluation)."""
    key = (s.module, site.end_line, site.end_col)
    found = s.out.sites.get(key)
    if found is None:
        found = s.out.sites[key] = SiteRecord(site, s.ctx.caller)
    return found


def ruled_out(s: Solver) -> None:
    """Records for the calls of statements no round ran, as a type check's branch that no value passes (Step.guard):
    each call has a status, and these say why they reached nothing."""
    ran = s.out.sites
    for scope, caller, step in s.plan_steps:
        if not step.guard:
            continue
        for call in calls_in(step.stmt):
            key = (scope.module, call.site.end_line, call.site.end_col)
            if key not in ran:
                record = ran[key] = SiteRecord(call.site, caller)
                record.reason = Unresolved.RULED_OUT


def calls_in(node: object) -> Iterator[Call]:
    """The calls in a statement or expression of the IR, outer ones first (nested scopes' bodies are theirs)."""
    if isinstance(node, (tuple, list)):
        for item in node:
            yield from calls_in(item)
    elif dataclasses.is_dataclass(node) and not isinstance(node, (Site, Scope)):
        if isinstance(node, Call):
            yield node
        for f in dataclasses.fields(node):
            yield from calls_in(getattr(node, f.name))


def reach_outside(s: Solver, record: SiteRecord, callees: Values, func: Expr) -> None:
    """Callees the call reaches with no edge: objects of a library (`tensor.view(...)` on some object torch
    returned: the name says which library, and the method called), a container's method (`d.update(...)`)."""
    for v in callees:
        if v.kind == LIBRARY_RESULT:
            attr = f".{func.attr}" if isinstance(func, Attribute) else ""
            record.targets[f"{v.name}.<object>{attr}"] = None
        elif v.kind == CONTAINER_METHOD:
            record.targets[f"{PYCG_PREFIX[s.kinds.get(v.name, 'list')]}.{v.extra}"] = None


def explain(s: Solver, record: SiteRecord, func: Expr, callees: Values, receivers: Values | None) -> None:
    """Why the call reached nothing. A method Python's own types give (`object.__init__` through `super()`, a
    builtin base's or a standard-library base's method, a generator's `send`) is a target outside the tree instead."""
    record.parameter = None
    if callees:
        raised = all(v.kind == RAISED for v in callees)
        record.reason = Unresolved.RAISES if raised else Unresolved.NOT_CALLABLE
        return
    if isinstance(func, Name):
        origin = name_reason(s, record, func)
        if origin:
            record.targets[f"{origin}.{func.id}"] = None
        return
    if isinstance(func, Attribute):
        receivers = {v: None for v in receivers or () if not (v.kind == CONSTANT and v.extra is None and not v.name)}
        if receivers:  # (None alone, a parameter's default, says nothing of what is passed)
            for name in python_methods(s, receivers, func.attr):
                record.targets[name] = None
            if not record.targets:
                record.reason = Unresolved.ATTRIBUTE
            return
        inner = func.value
        if not isinstance(inner, Name):
            record.reason = Unresolved.RECEIVER
            return
        origin = name_reason(s, record, inner)
        if origin:
            record.targets[f"{origin}.{inner.id}.{func.attr}"] = None
        elif record.reason is Unresolved.NO_VALUE:
            record.reason = Unresolved.RECEIVER
        return
    if isinstance(func, (Subscript, Slice, Call)):
        record.reason = Unresolved.DYNAMIC
        return
    record.reason = Unresolved.NOT_CALLABLE


def name_reason(s: Solver, record: SiteRecord, name: Name) -> str:
    """Why the name `name`, read in the scope being evaluated, has no value: a parameter nobody passes one to, a
    variable bound to nothing the resolver follows, or no binding at all; or, for a name only a star import of a
    module outside the tree can bind (`from ctypes import *`), that module (the reason is then None)."""
    scope = s.scopes[s.ctx.scope]
    n = name.id
    record.reason = Unresolved.NO_VALUE
    if n in scope.local_names:
        if name.versions is None or 0 in name.versions:
            parameter_reason(record, scope, n)
        return ""
    if n not in scope.global_names:
        parent = s.scopes.get(scope.parent)
        while parent is not None and parent.kind != "module":
            if parent.kind != "class" and n in parent.local_names:
                parameter_reason(record, parent, n)
                return ""
            parent = s.scopes.get(parent.parent)
    module = s.scopes.get(scope.module)
    if not (module is not None and n in module.local_names) and n not in BUILTIN_NAMES:
        stars = s.outside_stars.get(scope.module)
        if stars:  # `from ctypes import *`: one of what that module exports (the last such import's, say)
            record.reason = None
            return stars[-1]
        record.reason = Unresolved.NAME_NOT_BOUND
    return ""


def parameter_reason(record: SiteRecord, scope: Scope, name: str) -> None:
    if any(p.name == name for p in scope.params):
        record.reason = Unresolved.PARAMETER
        record.parameter = (scope.id, name)


def python_methods(s: Solver, receivers: Values, attr: str) -> list[str]:
    """The methods Python's own types give `receiver.attr` where the tree defines none: a builtin type's (`dict.
    fromkeys`, `int.bit_length`, a generator's `send`), a base outside the tree that the resolver does not follow
    (a builtin such as `dict` or `Exception`, a standard-library one such as `enum.Enum`, `typing.NamedTuple`),
    and `object`'s (`super().__init__()` in a class with no other base)."""
    out: list[str] = []
    for v in receivers:
        kind = v.kind
        if kind == BUILTIN:
            out.append(f"builtins.{v.name}.{attr}")
        elif kind == GENERATOR:
            out.append(f"builtins.generator.{attr}")
        elif kind == CONSTANT and v.extra is not None and not v.name:
            out.append(f"builtins.{type(v.extra).__name__}.{attr}")
        elif kind in (INSTANCE, DISPATCHED, CLASS, SUPER):
            base = outside_base(s, v)
            if base and (base.startswith("builtins.") or attr not in OBJECT_ATTRIBUTES):
                out.append(f"{base}.{attr}")
            elif attr in OBJECT_ATTRIBUTES:
                out.append(f"builtins.object.{attr}")
    return out


def outside_base(s: Solver, v: Value) -> str:
    """The first base outside the tree of `v`'s class, breadth first through its bases ("" if none): a builtin's
    name as `builtins.dict`, another as it is dotted."""
    seen = {v.name}
    todo = [v.name]
    while todo:
        cls = todo.pop(0)
        for alternatives in s.bases.get(cls, ()):
            for base in alternatives:
                if base.startswith("b:"):
                    return f"builtins.{base[2:]}"
                if base.startswith("x:"):
                    return base[2:]
                if base not in seen:
                    seen.add(base)
                    todo.append(base)
    return ""


def edge(s: Solver, callee: str, site: Site | None, func: Expr, provenance: Provenance | None = None) -> None:
    """An edge from the caller being evaluated to `callee` at `site`'s line; without `provenance`, what the callee
    expression says: a plain name, `self.`/`cls.`/`super().` static, a kernel subscript a launch, else inferred."""
    if site is s.site:  # the call being evaluated reaches the callee
        s.site_record.targets[callee] = None
    lines = s.out.edges.get((s.ctx.caller, callee))
    if lines is None:
        lines = s.out.edges[(s.ctx.caller, callee)] = {}
    line = site.line if site is not None else 0
    have = lines.get(line)
    if have is Provenance.STATIC:
        return
    if provenance is None:
        provenance = provenance_of(s, callee, func)
    if have is None or RANK[provenance] < RANK[have]:  # the surest way the site reached the callee
        lines[line] = provenance


def provenance_of(s: Solver, callee: str, func: Expr) -> Provenance:
    if isinstance(func, Name):
        return Provenance.STATIC
    if isinstance(func, Attribute):
        owner = func.value
        if isinstance(owner, Name) and owner.id in ("self", "cls"):
            return Provenance.STATIC
        if isinstance(owner, Call) and isinstance(owner.func, Name) and owner.func.id == "super":
            return Provenance.STATIC
    if (
        isinstance(func, Subscript)
        and callee in s.scopes
        and (
            s.origin.get(callee, callee) in s.kernel_functions
            or any(
                d.split("(")[0].rsplit(".", 1)[-1] in ("jit", "autotune", "heuristics")
                for d in s.scopes[callee].decorator_names
            )
        )
    ):
        return Provenance.LAUNCH
    return Provenance.TYPE_INFERRED
