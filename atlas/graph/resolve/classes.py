"""The class hierarchy as resolution finds it: each class's bases (what its base expressions evaluate to), MROs
(memoized until a base in them changes), direct subclasses, and attribute lookup through the MRO."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from atlas.graph.mro import linearize
from atlas.graph.resolve import heap
from atlas.graph.resolve.cells import ON_CLASS
from atlas.graph.resolve.limits import MAX_SUBCLASS_METHODS
from atlas.graph.resolve.values import (
    CLASS,
    DISPATCHED,
    FUNCTION,
    NOTHING,
    PROPERTY,
    UNBOUND,
    Value,
    Values,
    bound,
    external,
    instance,
    klass,
)
from atlas.parse.python.ir import Attribute, Name, Scope, Site, Subscript

if TYPE_CHECKING:
    from atlas.graph.resolve.solver import Solver

PLAIN_BASES: Final = frozenset({"abc", "typing", "typing_extensions", "enum", "dataclasses", "builtins", "collections"})
ENUM_BASES: Final = frozenset(
    {"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag", "enum.ReprEnum"}
)
TUPLE_BASES: Final = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple"})
# Library bases that generate `__init__` from the annotated fields, as a dataclass does (keyword arguments, fields in
# order).
FIELD_BASES: Final = frozenset({"msgspec.Struct", "pydantic.BaseModel", "pydantic.main.BaseModel"})
# What an MRO entry is
INTERNAL: Final = 0  # a class of the tree
PLAIN: Final = 1  # a base of the standard library that defines nothing a call could reach (object-like)
OUTER: Final = 2  # a class outside the tree: an attribute it lacks here may be its own
BUILTIN: Final = 3  # a builtin type


def mro_walk(s: Solver, cls: str) -> tuple:
    """(MRO, its internal classes, per entry (class or external name, what it is)), memoized until a base in it
    changes; the statement being evaluated then depends on the bases of every class in it."""
    got = s.mro_memo.get(cls)
    if got is None:
        if cls in s.mro_active:  # a cycle of bases (a class named after its base, say): stop here
            return ((cls,), (cls,), ((cls, INTERNAL),))
        s.mro_active.add(cls)
        try:
            mro = linearize(cls, s.bases, lambda base: mro_walk(s, base)[0])
        finally:
            s.mro_active.discard(cls)
        walk = tuple(
            (k[2:], PLAIN if k[2:].split(".")[0] in PLAIN_BASES else OUTER)
            if k.startswith("x:")
            else (k, BUILTIN)
            if k.startswith("b:")
            else (k, INTERNAL)
            for k in mro
        )
        internal = tuple(k for k, what in walk if what == INTERNAL)
        got = s.mro_memo[cls] = (mro, internal, walk)
        for k in mro:
            s.mro_users.setdefault(k, set()).add(cls)
    if s.mro_read.get(cls) != s.num_evaluated:  # once per statement run (bases change rarely)
        s.mro_read[cls] = s.num_evaluated
        for k in got[1]:
            s.cells.watch(s.cells.topic("bases", k))
    return got


def mro(s: Solver, cls: str) -> tuple[str, ...]:
    return mro_walk(s, cls)[0]


DYNAMIC_ATTRIBUTES: Final = ("__getattr__", "__getattribute__")  # an object defining one may have any attribute


def has_library_base(s: Solver, cls: str) -> bool:
    """Whether a base of `cls` is a library's class (`torch.nn.Module`), whose code may hand out what its instances
    hold (`named_parameters()`, `modules()`) where the tree does not show it."""
    return any(what == OUTER for _, what in mro_walk(s, cls)[2])


def is_enum(s: Solver, cls: str) -> bool:
    """Whether `cls` derives from enum.Enum (or a kind of it): its class-body names are its members."""
    return any(what == PLAIN and name in ENUM_BASES for name, what in mro_walk(s, cls)[2])


def set_bases(s: Solver, cid: str, bases: tuple[tuple[str, ...], ...]) -> None:
    """The bases `class cid(...)` evaluated to (internal ids, `x:<external>`, `b:<builtin>`)."""
    if s.bases.get(cid) == bases:
        return
    s.bases[cid] = bases
    for user in s.mro_users.pop(cid, ()):
        s.mro_memo.pop(user, None)
        s.abstract.pop(user, None)
    s.cells.changed = True
    s.cells.mark(s.cells.topic("bases", cid))
    for base in [b for alts in bases for b in alts if not b.startswith(("x:", "b:"))]:
        subs = s.direct_subclasses.setdefault(base, {})
        if cid not in subs:
            subs[cid] = None
            s.cells.mark(s.cells.topic("subclasses", base))


def class_attr(s: Solver, cls: str, name: str, receiver: Value | None, start_after: str = "") -> Values:
    """`name` looked up on class `cls` through its MRO (after `start_after` when given), bound to `receiver`. A
    class outside the tree may have any name: it answers for it, unless a class of the tree later in the MRO
    defines a plain (non-dunder) name, as a mixin listed after `nn.Module` does (`class M(nn.Module, Mixin)`)."""
    mro_, internal, walk = mro_walk(s, cls)
    if start_after:
        walk = walk[mro_.index(start_after) + 1 :] if start_after in mro_ else ()
    outside: Values | None = None  # what the first class outside the tree answers, if nothing later does
    dunder = name.startswith("__") and name.endswith("__")
    for k, what in walk:
        if what != INTERNAL:
            if what == PLAIN or outside is not None:
                continue
            outside = {external(f"{k}.{name}"): None} if what == OUTER else NOTHING
            if dunder:
                return outside
            continue
        scope = s.scopes.get(k)
        if scope is None:
            continue
        cell = s.cells.watch(s.cells.attribute(k, name))
        defined = name in scope.local_names
        if not defined and cell.writers is None:
            continue
        values = heap.read_exported(s, k, name) if defined else NOTHING
        out: Values = {}
        member = instance(k) if values and is_enum(s, k) else None
        for v in values:
            if member is not None and v.kind not in (FUNCTION, CLASS, PROPERTY):
                out[member] = None  # an enum's class-body name is a member: an instance of the enum
            else:
                out[bind_attr(s, v, receiver, cls)] = None
        on_class = NOTHING  # a function set on an instance stays a plain function; one set on the class is bound
        if receiver is not None and any(v.kind == FUNCTION for v in cell.union):
            on_class = s.cells.read(s.cells.attribute(k, ON_CLASS + name))
        for v in cell.union:
            out[v if v.kind == FUNCTION and v not in on_class else bind_attr(s, v, receiver, cls)] = None
        return out
    return outside if outside is not None else NOTHING


def generated_init_fields(s: Solver, cls: str) -> list[str] | None:
    """The parameters of the `__init__` Python generates for `cls` when no class of the tree writes one: the fields
    of a dataclass (`@dataclass`, `@dataclasses.dataclass(...)`) or NamedTuple, bases' first, in the order they are
    declared; None for any other class."""
    mro_, internal, walk = mro_walk(s, cls)
    generated = any(name in TUPLE_BASES or name in FIELD_BASES for name, what in walk if what != INTERNAL)
    fields: list[str] = []
    for k in internal[::-1]:
        scope = s.scopes.get(k)
        if scope is None:
            continue
        if any(d.split("(")[0].rsplit(".", 1)[-1] == "dataclass" for d in scope.decorator_names):
            generated = True
        fields.extend(f for f in scope.fields if f not in fields)
    return fields if generated else None


def instance_attr(s: Solver, cls: str, name: str) -> Values:
    """What instances of `cls` (or the class, from outside its body) were given as `name`, through the MRO."""
    out: Values = {}
    for k in mro_walk(s, cls)[1]:
        out.update(s.cells.read(s.cells.attribute(k, name)))
    return out


def is_made(s: Solver, cls: str) -> bool:
    """Whether the program makes instances of `cls` (atlas.graph.resolve.declared): named as a value or
    constructed, and not abstract."""
    return (cls in s.constructed or cls.rpartition(".")[2] in s.made_names) and not is_abstract(s, cls)


NOT_PROTOCOL_MEMBERS: Final = frozenset(  # the methods a runtime Protocol check does not look for
    {"__init__", "__new__", "__init_subclass__", "__class_getitem__", "__subclasshook__"}
)


def method_class(s: Solver, scope: Scope) -> Scope | None:
    """The class `scope` is a method of, the one whose instances (or, for a classmethod, itself) it takes first;
    None for a function outside a class and for a staticmethod, which takes no receiver."""
    parent = s.scopes.get(scope.parent)
    if parent is None or parent.kind != "class" or "staticmethod" in scope.decorator_names:
        return None
    return parent


def is_abstract_method(scope: Scope) -> bool:
    """Whether a function is decorated @abstractmethod (or abc.abstractmethod)."""
    return any(d.rpartition(".")[2] == "abstractmethod" for d in scope.decorator_names)


def is_abstract(s: Solver, cls: str) -> bool:
    """Whether `cls` can have no instances: a Protocol (it names Protocol among its bases), or a class whose MRO
    leaves an @abstractmethod without a concrete definition before it. Python refuses to make either."""
    found = s.abstract.get(cls)
    if found is None:
        found = False
        seen: set[str] = set()
        for k in mro_walk(s, cls)[1]:
            body = s.scopes.get(k)
            if body is None:
                continue
            if k == cls and any(_names_protocol(b) for b in body.bases):
                found = True
                break
            for method in s.children.get(k, ()):
                name = method.id.rpartition(".")[2]
                if method.kind != "function" or name in seen:
                    continue
                seen.add(name)
                if is_abstract_method(method):
                    found = True
            if found:
                break
        s.abstract[cls] = found
    return found


def protocol_methods(s: Solver, cls: str) -> tuple[str, ...] | None:
    """The methods a Protocol class of the tree declares (its own and its Protocol bases'), which a runtime type check
    against it looks for on the object; None when `cls` is no Protocol."""
    body = s.scopes.get(cls)
    if body is None or not any(_names_protocol(b) for b in body.bases):
        return None
    out: dict[str, None] = {}
    for k in mro_walk(s, cls)[1]:
        base = s.scopes.get(k)
        if base is None or (k != cls and not any(_names_protocol(b) for b in base.bases)):
            continue
        for method in s.children.get(k, ()):
            name = method.id.rpartition(".")[2]
            if method.kind == "function" and name not in NOT_PROTOCOL_MEMBERS:
                out[name] = None
    return tuple(out)


def satisfies(s: Solver, cls: str, protocol: str, methods: tuple[str, ...]) -> bool:
    """Whether an instance (or the class object) of `cls` passes a runtime check against `protocol`: it derives from
    it, or has each of its methods."""
    return protocol in mro_walk(s, cls)[1] or all(defining_class(s, cls, m) for m in methods)


def _names_protocol(e: object) -> bool:
    return (
        (isinstance(e, Name) and e.id == "Protocol")
        or (isinstance(e, Attribute) and e.attr == "Protocol")
        or (isinstance(e, Subscript) and _names_protocol(e.value))
    )


def cone(s: Solver, cls: str) -> list[str]:
    """`cls` and its subclasses of the tree (the statement depends on new subclasses and new allocations)."""
    out = [cls]
    seen = {cls}
    i = 0
    while i < len(out):
        c = out[i]
        i += 1
        s.cells.watch(s.cells.topic("subclasses", c))
        for sub in s.direct_subclasses.get(c, {}):
            if sub not in seen and sub in s.scopes:
                seen.add(sub)
                out.append(sub)
    s.cells.watch(s.cells.topic("made", cls))
    return out


def made_in_cone(s: Solver, cls: str) -> list[str]:
    """The classes of `cls`'s cone the program makes; all of the cone when it makes none of them (they are made
    where the tree does not show it: an entry point, a plugin, a test)."""
    whole = cone(s, cls)
    made = [c for c in whole if is_made(s, c)]
    return made or [c for c in whole if not is_abstract(s, c)] or [cls]


def defining_class(s: Solver, cls: str, name: str) -> str:
    """The class of the tree whose body defines `name` as instances of `cls` see it (first in the MRO)."""
    for k in mro_walk(s, cls)[1]:
        scope = s.scopes.get(k)
        if scope is not None and name in scope.local_names:
            return k
    return ""


def subclass_members(s: Solver, cls: str, name: str, receiver_kind: int = DISPATCHED) -> Values:
    """`name` as the subclasses of `cls` that define it have it, when `cls` has none: methods and class attributes
    (bound to an instance of the subclass: calls through them are DISPATCH edges; `self.impl.do_kv_cache_update()` on
    an AttentionImplBase), and, for a class with few subclasses (a mixin, a component holding a back-reference),
    what their instances were given (a mixin reads what the class it is mixed into set). Nothing when more than
    MAX_SUBCLASS_METHODS subclasses have one (too generic to follow)."""
    subclasses = [sub for sub in made_in_cone(s, cls) if sub != cls]
    few = len(subclasses) <= MAX_SUBCLASS_METHODS
    out: Values = {}
    found = 0
    for sub in subclasses:
        if defining_class(s, sub, name):
            got = class_attr(s, sub, name, Value(receiver_kind, sub))
        elif few:
            got = s.cells.read(s.cells.attribute(sub, name))
        else:
            continue
        if got:
            found += 1
            out.update(got)
    return out if found <= MAX_SUBCLASS_METHODS else NOTHING


def bind_attr(s: Solver, v: Value, receiver: Value | None, cls: str) -> Value:
    """A function found on a class, as the attribute access gives it: bound to the receiver (a method), to the class
    (a classmethod), itself (a staticmethod, or looked up on the class), a property's getter."""
    if v.kind != FUNCTION:
        return v
    scope = s.scopes.get(v.name)
    decos = scope.decorator_names if scope is not None else ()
    if "staticmethod" in decos or v.extra == UNBOUND:
        return v
    if "classmethod" in decos:
        return bound(v.name, klass(cls))
    if receiver is not None:
        if "property" in decos or "cached_property" in decos or "functools.cached_property" in decos:
            return Value(PROPERTY, v.name, receiver)
        return bound(v.name, receiver)
    return v


def resolve_properties(s: Solver, values: Values, name: str) -> Values:
    """`values` (an attribute `name` read on an instance) with each property replaced by what its getter returns;
    the read calls the getter (an edge at the statement's line)."""
    for v in values:
        if v.kind == PROPERTY:
            break
    else:
        return values
    out: Values = {}
    for v in values:
        if v.kind == PROPERTY:
            if s.pycg:
                out.update(heap.returns(s, v.name))
            else:
                line = s.ctx.line
                out.update(
                    s.call_values(
                        v.name, v.receiver, [], [], [], Site(line, line, name), Attribute(Name("<instance>"), name)
                    )
                )
        else:
            out[v] = None
    return out


def receiver_attribute(e: Attribute, me: str) -> bool:
    """Whether `e` is an attribute of the name `me` (`self.x`)."""
    return isinstance(e.value, Name) and e.value.id == me
