"""Names and attributes for the call resolver: what a name may hold where it is read (its scope's bindings that
reach it, enclosing functions, the module, star imports, builtins), and what an attribute of a value may be."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Final

from atlas.graph.resolve import classes, heap, sites, summaries
from atlas.graph.resolve.cells import OUTSIDE
from atlas.graph.resolve.values import (
    BOUND_METHOD,
    BUILTIN,
    BUILTIN_METHOD,
    CLASS,
    CONSTANT,
    CONTAINER_METHOD,
    DISPATCHED,
    EXTERNAL,
    INSTANCE,
    LIBRARY_RESULT,
    MODULE,
    NOTHING,
    OBJECT,
    PARAM_RESULT,
    RAISED,
    SUPER,
    Value,
    Values,
    constant,
    external,
    instance,
    klass,
)
from atlas.model import Provenance
from atlas.parse.python.ir import Attribute, Call, Name, Return, Scope, Site

if TYPE_CHECKING:
    from atlas.graph.resolve.solver import Solver

BUILTINS: Final = frozenset(dir(builtins))
TYPE_PREFIX: Final[dict[type, str]] = {str: "<**PyStr**>", bytes: "<**PyStr**>"}  # PyCG's names of builtin types
TYPE_NAMES: Final[dict[str, type]] = {"str": str, "bytes": bytes}  # a values.some() constant's type


def lookup(s: Solver, name: str, versions: tuple[int, ...] | None) -> Values:
    """`name` read in the scope being evaluated (`versions`: its bindings that reach the read, for a local)."""
    scope = s.scopes[s.ctx.scope]
    if name in scope.local_names:
        return heap.read_local(s, scope.id, name, versions)
    if name not in scope.global_names:
        parent = scope.parent
        while parent:
            p = s.scopes[parent]
            if p.kind == "module":
                break
            if p.kind != "class" and name in p.local_names:
                return heap.read_enclosing(s, p.id, name)
            parent = p.parent
    found = module_attr(s, scope.module, name)
    if found:
        return found
    if name in BUILTINS:
        return {Value(BUILTIN, name): None}
    return NOTHING


def module_attr(s: Solver, module: str, name: str, seen: set[str] | None = None) -> Values:
    """`module.name` from outside the module's body: its binding, a submodule, or what a star import brings."""
    scope = s.scopes.get(module)
    out = heap.read_exported(s, module, name) if scope is not None and name in scope.local_names else NOTHING
    if name in s.submodules.get(module, ()):
        out = {**out, Value(MODULE, f"{module}.{name}"): None}
    if module in s.star_modules:  # only these get star imports: other modules need not depend on them
        s.cells.watch(s.cells.topic("stars", module))
        stars = s.stars.get(module)
        if not out and stars:
            seen = seen if seen is not None else set()
            seen.add(module)
            found: Values = {}
            for star in stars:
                if star not in seen:
                    found.update(module_attr(s, star, name, seen))
            return found
    return out


def is_library_module(dotted: str) -> bool:
    """Whether an external dotted name reads as a module (`torch.accelerator`), not a class or an instance of one
    (`torch.nn.Module`): modules are lower-case by convention. What the tree assigns on a module is seen by every
    reader of it; on a class of a library (any `nn.Module` typed by annotation) it would mix unrelated objects."""
    return all(part[:1].islower() or part[:1] == "_" for part in dotted.split("."))


def module_attribute(s: Solver, module: str, name: str) -> Values:
    """`module.name` read from outside the module (an attribute, `from module import name`): what the module binds,
    else, when it defines `__getattr__` (PEP 562: `vllm.envs.VLLM_X`), what that returns, with an edge to it."""
    out = module_attr(s, module, name)
    hook = f"{module}.__getattr__"
    if s.pycg or hook not in s.scopes or (out and name not in s.type_only.get(module, ())):
        return out
    line = s.ctx.line  # (a name bound only under `if TYPE_CHECKING:` is __getattr__'s too; its type is kept)
    sites.edge(s, hook, Site(line, line, name), Attribute(Name(module), "__getattr__"), Provenance.TYPE_INFERRED)
    return {**out, **heap.returns(s, hook)}


def instance_getattr(s: Solver, receiver: Value, name: str) -> Values:
    """`receiver.name` that neither the instance nor its class has, on a class of the tree defining __getattr__:
    Python calls it (a wrapper forwarding to what it wraps); an edge to it, and what it returns."""
    out: Values = {}
    for m in classes.class_attr(s, receiver.name, "__getattr__", receiver):
        if m.kind == BOUND_METHOD:
            line = s.ctx.line
            site = Site(line, line, name)
            func = Attribute(Name("<instance>"), "__getattr__")
            out.update(s.call_with_values(m.name, m.receiver, [{constant(name): None}], site, func))
            held = forwarded_to(s.scopes.get(m.name))
            key = (receiver.name, name)
            if held and key not in s.forwarding:  # `return getattr(self.worker, attr)`: the name read on what it
                s.forwarding.add(key)  # wraps (a wrapper of a wrapper of itself stops here)
                try:
                    inner = {
                        **classes.instance_attr(s, receiver.name, held),
                        **classes.class_attr(s, receiver.name, held, receiver),
                    }
                    out.update(getattr_(s, inner, name))
                finally:
                    s.forwarding.discard(key)
    return out


