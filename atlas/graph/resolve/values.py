"""The abstract values of call resolution: what an expression may evaluate to, one `Value` per possibility.

A set of values is an insertion-ordered dict (`Values`): iterating it gives the same order on every run, whatever
the hash seed, so resolution is deterministic. Sets a function returns may be shared (a cell's union, NOTHING):
never mutate one you did not make."""

from __future__ import annotations

from typing import Final, final

from atlas.graph.resolve.limits import MAX_EXTERNAL_PARTS

# What a value is (Value.kind), with what its fields hold:
FUNCTION: Final = 0  # a function or lambda: name = its id
BOUND_METHOD: Final = 1  # name = the function's id, receiver = the instance (or the class, for a classmethod)
CLASS: Final = 2  # the class object itself: name = class id
INSTANCE: Final = 3  # an instance of the class `name`
DISPATCHED: Final = 4  # an instance of `name` chosen at run time (a dispatch rule, a subclass): calls through it
#                         are DISPATCH edges
MODULE: Final = 5  # a module of the tree: name = its dotted id
EXTERNAL: Final = 6  # a name outside the tree: name = dotted (`torch.nn.Module`, `ext.Cls.fun`)
LIBRARY_RESULT: Final = 7  # some object a library call returned: name = the library's top package
BUILTIN: Final = 8  # a builtin function or class: name = its name (`len`, `list`)
BUILTIN_METHOD: Final = 9  # a method of a builtin type: name = `<**PyStr**>.join` (PyCG's naming)
CONSTANT: Final = 10  # a literal: extra = its value; or some str or bytes of unknown value: name = "str", "bytes"
OBJECT: Final = 11  # a list, tuple, set or dict: name = its allocation id (see Solver.kinds)
GENERATOR: Final = 12  # what calling a generator function returns: name = the function's id
SUPER: Final = 13  # super() in a method of class `name`
PROPERTY: Final = 14  # a property's getter, bound: name = the getter's id
PARAM_RESULT: Final = 15  # what calling parameter `extra` of function `name` returns (atlas.graph.resolve.summaries)
CONTAINER_METHOD: Final = 16  # the method `extra` (append, update, get, items...) of list or dict object `name`
RAISED: Final = 17  # what a call of a function that always raises gives (name = its id), and what is made of it
#                   (called, an attribute): nothing of the tree, not a flow the resolver lost (declared.informative)
UNBOUND: Final = "staticmethod"  # the extra of a FUNCTION `staticmethod(f)` made: read off a class, it is not bound

KIND_NAMES: Final = (
    "function",
    "bound method",
    "class",
    "instance",
    "dispatched",
    "module",
    "external",
    "library result",
    "builtin",
    "builtin method",
    "constant",
    "object",
    "generator",
    "super",
    "property",
    "parameter result",
    "container method",
    "raised",
)


@final
class Value:
    """One abstract value; equal values compare and hash equal (they are made anew all the time)."""

    def __init__(self, kind: int, name: str = "", receiver: Value | None = None, extra: object = None) -> None:
        self.kind = kind
        self.name = name
        self.receiver = receiver
        self.extra = extra
        self.hash = hash((kind, name, receiver, extra))

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Value):
            return False
        return self is other or (
            self.hash == other.hash
            and self.kind == other.kind
            and self.name == other.name
            and self.receiver == other.receiver
            and _same(self.extra, other.extra)
        )

    def __repr__(self) -> str:
        parts = [KIND_NAMES[self.kind], self.name]
        if self.receiver is not None:
            parts.append(f"on {self.receiver!r}")
        if self.extra is not None:
            parts.append(repr(self.extra))
        return f"<{' '.join(p for p in parts if p)}>"


def _same(a: object, b: object) -> bool:
    """Constants are equal as Python has them (0 == False == 0.0: one dict slot, as at run time)."""
    return a == b


Values = dict[Value, None]  # an ordered set of values
NOTHING: Final[Values] = {}


def one(v: Value) -> Values:
    return {v: None}


def function(fid: str) -> Value:
    return Value(FUNCTION, fid)


def bound(fid: str, receiver: Value) -> Value:
    return Value(BOUND_METHOD, fid, receiver)


def klass(cid: str) -> Value:
    return Value(CLASS, cid)


def instance(cid: str) -> Value:
    return Value(INSTANCE, cid)


def external(name: str) -> Value:
    """The name `name` outside the tree; past MAX_EXTERNAL_PARTS parts, some object of its library."""
    if name.count(".") >= MAX_EXTERNAL_PARTS:
        return Value(LIBRARY_RESULT, name.split(".")[0])
    return Value(EXTERNAL, name)


def obj(alloc: str) -> Value:
    return Value(OBJECT, alloc)


def constant(value: object) -> Value:
    return Value(CONSTANT, "", None, value)


def some(type_name: str) -> Value:
    """Some "str" or "bytes" whose value is unknown (an annotation's, what str() or `+` made): its methods are
    known, it names no key of a container."""
    return Value(CONSTANT, type_name)


def is_literal(v: Value) -> bool:
    """A constant whose value is known."""
    return v.kind == CONSTANT and not v.name


def without_constants(values: Values) -> Values:
    """`values` less its constants (the same set when it holds none)."""
    for v in values:
        if v.kind == CONSTANT:
            return {v: None for v in values if v.kind != CONSTANT}
    return values


def constant_keys(keys: Values) -> list[object] | None:
    """The constants `keys` holds, when it holds nothing else."""
    out: list[object] = []
    for k in keys:
        if not is_literal(k):
            return None
        out.append(k.extra)
    return out if out else None
