"""Declared types for the call resolver, limited to what can exist at run time.

A method's `self` may be an instance of its own class or of a subclass that does not override it, but only of a
class the program makes: one named as a value somewhere (called, passed, stored, returned, named by a string as lazy
registries do) or constructed during resolution. An annotation `x: Base` promises an instance of such a class in
Base's cone; it is used only where nothing flows (the parameter, attribute or return got no value from the code):
the solver's second phase (atlas.graph.resolve.solver) writes those promises into the cells still empty."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from atlas.graph.resolve import classes
from atlas.graph.resolve.limits import MAX_PROMISED
from atlas.graph.resolve.values import (
    BUILTIN_METHOD,
    CONSTANT,
    DISPATCHED,
    EXTERNAL,
    LIBRARY_RESULT,
    Value,
    Values,
    instance,
    klass,
)
from atlas.parse.python.ir import (
    Assign,
    Attribute,
    Call,
    Constant,
    DictDisplay,
    Display,
    Either,
    Elements,
    Evaluate,
    Expr,
    For,
    Lambda,
    Name,
    NameTarget,
    Operation,
    Raise,
    Return,
    Scope,
    Slice,
    Starred,
    Subscript,
    With,
    Yield,
)

if TYPE_CHECKING:
    from atlas.graph.resolve.solver import Solver

TYPE_ARGUMENT: Final = {"isinstance": 1, "issubclass": 1, "cast": 0, "super": 0}  # calls naming a class as a type,
# and which argument does


def made_classes(bodies: list[Scope]) -> tuple[frozenset[str], frozenset[str]]:
    """The short names of the classes the program may make: every name used as a value (called, passed, stored,
    returned, yielded, raised) but not only as a type (`isinstance(x, C)`, `cast(C, x)`, a base, an annotation) or as
    the owner of an attribute (`C.helper()`), unless that attribute is a classmethod that makes its class
    (`C.from_config()` running `cls(...)`); and every identifier a string names (`"LlamaForCausalLM"`,
    `"pkg.mod:Worker"`), as registries that import classes by name do, but not a name only an inner package's
    `__all__` lists (a re-export; the root package's exports are the API its users make). Second, those of them used
    as values elsewhere than as the class a method constructs to store on its own instance (`self.kernel = C()`): the
    names code may hand around (is_part)."""
    makers = frozenset(
        s.id.rpartition(".")[2]
        for s in bodies
        if "classmethod" in s.decorator_names and s.params and s.params[0].name in s.called_names
    )
    out: set[str] = set()
    owned: set[str] = set()
    methods = methods_of(bodies)
    for scope in bodies:
        inner = scope.kind == "module" and "." in scope.module  # the root package's exports are its public API
        for step in scope.steps:
            stmt = step.stmt
            if isinstance(stmt, Assign) and scope.id in methods and stores_on_self(scope, stmt):
                assert isinstance(stmt.value, Call)
                _values(stmt.value.func, makers, owned)
                _values(Display(stmt.value.args + tuple(k.value for k in stmt.value.keywords), ""), makers, out)
            elif isinstance(stmt, (Assign, Evaluate, Return, Yield, Raise)) and not (inner and is_export_list(stmt)):
                _values(stmt.value, makers, out)
            elif isinstance(stmt, For):
                _values(stmt.iterable, makers, out)
            elif isinstance(stmt, With):
                _values(stmt.context, makers, out)
        for p in scope.params:
            if p.default is not None:
                _values(p.default, makers, out)
    return frozenset(out | owned), frozenset(out)


def is_export_list(stmt: Assign | Evaluate | Return | Yield | Raise) -> bool:
    """Whether `stmt` builds a module's `__all__` (`__all__ = [...]`, `__all__ += [...]`, `__all__.extend(...)`):
    its strings name what `from m import *` exports, no class a registry makes by name."""
    if isinstance(stmt, Assign):
        return bool(stmt.targets) and all(isinstance(t, NameTarget) and t.id == "__all__" for t in stmt.targets)
    func = stmt.value.func if isinstance(stmt, Evaluate) and isinstance(stmt.value, Call) else None
    return isinstance(func, Attribute) and isinstance(func.value, Name) and func.value.id == "__all__"


def methods_of(bodies: list[Scope]) -> frozenset[str]:
    """The ids of the functions defined in a class body."""
    classes_ = {s.id for s in bodies if s.kind == "class"}
    return frozenset(s.id for s in bodies if s.kind == "function" and s.parent in classes_)


def stores_on_self(method: Scope, stmt: Assign) -> bool:
    """Whether `stmt`, in a method, stores a call's result only on the method's own instance (`self.kernel =
    C(...)`): what it constructs there is a part of that object (is_part)."""
    if not isinstance(stmt.value, Call) or not method.params:
        return False
    me = method.params[0].name
    return all(isinstance(t, Attribute) and classes.receiver_attribute(t, me) for t in stmt.targets)


def _values(e: Expr, makers: frozenset[str], out: set[str]) -> None:
    """Add the names `e` uses as values (see made_classes)."""
    todo: list[Expr] = [e]
    while todo:
        x = todo.pop()
        if isinstance(x, Name):
            out.add(x.id)
        elif isinstance(x, Attribute):
            out.add(x.attr)
            if x.attr in makers and isinstance(x.value, (Name, Attribute)):
                out.add(x.value.id if isinstance(x.value, Name) else x.value.attr)
            _owners(x.value, todo)
        elif isinstance(x, Call):
            func = x.func
            called = func.id if isinstance(func, Name) else func.attr if isinstance(func, Attribute) else ""
            typed = TYPE_ARGUMENT.get(called, -1)
            if typed < 0:
                todo.append(func)
            todo.extend(a for i, a in enumerate(x.args) if i != typed)
            todo.extend(k.value for k in x.keywords)
        elif isinstance(x, Constant):
            if isinstance(x.value, str) and len(x.value) < 200:
                tail = x.value.replace(":", ".").rpartition(".")[2]
                if tail.isidentifier():
                    out.add(tail)
        elif isinstance(x, Display):
            todo.extend(x.elements)
        elif isinstance(x, DictDisplay):
            for entry in x.entries:
                if entry.key is not None:
                    todo.append(entry.key)
                todo.append(entry.value)
        elif isinstance(x, Either):
            todo.extend(x.options)
        elif isinstance(x, (Elements, Starred)):
            todo.append(x.value)
        elif isinstance(x, Subscript):  # its index names a key or a type (`Optional[C]`), no instance of it
            _owners(x.value, todo)
            _owners(x.index, todo)
            if isinstance(x.index, Display):
                for item in x.index.elements:
                    _owners(item, todo)
        elif isinstance(x, Slice):
            _owners(x.value, todo)
        elif isinstance(x, Operation):
            if x.method in ("__or__", "__ior__"):  # `A | B` names types (a union), or flags: no instance either way
                for operand in x.operands:
                    _owners(operand, todo)
            else:
                todo.extend(x.operands)
        elif isinstance(x, Lambda):
            pass  # its body is a scope of its own


def _owners(e: Expr, todo: list[Expr]) -> None:
    """The value an attribute or subscript is read on: only the calls in it can make something (`C.attr` is no
    use of C as a value)."""
    while isinstance(e, (Attribute, Subscript)):
        e = e.value
    if isinstance(e, Call):
        todo.append(e)


UNINFORMATIVE: Final = frozenset({CONSTANT, EXTERNAL, LIBRARY_RESULT, BUILTIN_METHOD})


def informative(values: Values) -> bool:
    """Whether `values` say what the code put somewhere: a value of the tree, not only constants and library objects
    (`x: Config = Field(default_factory=Config)` leaves a pydantic object there: the annotation says more)."""
    return any(v.kind not in UNINFORMATIVE for v in values)


def note_constructed(s: Solver, cls: str, maker: str, owned: bool) -> None:
    """`cls(...)` ran during resolution, in the code of class `maker` ("" outside a class), `owned` when the
    statement stores the new instance on the maker's own `self`: its instances exist; what depends on the classes
    made in a cone of one of its bases runs again (a new maker may end its being a part, is_part)."""
    makers = s.made_by.setdefault(cls, set())
    if (maker, owned) not in makers:
        makers.add((maker, owned))
        if len(makers) > 1:
            for k in classes.mro_walk(s, cls)[1]:
                s.cells.mark(s.cells.topic("made", k))
    if cls in s.constructed:
        return
    s.constructed.add(cls)
    if cls.rpartition(".")[2] in s.made_names:
        return
    s.cells.changed = True
    for k in classes.mro_walk(s, cls)[1]:
        s.cells.mark(s.cells.topic("made", k))


def receivers(s: Solver, cls: str, name: str) -> Values:
    """What `self` may be in method `name` of class `cls`: an instance of each class the program makes in cls's
    cone that does not override the method (classes.made_in_cone). Asked once the class hierarchy is known (every
    class statement has run: Solver.hierarchy_known)."""
    return {instance(c): None for c in classes.made_in_cone(s, cls) if classes.defining_class(s, c, name) == cls}


def is_part(s: Solver, c: str, cls: str) -> bool:
    """Whether every instance of class `c` the program makes is a part of an object of another class, one `c` does
    not derive from, not one handed around as a `cls`: made by the code of a class of `cls`'s cone (a sub-pool a
    pool builds inside itself), or stored where it is made on the maker's own `self` (`self.kernel = C()` in a quant
    scheme; owns). Not when a base or `c` itself makes it (a factory), nor when other code makes it, nor when no
    construction was seen (made by name)."""
    makers = s.made_by.get(c)
    if not makers:
        return False
    ancestors = classes.mro_walk(s, c)[1]
    return all(
        m and m not in ancestors and (cls in classes.mro_walk(s, m)[1] or (stored and owns(s, m, c)))
        for m, stored in makers
    )


def owns(s: Solver, maker: str, c: str) -> bool:
    """Whether instances of `c` that `maker` stores on itself stay its own, so that the rounds follow them from its
    attribute: no code names `c` as a value otherwise (a class a package exports, a qualified name a platform
    returns), the rounds construct the maker (a model the registry makes by name, reached only through what an
    annotation promises, keeps its pooler promised), and the maker has no library base whose code may hand its
    attributes out (an `nn.Module`'s parameters go round through `named_parameters()`)."""
    return c.rpartition(".")[2] not in s.handed_names and maker in s.made_by and not classes.has_library_base(s, maker)


def promised(s: Solver, cls: str, is_class: bool) -> Values:
    """What an annotation naming class `cls` promises: an instance (or, for `type[cls]`, the class) of each class
    the program makes in its cone (classes.made_in_cone) but a part of another (is_part), chosen at run time when
    there are several; of `cls` itself when there are more than MAX_PROMISED."""
    made = classes.made_in_cone(s, cls)
    made = [c for c in made if not is_part(s, c, cls)] or made
    if len(made) > MAX_PROMISED:
        return {klass(cls) if is_class else instance(cls): None}
    if len(made) == 1:
        return {klass(made[0]) if is_class else instance(made[0]): None}
    return {klass(c) if is_class else Value(DISPATCHED, c): None for c in made}