def forwarded_to(scope: Scope | None) -> str:
    """The attribute a forwarding `__getattr__(self, name)` reads the name on (`return getattr(self.worker,
    name)`), else ""."""
    if scope is None or len(scope.params) < 2:
        return ""
    me, key = scope.params[0].name, scope.params[1].name
    for step in scope.steps:
        stmt = step.stmt
        if isinstance(stmt, Return) and isinstance(stmt.value, Call):
            func, args = stmt.value.func, stmt.value.args
            if (
                isinstance(func, Name)
                and func.id == "getattr"
                and len(args) >= 2
                and isinstance(args[0], Attribute)
                and isinstance(args[0].value, Name)
                and args[0].value.id == me
                and isinstance(args[1], Name)
                and args[1].id == key
            ):
                return args[0].attr
    return ""


def setattr_(s: Solver, objects: Values, name: str, values: Values) -> None:
    """`obj.name = value` (or `setattr(obj, "name", value)`) for each of `objects`: the attribute of an instance or
    class, a module's variable, what a library module is patched with (`torch.x.f = noop`). An instance whose class
    defines `__setattr__` has it called: an edge to it, with the name and value."""
    values = summaries.concrete(s, values)  # an attribute outlives the call: no per-call-site results there
    for o in objects:
        if o.kind in (INSTANCE, CLASS, DISPATCHED):
            heap.write_attribute(s, o.name, name, values, o.kind == CLASS)
            if o.kind != CLASS and not s.pycg:
                for m in classes.class_attr(s, o.name, "__setattr__", o):
                    if m.kind == BOUND_METHOD:
                        s.call_with_values(
                            m.name,
                            m.receiver,
                            [{constant(name): None}, values],
                            Site(s.ctx.line, s.ctx.line, name),
                            Attribute(Name("<instance>"), "__setattr__"),
                        )
        elif o.kind == MODULE and o.name in s.scopes:
            heap.write_variable(s, o.name, name, OUTSIDE, values)
        elif o.kind == EXTERNAL and is_library_module(o.name):  # a library patched: `torch.x.f = noop`
            heap.write_attribute(s, o.name, name, values)


def getattr_(s: Solver, values: Values, name: str) -> Values:
    """`value.name` for each of `values`."""
    out: Values = {}
    is_bound = False  # only attributes bound to an instance can be properties
    for v in values:
        kind = v.kind
        if kind == MODULE:
            out.update(module_attribute(s, v.name, name))
        elif kind == EXTERNAL:
            out[external(f"{v.name}.{name}")] = None
            if name in s.patched_names and is_library_module(v.name):  # what the tree put there (`torch.accelerator.
                # empty_cache = noop`)
                out.update(s.cells.read(s.cells.attribute(v.name, name)))
        elif kind == LIBRARY_RESULT or kind == RAISED:
            out[v] = None
        elif (kind == INSTANCE or kind == DISPATCHED) and name == "__class__":
            out[klass(v.name)] = None  # `self.__class__(...)` makes one more of the receiver's class, as type(self)
        elif kind == INSTANCE or kind == DISPATCHED:
            found = classes.instance_attr(s, v.name, name)
            from_class = classes.class_attr(s, v.name, name, v)
            if found and not s.pycg:  # an instance attribute hides an external base's guess
                from_class = {c: None for c in from_class if c.kind != EXTERNAL}
            elif not found and not from_class and not s.pycg:
                from_class = instance_getattr(s, v, name)  # the class's __getattr__ gives it
                if not from_class:  # duck-typed: only subclasses define it
                    from_class = classes.subclass_members(s, v.name, name)
            out.update(found)
            out.update(from_class)
            is_bound = True
        elif kind == CLASS:
            out.update(classes.class_attr(s, v.name, name, None))
        elif kind == PARAM_RESULT:
            out.update(getattr_(s, summaries.param_results(s, v), name))
        elif kind == SUPER:  # looked up in the receiver's MRO after the class whose method called super()
            receiver = v.receiver if v.receiver is not None else instance(v.name)
            out.update(classes.class_attr(s, receiver.name, name, receiver, start_after=v.name))
            is_bound = True
        elif kind == CONSTANT and (v.name in TYPE_NAMES or type(v.extra) in TYPE_PREFIX):
            prefix = TYPE_PREFIX[TYPE_NAMES[v.name] if v.name else type(v.extra)]
            out[Value(BUILTIN_METHOD, f"{prefix}.{name}")] = None
        elif kind == OBJECT:
            out[Value(CONTAINER_METHOD, v.name, None, name)] = None
    return classes.resolve_properties(s, out, name) if is_bound else out
