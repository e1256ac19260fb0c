"""Expressions for the call resolver: the values of an IR expression (atlas.parse.python.ir): names, attributes,
calls, literals and the containers they make, subscripts, slices, iteration."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from atlas.graph.resolve import calls, classes, declared, heap, names, summaries
from atlas.graph.resolve.heap import PARAMETER
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
    NOTHING,
    OBJECT,
    PARAM_RESULT,
    RAISED,
    Value,
    Values,
    constant,
    constant_keys,
    function,
    instance,
    is_literal,
    klass,
    obj,
    some,
)
from atlas.parse.python.grammar import IN_PLACE_METHODS
from atlas.parse.python.ir import (
    UNKNOWN,
    Attribute,
    Call,
    Constant,
    DictDisplay,
    Display,
    Either,
    Elements,
    Expr,
    Lambda,
    Name,
    Narrow,
    Operation,
    Site,
    Slice,
    Starred,
    Subscript,
)

if TYPE_CHECKING:
    from atlas.graph.resolve.solver import Solver

# `a += b` runs a.__iadd__(b), else a.__add__(b) (then b.__radd__(a)): the in-place method -> the binary one
INPLACE: Final = {in_place: binary for binary, in_place in IN_PLACE_METHODS.items()}
# The special method Python calls when an operand's class lacks the first: formatting an object without
# `__format__` runs object's, which calls `__str__`; a truth test without `__bool__` asks `__len__`; an in-place
# operator without its method runs the binary one.
FALLBACK: Final = {"__format__": "__str__", "__bool__": "__len__", **INPLACE}


def evaluate(s: Solver, e: Expr) -> Values:
    if isinstance(e, Name):
        return names.lookup(s, e.id, e.versions)
    if isinstance(e, Attribute):
        return names.getattr_(s, evaluate(s, e.value), e.attr)
    if isinstance(e, Call):
        return calls.call_expr(s, e)
    if isinstance(e, Constant):
        return {constant(e.value): None}
    if isinstance(e, Subscript):
        return subscript(s, evaluate(s, e.value), e.index, e.line)
    if isinstance(e, Display):
        return display(s, e)
    if isinstance(e, DictDisplay):
        return dict_display(s, e)
    if isinstance(e, Lambda):
        return lambda_(s, e)
    if isinstance(e, Either):
        out: Values = {}
        for x in e.options:
            out.update(evaluate(s, x))
        return out
    if isinstance(e, Elements):
        return iterate(s, evaluate(s, e.value))
    if isinstance(e, Operation):
        return operation(s, e)
    if isinstance(e, Slice):
        return slice_(s, e)
    if isinstance(e, Narrow):
        return narrow(s, e)
    return NOTHING


def narrow(s: Solver, e: Narrow) -> Values:
    """What `e.value` may be where the code checked it is an instance of `e.types`: the instances of the tree whose
    class derives from one of them (or, for a Protocol, has its methods); what the resolver cannot tell apart (a
    library's object, a builtin type checked, anything for a type it does not know) kept. Nothing when the value is
    known and none passes (the branch never runs), unless the check names one of Python's types (`str`, `dict`):
    configuration and parsed text arrive as those through what the resolver does not follow (argparse, json), so
    such a branch runs with one. A value nothing flowed to is, in the declaring phase, what the check says: an
    object of the library or builtin types checked, what the checked classes of the tree promise
    (declared.promised), or an instance of each when the program makes none. So is a known value none of whose
    values passes an `assert`, where the program makes an instance that can: code after an assert that always
    fails is rare, flow the resolver lost is not."""
    return narrowing(s, e, evaluate(s, e.value))


def narrowing(s: Solver, e: Narrow, values: Values) -> Values:
    """What of `values` (what `e.value` may be) passes the check `e` (see narrow)."""
    if e.identity:
        return identity(s, e, values)
    if e.guard:
        return guarded(s, e, values)
    if e.attribute:
        return having(s, e, values)
    checked: list[str] = []  # classes of the tree
    others: set[str] = set()  # names of the library or builtin types checked
    python: set[str] = set()  # of those, Python's own
    for t in checked_types(s, e.types):
        if t.kind == CLASS:
            checked.append(t.name)
        elif t.kind in (EXTERNAL, BUILTIN):
            others.add(t.name)
            if t.kind == BUILTIN:
                python.add(t.name)
        else:
            others.add("")  # a type the resolver does not know: anything may pass
    protocols: dict[str, tuple[str, ...]] = {}  # checked Protocols: an object passes by having their methods
    for cls in checked:
        methods = classes.protocol_methods(s, cls)
        if methods is not None:
            protocols[cls] = methods
    out: Values = {}
    unknown = "" in others
    for v in values:
        if v.kind == INSTANCE or v.kind == DISPATCHED:
            walk = classes.mro_walk(s, v.name)[2]
            passes = any(k in checked or k in others or k[2:] in others for k, _ in walk) or any(
                classes.satisfies(s, v.name, p, m) for p, m in protocols.items()
            )
            if unknown or passes != e.negative:
                out[v] = None
        elif v.kind == CLASS and protocols and not others:  # a class object has its methods too
            if any(classes.satisfies(s, v.name, p, m) for p, m in protocols.items()) != e.negative:
                out[v] = None
        elif others or e.negative:
            out[v] = None
    if not out and not e.negative and values:
        out.update(library_objects(python))
    if e.negative or out or not s.declaring or given_to_clones(s, e.value) or ruled_out(s, e.value):
        return out
    known = declared.informative(values)
    if known and not e.asserted:
        return out
    out.update(library_objects(others))  # the check says it is one of the library's or Python's types
    for cls in checked:
        if not known:
            out.update(declared.promised(s, cls, False) or {instance(cls): None})
        elif any(classes.is_made(s, c) for c in classes.cone(s, cls)):
            out.update(declared.promised(s, cls, False))
    return out


def guarded(s: Solver, e: Narrow, values: Values) -> Values:
    """`f(x)` as a condition, true (or false, `e.negative`), where f is a function of the tree annotated to return
    `TypeIs[T]` or `TypeGuard[T]` (`if supports_multimodal(model):`): the values of x that can be a T (a class
    object for `type[T]`; an object whose `__getattr__` may answer the check's probe, as a wrapper handing on to
    what it wraps does) when true; when a TypeIs is false, those that are not one for certain (their class derives
    from T: a class that only has a Protocol T's methods may fail a check made of flags). Every value when f may be
    anything else, when a T is no class of the tree (`TypeIs[list[T]]`) or for a false TypeGuard."""
    instances: list[str] = []
    class_objects: list[str] = []
    found = False
    for f in evaluate(s, e.types):
        scope = s.scopes.get(f.name) if f.kind == FUNCTION or f.kind == BOUND_METHOD else None
        if scope is None or not scope.guards or (e.negative and not scope.guard_negates):
            return values
        for a in scope.guards:
            checked = [t.name for t in evaluate(s, a.type) if t.kind == CLASS]
            if a.container or not checked:
                return values
            (class_objects if a.is_class else instances).extend(checked)
        found = True
    if not found:
        return values
    protocols: dict[str, tuple[str, ...]] = {}  # the Protocols named: an object passes by having their methods
    for p in (*instances, *class_objects):
        methods = classes.protocol_methods(s, p)
        if methods is not None:
            protocols[p] = methods
    out: Values = {}
    for v in values:
        named = instances if v.kind == INSTANCE or v.kind == DISPATCHED else class_objects if v.kind == CLASS else None
        if not named:  # no class of the tree, or a check that says nothing of such a value
            out[v] = None
            continue
        derives = any(k in named for k in classes.mro_walk(s, v.name)[1])
        if e.negative:
            if not derives:
                out[v] = None
        elif (
            derives
            or any(classes.satisfies(s, v.name, p, protocols[p]) for p in named if p in protocols)
            or any_attribute(s, v.name)
        ):
            out[v] = None
    return out


def having(s: Solver, e: Narrow, values: Values) -> Values:
    """`hasattr(x, "name")`, true (or false, `e.negative`): the instances of the tree's classes that may have the
    attribute (its class or a base defines it, the code writes it on one, or a library base or a `__getattr__` may
    supply anything: an nn.Module serves its registered buffers); where false, those whose classes do not define it
    (an attribute written on instances may still be missing). Other values are kept either way."""
    out: Values = {}
    for v in values:
        if v.kind != INSTANCE and v.kind != DISPATCHED:
            out[v] = None
            continue
        defined = bool(classes.defining_class(s, v.name, e.attribute))
        if e.negative:
            if not defined:
                out[v] = None
        elif (
            defined
            or classes.has_library_base(s, v.name)
            or any_attribute(s, v.name)
            or any(s.cells.read(s.cells.attribute(k, e.attribute)) for k in classes.mro_walk(s, v.name)[1])
        ):
            out[v] = None
    return out


def any_attribute(s: Solver, cls: str) -> bool:
    """Whether instances of `cls` may answer any attribute (the class or a base defines `__getattr__` or
    `__getattribute__`: a wrapper handing lookups on to what it wraps)."""
    return any(classes.defining_class(s, cls, name) for name in classes.DYNAMIC_ATTRIBUTES)


def library_objects(types: set[str]) -> Values:
    """An object of each of the library or builtin `types` (dotted names, or a builtin's own)."""
    return {Value(LIBRARY_RESULT, "builtins" if "." not in t else t.split(".", 1)[0]): None for t in types if t}


def checked_types(s: Solver, types: Expr) -> Values:
    """The types a type check names: a class, or each of a tuple of them or a union (`A | B`), nested."""
    out: Values = {}
    todo = [types]
    while todo:
        t = todo.pop()
        if isinstance(t, Display):
            todo.extend(t.elements)
        elif isinstance(t, Operation) and t.method == "__or__":
            todo.extend(t.operands)
        elif isinstance(t, Starred):  # `(*BASE_TYPES, C)`
            out.update(iterate(s, evaluate(s, t.value)))
        else:
            out.update(evaluate(s, t))
    return out


def identity(s: Solver, e: Narrow, values: Values) -> Values:
    """What `e.value` may be where the code checked it is (or, `e.negative`, is not) a class of the tree: that class
    when the value may be it (a value of the tree that is another class or an instance cannot); any value but it.
    A check against anything else (a constant, an object) says nothing."""
    checked = {t.name for t in evaluate(s, e.types) if t.kind == CLASS}
    if not checked:
        return values
    if e.negative:
        return {v: None for v in values if v.kind != CLASS or v.name not in checked}
    out: Values = {}
    for v in values:
        if v.kind == CLASS and v.name in checked:
            out[v] = None
        elif v.kind in (EXTERNAL, LIBRARY_RESULT, OBJECT):  # what the resolver cannot tell apart may be it
            out.update((klass(c), None) for c in checked)
    if not values and s.declaring:
        out.update((klass(c), None) for c in checked)
    return out


def given_to_clones(s: Solver, value: Expr) -> bool:
    """Whether `value` is a parameter of a function whose callers pass their values to its clones (contexts): the
    function itself is given nothing, and a type check of it says nothing of a call."""
    scope = s.ctx.scope
    if not isinstance(value, Name) or not s.contexts.get(scope) or scope in s.merged:
        return False
    return any(p.name == value.id for p in s.scopes[scope].params)


def ruled_out(s: Solver, value: Expr) -> bool:
    """Whether `value` is a name whose every binding that reaches here an earlier check ruled out (`if
    isinstance(layer, LinearBase): return ...` then `if isinstance(layer, FusedMoE)` for a linear layer): nothing
    is left to check, and no flow was lost there."""
    if not isinstance(value, Name) or not value.versions:
        return False
    return all((s.ctx.scope, value.id, v) in s.ruled_out for v in value.versions)


def lambda_(s: Solver, e: Lambda) -> Values:
    """A lambda: its defaults are evaluated where it stands, and are its parameters' values until a call passes
    others."""
    sid = e.scope + s.ctx.suffix
    scope = s.scopes.get(sid)
    for p in scope.params if scope is not None else ():
        if p.default is not None:
            heap.write_variable(s, sid, p.name, PARAMETER, evaluate(s, p.default))
    return {function(sid): None}


def operation(s: Solver, e: Operation) -> Values:
    """An operator: on an instance of a class of the tree, the special method Python calls (or the reflected one on
    the other operand, when the first has none); on lists, their concatenation (either list's elements); on objects
    of a library, some object of that library; on strings, a string."""
    operands = [evaluate(s, x) for x in e.operands]
    site = Site(e.line, e.line, e.method)
    out: Values = {}
    called = False
    for v in operands[0]:
        if v.kind == INSTANCE or v.kind == DISPATCHED:
            methods = [m for m in classes.class_attr(s, v.name, e.method, v) if m.kind == BOUND_METHOD]
            if not methods and e.method in FALLBACK:  # object.__format__ calls __str__; no __bool__: __len__
                methods = [m for m in classes.class_attr(s, v.name, FALLBACK[e.method], v) if m.kind == BOUND_METHOD]
            for m in methods:
                out.update(calls.invoke(s, m, e.operands[1:], (), site, _special(e.method)))
            called |= bool(methods)
        else:
            _plain_operand(v, e, out)
    if e.reflected and len(operands) > 1:
        for v in operands[1]:
            if (v.kind == INSTANCE or v.kind == DISPATCHED) and not called:
                for m in classes.class_attr(s, v.name, e.reflected, v):
                    if m.kind == BOUND_METHOD:
                        out.update(calls.invoke(s, m, e.operands[:1], (), site, _special(e.reflected)))
            elif v.kind != INSTANCE and v.kind != DISPATCHED:
                _plain_operand(v, e, out)
    return out


def _plain_operand(v: Value, e: Operation, out: Values) -> None:
    if v.kind == OBJECT and e.keeps:
        out[v] = None
    elif v.kind == LIBRARY_RESULT or v.kind == EXTERNAL:
        out[Value(LIBRARY_RESULT, v.name.split(".")[0])] = None
    elif (
        v.kind == CONSTANT
        and (v.name or isinstance(v.extra, (str, bytes)))
        and INPLACE.get(e.method, e.method) in ("__add__", "__mod__", "__mul__")
    ):
        out[some(v.name or type(v.extra).__name__)] = None


def _special(method: str) -> Expr:
    return Attribute(Name("<operand>"), method)


def display(s: Solver, e: Display) -> Values:
    alloc = e.alloc + s.ctx.suffix
    s.kinds[alloc] = "list"
    star = False
    for i, item in enumerate(e.elements):
        if isinstance(item, Starred):
            star = True
            heap.write_slot(s, alloc, "*", iterate(s, evaluate(s, item.value)))
        else:
            heap.write_slot(s, alloc, "*" if star else i, evaluate(s, item), strong=s.ctx.strong)
    return {obj(alloc): None}


def dict_display(s: Solver, e: DictDisplay) -> Values:
    alloc = e.alloc + s.ctx.suffix
    s.kinds[alloc] = "dict"
    for entry in e.entries:
        if entry.key is None:
            heap.copy_slots(s, evaluate(s, entry.value), alloc)
            continue
        keys = evaluate(s, entry.key)
        key: object = "*"
        if len(keys) == 1:
            for k in keys:
                if is_literal(k):
                    key = k.extra
        heap.write_slot(s, alloc, key, evaluate(s, entry.value), strong=s.ctx.strong and key != "*")
    return {obj(alloc): None}


def subscript(s: Solver, values: Values, index: Expr, line: int) -> Values:
    out: Values = {}
    keys: Values | None = None
    for v in values:
        kind = v.kind
        if kind == OBJECT:
            if keys is None:
                keys = evaluate(s, index)
            consts = constant_keys(keys)
            if consts is not None:
                for c in consts:
                    if type(c) is int and c < 0:  # counted from the end: any element
                        out.update(heap.elements(s, v.name))
                    else:
                        out.update(heap.read_slot(s, v.name, c))
                out.update(heap.read_slot(s, v.name, "*"))
            else:
                for key in heap.slot_keys(s, v.name):
                    out.update(heap.read_slot(s, v.name, key))
        elif kind == CLASS and classes.is_enum(s, v.name):
            out[instance(v.name)] = None  # Color["RED"]: a member
        elif kind in (FUNCTION, CLASS, EXTERNAL, BOUND_METHOD, LIBRARY_RESULT, RAISED):
            out[v] = None  # kernel[grid], Generic[T], external[...]
        elif kind == INSTANCE or kind == DISPATCHED:
            out.update(call_method(s, v, "__getitem__", (index,), Site(line, line, "[]")))
        elif kind == PARAM_RESULT:
            out.update(subscript(s, summaries.param_results(s, v), index, line))
    if keys is None and not isinstance(index, (Name, Constant)):  # the index's calls run whatever is subscripted
        evaluate(s, index)
    return out


def slice_(s: Solver, e: Slice) -> Values:
    values = evaluate(s, e.value)
    lower = evaluate(s, e.lower) if e.lower is not None else {constant(0): None}
    upper = evaluate(s, e.upper) if e.upper is not None else {constant(None): None}
    out: Values = {}
    for v in values:
        if v.kind == INSTANCE or v.kind == DISPATCHED:  # an instance of the tree sliced: its __getitem__
            out.update(call_method(s, v, "__getitem__", (UNKNOWN,), Site(e.line, e.line, "[:]")))
            continue
        if v.kind != OBJECT:
            continue
        bounds = _bounds(lower, upper)
        if "[" not in v.name and bounds is not None:
            a, b = bounds
            alloc = f"{v.name}[{a}:{b}]"
            s.kinds[alloc] = "list"
            ints = sorted(k for k in heap.slot_keys(s, v.name) if type(k) is int)
            for i in ints[a:b]:
                heap.write_slot(s, alloc, i - a, heap.read_slot(s, v.name, i))
            heap.write_slot(s, alloc, "*", heap.read_slot(s, v.name, "*"))
            out[obj(alloc)] = None
        else:
            out[v] = None
    return out


def _bounds(lower: Values, upper: Values) -> tuple[int, int | None] | None:
    """The constant int bounds of a slice (None: not constant)."""
    if len(lower) != 1 or len(upper) != 1:
        return None
    a: object = None
    b: object = None
    for x in lower:
        a = x.extra if is_literal(x) else "?"
    for x in upper:
        b = x.extra if is_literal(x) else "?"
    if not (isinstance(a, int) or a is None) or not (isinstance(b, int) or b is None):
        return None
    return (a or 0) if isinstance(a, int) else 0, b if isinstance(b, int) else None


def iterate(s: Solver, values: Values) -> Values:
    """The elements of each of `values`."""
    out: Values = {}
    for v in values:
        kind = v.kind
        if kind == OBJECT:
            out.update(heap.keys(s, v.name) if s.kinds.get(v.name) == "dict" else heap.elements(s, v.name))
        elif kind == GENERATOR:
            out.update(heap.yields(s, v.name))
        elif kind == LIBRARY_RESULT or kind == RAISED:
            out[v] = None
        elif kind == CLASS and classes.is_enum(s, v.name):
            out[instance(v.name)] = None  # iterating an enum gives its members
        elif kind == PARAM_RESULT:
            out.update(iterate(s, summaries.param_results(s, v)))
        elif kind == INSTANCE or kind == DISPATCHED:
            site = Site(s.ctx.line, s.ctx.line, "for")
            for it in call_method(s, v, "__iter__", (), site):
                if it.kind == INSTANCE:
                    out.update(call_method(s, it, "__next__", (), site))
                else:
                    out.update(iterate(s, {it: None}))
    return out


def call_method(s: Solver, receiver: Value, method: str, args: tuple[Expr, ...], site: Site | None) -> Values:
    """What `receiver.method(*args)` returns, for a protocol method Python calls on its own (`__getitem__`,
    `__iter__`, `__enter__`, `__add__`...) at `site`."""
    out: Values = {}
    func = Attribute(Name("<value>"), method)
    for m in classes.class_attr(s, receiver.name, method, receiver):
        out.update(calls.invoke(s, m, args, (), site, func))
    return out
