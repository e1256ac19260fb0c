"""Calls of what the tree does not define: builtin functions (the ones that move values: map, filter, sorted, min,
max, iter, next, enumerate, zip, dict, getattr, super; len and friends call the instance's protocol method), methods
of Python's containers (a dict's get/pop/setdefault/values/items/update, a list's append/extend/insert/pop), and
library calls (nn.ModuleList and islice keep their arguments' elements; triton.jit makes a kernel of a function)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from atlas.graph.resolve import classes, dispatch, heap, names, sites
from atlas.graph.resolve.limits import MAX_ATTRIBUTE_NAMES
from atlas.graph.resolve.sites import PYCG_PREFIX
from atlas.graph.resolve.values import (
    BOUND_METHOD,
    CLASS,
    CONSTANT,
    DISPATCHED,
    EXTERNAL,
    FUNCTION,
    INSTANCE,
    LIBRARY_RESULT,
    NOTHING,
    OBJECT,
    SUPER,
    UNBOUND,
    Value,
    Values,
    constant_keys,
    instance,
    klass,
    obj,
    some,
)
from atlas.model import Provenance
from atlas.parse.python.ir import Attribute, Expr, Keyword, Name, Site, Starred

if TYPE_CHECKING:
    from atlas.graph.resolve.solver import Solver

# Called with a function, these return it as a kernel (`k = triton.jit(fn)`); with options only, a decorator.
KERNEL_WRAPPERS: Final = frozenset({"triton.jit", "triton.autotune", "triton.heuristics"})
# External callables whose result holds the elements of their arguments: "iterable" (the first argument's
# elements), "iterables" (every argument's elements) or "items" (each positional argument is an element).
CONTAINERS: Final = {
    "torch.nn.ModuleList": "iterable",
    "torch.nn.Sequential": "items",
    "itertools.islice": "iterable",
    "itertools.chain": "iterables",
    "collections.deque": "iterable",
}
PARTIALS: Final = frozenset({"functools.partial", "functools.partialmethod"})
# External callables that return their first positional argument wrapped (calling the result runs it: a function or
# class of the tree, or an nn.Module instance), and that, called without it, return a decorator doing so
# (`torch.no_grad()(f)`, `functools.lru_cache(maxsize=8)(f)`, `torch.compile(mode=...)(model)`).
WRAPPERS: Final = frozenset(
    {
        "torch.compile",
        "torch.compiler.disable",
        "torch._dynamo.disable",
        "torch.compiler.allow_in_graph",
        "torch._dynamo.allow_in_graph",
        "torch.no_grad",
        "torch.inference_mode",
        "torch.enable_grad",
        "torch.set_grad_enabled",
        "torch.autocast",
        "torch.amp.autocast",
        "torch.cuda.amp.autocast",
        "torch.jit.script",
        "torch.jit.ignore",
        "torch.jit.unused",
        "torch.fx.wrap",
        "torch.library.custom_op",
        "functools.lru_cache",
        "functools.cache",
        "functools.update_wrapper",
        "functools.singledispatch",
        "functools.total_ordering",
        "contextlib.contextmanager",
        "contextlib.asynccontextmanager",
        "atexit.register",
        "abc.abstractmethod",
        "typing.final",
        "typing.no_type_check",
        "dataclasses.dataclass",
    }
)
FACTORIES: Final = frozenset({"functools.wraps"})  # always a decorator: `wraps(inner)(wrapper)` gives wrapper
WRAPPING: Final = "wrapping"  # Value.extra of the decorator a wrapper or factory returned
CALLABLE: Final = frozenset({FUNCTION, BOUND_METHOD, CLASS, INSTANCE, DISPATCHED})
CASTS: Final = frozenset({"typing.cast", "typing_extensions.cast"})  # cast(T, x): x, and what T promises
# External callables that give back one of their arguments (the index), as it is or a copy of the same classes.
RETURNS_ARGUMENT: Final = {"typing.assert_type": 0, "copy.copy": 0, "copy.deepcopy": 0, "dataclasses.replace": 0}
# heapq's functions over a list the tree made (a priority queue): what they put in it, what they take out.
HEAP_PUTS: Final = frozenset({"heapq.heappush", "heapq.heappushpop", "heapq.heapreplace"})
HEAP_TAKES: Final = frozenset({"heapq.heappop", "heapq.heappushpop", "heapq.heapreplace"})
COPIES: Final = frozenset({"iter", "reversed", "sorted", "list", "tuple", "set", "frozenset"})
EMPTY: Final = frozenset({"list", "tuple", "set", "frozenset"})  # called without arguments: an empty container
STRINGS: Final = frozenset({"str", "repr", "format", "chr", "input", "ascii", "hex", "oct", "bin"})
# Builtins that call a protocol method of an instance argument, and the method.
PROTOCOL: Final = {
    "len": "__len__",
    "iter": "__iter__",
    "next": "__next__",
    "str": "__str__",
    "repr": "__repr__",
    "hash": "__hash__",
    "bool": "__bool__",
    "abs": "__abs__",
    "reversed": "__reversed__",
}
CALLS_ITS_FUNCTION: Final = frozenset({"sorted", "min", "max"})  # with key=: called with each element


def call_external(
    s: Solver, v: Value, args: tuple[Expr, ...], keywords: tuple[Keyword, ...], site: Site | None, func: Expr
) -> Values:
    sites.edge(s, v.name, site, func, Provenance.STATIC if isinstance(func, Name) else Provenance.TYPE_INFERRED)
    values, keyword_values = s.evaluate_arguments(args, keywords)
    if s.pycg:
        return {v: None}
    if v.name.startswith("torch.") and not v.name.endswith(".__call__"):  # torch hands a call on a tensor
        # subclass to its __torch_function__; calling a module runs its forward, whose own calls do that
        torch_function(s, values + [value for _, value in keyword_values], site)
    if v.name in CONTAINERS:  # nn.ModuleList(layers), islice(layers, ...): the elements
        return new_list(s, v.name, site, elements(s, values, CONTAINERS[v.name], args))
    if v.name in CASTS and len(values) > 1:  # (an x the tree cannot follow is still a T)
        return {
            **values[1],
            **{
                instance(t.name) if t.kind == CLASS else t: None
                for t in values[0]
                if t.kind == CLASS or t.kind == EXTERNAL
            },
        }
    if v.name in RETURNS_ARGUMENT and len(args) > RETURNS_ARGUMENT[v.name] and values[RETURNS_ARGUMENT[v.name]]:
        return values[RETURNS_ARGUMENT[v.name]]
    if (v.name in HEAP_PUTS or v.name in HEAP_TAKES) and values:
        return heap_queue(s, v.name, values)
    if v.name in ("heapq.nsmallest", "heapq.nlargest") and len(values) > 1:
        return new_list(s, v.name, site, s.iterate(values[1]))
    if v.name in PARTIALS and values:  # partial(f, ...) called runs f (the arguments it binds are not followed)
        found = {f: None for f in values[0] if f.kind in (FUNCTION, BOUND_METHOD, CLASS)}
        if found:
            return found
    if v.extra == WRAPPING or v.name in WRAPPERS or v.name in FACTORIES:
        return wrapped(s, v, args, values)
    if v.name in KERNEL_WRAPPERS:  # k = triton.jit(fn), triton.jit(**options)(fn)
        kernels = {f: None for f in (values[0] if values else NOTHING) if f.kind == FUNCTION}
        s.kernel_functions.update(f.name for f in kernels)
        return kernels or ({v: None} if not args else {Value(LIBRARY_RESULT, "triton"): None})
    return {Value(LIBRARY_RESULT, v.name.split(".")[0]): None}  # some object of that library


def wrapped(s: Solver, v: Value, args: tuple[Expr, ...], values: list[Values]) -> Values:
    """What a wrapper outside the tree returns (WRAPPERS): the function, class or module instance it wraps, as a
    call of the result reaches it; called without one (or a factory, FACTORIES), the decorator that wraps what it is
    given next."""
    positional = [value for a, value in zip(args, values) if not isinstance(a, Starred)]
    if positional and (v.extra == WRAPPING or v.name not in FACTORIES):
        found = {f: None for f in positional[0] if f.kind in CALLABLE}
        if found:
            return found
        if v.extra == WRAPPING:
            return {Value(LIBRARY_RESULT, v.name.split(".")[0]): None}
    return {Value(EXTERNAL, v.name, None, WRAPPING): None}


def heap_queue(s: Solver, name: str, values: list[Values]) -> Values:
    """heappush(h, x) and the like on a list `h` of the tree: x goes into it; heappop(h) gives one of its elements."""
    out: Values = {}
    for h in values[0]:
        if h.kind == OBJECT:
            if name in HEAP_PUTS and len(values) > 1:
                heap.write_slot(s, h.name, "*", values[1])
            if name in HEAP_TAKES:
                out.update(heap.elements(s, h.name))
    return out


def torch_function(s: Solver, arguments: list[Values], site: Site | None) -> None:
    """A torch function given an instance of a class of the tree that defines `__torch_function__` (a Parameter
    subclass, vLLM's BasevLLMParameter): torch calls it (a classmethod) to run the function."""
    seen: set[str] = set()
    for value in arguments:
        for a in value:
            if (a.kind == INSTANCE or a.kind == DISPATCHED) and a.name not in seen:
                seen.add(a.name)
                for m in classes.class_attr(s, a.name, "__torch_function__", a):
                    if m.kind == BOUND_METHOD:
                        sites.edge(s, m.name, site, Attribute(Name("<tensor>"), "__torch_function__"))


def new_list(s: Solver, name: str, site: Site | None, values: Values) -> Values:
    """A list made at this call site (by a builtin or library call) holding `values`."""
    return new_container(s, f"{name}:{s.ctx.caller}:{site.line if site else 0}", "list", [values])


def new_container(s: Solver, alloc: str, kind: str, values: list[Values]) -> Values:
    """The container `alloc` (a list or a dict) holding each of `values` in any of its slots."""
    s.kinds[alloc] = kind
    for v in values:
        heap.write_slot(s, alloc, "*", v)
    return {obj(alloc): None}


def new_dict(s: Solver, alloc: str, entries: list[tuple[str, Values]]) -> Values:
    """The dict `alloc` holding `entries` under their keys (`dict(a=f)`, a function's `**kwargs`)."""
    s.kinds[alloc] = "dict"
    for key, values in entries:
        heap.write_slot(s, alloc, key, values)
    return {obj(alloc): None}


def elements(s: Solver, values: list[Values], how: str, args: tuple[Expr, ...]) -> Values:
    """The elements a container call gets from its evaluated arguments (see CONTAINERS)."""
    if how == "iterable":
        return s.iterate(values[0]) if values else {}
    out: Values = {}
    for a, value in zip(args, values):
        out.update(s.iterate(value) if how == "iterables" or isinstance(a, Starred) else value)
    return out


def call_back(s: Solver, functions: Values, arguments: list[Values], site: Site | None, func: Expr) -> Values:
    """Each function among `functions` called (by a builtin) with `arguments`; what they return."""
    out: Values = {}
    for f in functions:
        if f.kind == FUNCTION:
            out.update(s.call_with_values(f.name, None, arguments, site, func))
        elif f.kind == BOUND_METHOD:
            out.update(s.call_with_values(f.name, f.receiver, arguments, site, func))
        elif f.kind == CLASS:
            out.update(s.construct(f.name, (), (), func, site))
    return out


# -- methods of containers ------------------------------------------------------------------------------------------


def call_container_method(
    s: Solver, v: Value, args: tuple[Expr, ...], keywords: tuple[Keyword, ...], site: Site | None, func: Expr
) -> Values:
    """A method of a list or dict object: elements flow in (append, extend, insert, update, setdefault) and out
    (pop, get, values, items, keys, copy)."""
    alloc, method = v.name, str(v.extra)
    kind = s.kinds.get(alloc, "list")
    if kind == "dict" and method == "update":  # merges in place (no call PyCG counts)
        for a in args:
            if not isinstance(a, Starred):
                heap.copy_slots(s, s.evaluate(a), alloc)
        for k in keywords:
            if k.name is not None:
                heap.write_slot(s, alloc, k.name, s.evaluate(k.value))
        return NOTHING
    sites.edge(s, f"{PYCG_PREFIX[kind]}.{method}", site, func)
    values, keyword_values = s.evaluate_arguments(args, keywords)
    if kind == "list":
        if method == "sort":  # sort(key=f) calls f with each element
            for name, given in keyword_values:
                if name == "key":
                    call_back(s, given, [heap.elements(s, alloc)], site, func)
        elif method in ("append", "appendleft", "insert") and values:  # (a deque is a list here)
            heap.write_slot(s, alloc, "*", values[-1])
        elif method in ("extend", "extendleft") and values:
            heap.write_slot(s, alloc, "*", s.iterate(values[0]))
        elif method in ("pop", "popleft"):
            return heap.elements(s, alloc)
        elif method == "copy":
            return {obj(alloc): None}
        return NOTHING
    key = _key(s, args[0]) if args else None
    if method in ("get", "pop"):
        out = dict(heap.elements(s, alloc) if key is None else _slot(s, alloc, key))
        if len(values) > 1:
            out.update(values[1])
        return out
    if method == "setdefault" and values:
        if len(values) > 1:
            heap.write_slot(s, alloc, key if key is not None else "*", values[1])
        return dict(heap.elements(s, alloc) if key is None else _slot(s, alloc, key))
    if method == "values":
        return new_container(s, f"{alloc}.values", "list", [heap.elements(s, alloc)])
    if method == "keys":
        return new_container(s, f"{alloc}.keys", "list", [heap.keys(s, alloc)])
    if method == "items":
        row = f"{alloc}.items:row"
        s.kinds[row] = "list"
        heap.write_slot(s, row, 0, heap.keys(s, alloc))
        heap.write_slot(s, row, 1, heap.elements(s, alloc))
        return new_container(s, f"{alloc}.items", "list", [{obj(row): None}])
    if method == "copy":
        return {obj(alloc): None}
    return NOTHING


def _key(s: Solver, e: Expr) -> object | None:
    """The constant an argument is, when it is one."""
    keys = constant_keys(s.evaluate(e))
    return keys[0] if keys is not None and len(keys) == 1 else None


def _slot(s: Solver, alloc: str, key: object) -> Values:
    out = dict(heap.read_slot(s, alloc, key))
    out.update(heap.read_slot(s, alloc, "*"))
    return out


# -- builtin functions ----------------------------------------------------------------------------------------------


def super_(s: Solver, args: tuple[Expr, ...], keywords: tuple[Keyword, ...]) -> Values:
    """`super()` in a method of class C (or `super(C, obj)`): per receiver the method may have (an instance, or
    the class in a classmethod), what looks names up in the receiver's MRO after C."""
    values, _ = s.evaluate_arguments(args, keywords)
    if len(values) >= 2:
        owners = [v.name for v in values[0] if v.kind == CLASS]
        receivers: Values = values[1]
    else:
        owner = s.class_of.get(s.ctx.scope, "")
        owners = [owner] if owner else []
        receivers = method_receivers(s, s.ctx.scope)
    out: Values = {}
    for owner in owners:
        for r in receivers:
            if r.kind in (INSTANCE, DISPATCHED, CLASS):
                out[Value(SUPER, owner, r)] = None
        if not out:
            out[Value(SUPER, owner, instance(owner))] = None
    return out


def method_receivers(s: Solver, scope_id: str) -> Values:
    """The values of the first parameter of the method around scope `scope_id` (its `self` or `cls`)."""
    scope = s.scopes.get(scope_id)
    while scope is not None:
        parent = s.scopes.get(scope.parent)
        if parent is None or parent.kind == "class":
            break
        scope = parent
    if scope is None or not scope.params or scope.kind != "function":
        return NOTHING
    return heap.read_local(s, scope.id, scope.params[0].name, None)


def call_builtin(
    s: Solver, name: str, args: tuple[Expr, ...], keywords: tuple[Keyword, ...], site: Site | None, func: Expr
) -> Values:
    sites.edge(s, f"<builtin>.{name}", site, func)
    if name == "super":
        return super_(s, args, keywords)
    values, keyword_values = s.evaluate_arguments(args, keywords)
    out: Values = {}
    if name in PROTOCOL and values:  # len(x) runs x.__len__() ...
        for v in values[0]:
            if v.kind == INSTANCE or v.kind == DISPATCHED:
                out.update(s.call_method(v, PROTOCOL[name], (), site))
    if name in ("map", "filter") and values:  # the function argument is called with the others' elements
        functions = {f: None for value in values for f in value if f.kind in (FUNCTION, BOUND_METHOD, CLASS)}
        rows = [s.iterate({v: None for v in value if v not in functions}) for value in values]
        rows = [row for row in rows if row]
        found = call_back(s, functions, rows[:1] if name == "filter" else rows, site, func)
        return new_list(s, name, site, found if name == "map" else rows[0] if rows else NOTHING)
    key = next((value for k, value in keyword_values if k == "key"), None)
    if name in CALLS_ITS_FUNCTION and key is not None and values:
        call_back(s, key, [s.iterate(values[0])], site, func)
    if name in COPIES and values:
        return new_list(s, name, site, s.iterate(values[0]))
    if name == "staticmethod" and values:  # `init = staticmethod(init_tokenizer_manager)` in a class body
        return {Value(FUNCTION, v.name, None, UNBOUND) if v.kind == FUNCTION else v: None for v in values[0]}
    if name in EMPTY and not args and not s.pycg:  # `set()`: a new container, whose methods are known
        return new_list(s, name, site, NOTHING)
    if name in ("min", "max") and values:
        return s.iterate(values[0]) if len(values) == 1 else _union(values)
    if name == "next" and values:
        out.update(s.iterate(values[0]))
        return out
    if name in ("enumerate", "zip") and values:  # rows (index, element) / (element of each argument)
        row = f"{name}:{s.ctx.caller}:{site.line if site else 0}:row"
        s.kinds[row] = "list"
        for i, value in enumerate([{}, values[0]] if name == "enumerate" else values):
            heap.write_slot(s, row, i, s.iterate(value))
        return new_list(s, name, site, {obj(row): None})
    if name == "dict":
        alloc = f"dict:{s.ctx.caller}:{site.line if site else 0}"
        made = new_dict(s, alloc, [(k, value) for k, value in keyword_values if k is not None])
        for value in values[:1]:
            heap.copy_slots(s, value, alloc)
        return made
    if name in ("getattr", "setattr") and len(values) >= 2:  # with the name a constant (kept in the expression:
        attrs = _names(s, args[1])  # the argument values have their constants dropped)
        if not attrs and name == "getattr" and s.by_name and received(s, args[1]):  # a name received, on an
            attrs = dispatch.served_names(s, values[0])  # object by-name calls reach
        for attr in attrs:
            if name == "getattr":
                out.update(names.getattr_(s, values[0], attr))
            elif len(values) > 2:
                names.setattr_(s, values[0], attr, values[2])
        if name == "getattr" and len(values) > 2:
            out.update(values[2])
        return out
    if name == "type" and len(values) == 1:  # type(x): the class of x (`type(self)(...)` constructs one)
        for v in values[0]:
            if v.kind == INSTANCE or v.kind == DISPATCHED:
                out[klass(v.name)] = None
        return out
    if name in STRINGS:
        out[some("str")] = None
    return out


def received(s: Solver, e: Expr) -> bool:
    """Whether the name `e` holds came from outside the calls the tree shows: a local name the code bound from
    what it cannot follow (`method, args, kwargs, rank = mq.dequeue()` in a worker's RPC loop), not a parameter (a
    helper such as `run_method(obj, method, ...)` is handed each caller's own name, which constants do not carry
    into it: following every served name there would join every caller to every method) nor anything in a
    `__getattr__`, whose name is the one an attribute read asked for."""
    scope = s.scopes.get(s.ctx.scope)
    if not isinstance(e, Name) or scope is None:
        return False
    if s.origin.get(scope.id, scope.id).rpartition(".")[2] in classes.DYNAMIC_ATTRIBUTES:
        return False
    return e.id in scope.local_names and all(p.name != e.id for p in scope.params)


def _names(s: Solver, e: Expr) -> list[str]:
    """The attribute names an argument may be: the string constants it holds; none when it is a starred argument or
    holds more than MAX_ATTRIBUTE_NAMES (a loop over a class's fields copying each: following every name would give
    every attribute every other one's values)."""
    if isinstance(e, Starred):
        return []
    found = [v.extra for v in s.evaluate(e) if v.kind == CONSTANT and isinstance(v.extra, str)]
    return found if len(found) <= MAX_ATTRIBUTE_NAMES else []


def _union(values: list[Values]) -> Values:
    out: Values = {}
    for v in values:
        out.update(v)
    return out
