"""Which C++ functions a name used in a body can mean, by C++'s own lookup rules, kept to what the source shows:

- a call by a plain name reaches a function of a scope around the caller (its class, then the namespaces it is in,
  out to the global one), of a base class of the caller's class, or one a `using` brings in; a constructor is
  reached where its class is;
- a qualified call (`ns::f`, `Cls::f`, an alias `T::f` of a class) reaches a function whose name ends that way, in
  a namespace around the caller or one a `using` brings in: never a same-named function of another namespace;
- a member call (`x.f()`, `x->f()`, `this->f()`) reaches a method of the receiver's class or of a class it derives
  from; the receiver's class is its declared type, for `auto` its initializer's, through the declared return
  types of the calls it is made of (atlas.parse.kernels.receivers); a receiver of no such type (a library type, an
  expression) reaches nothing; one whose type is a template parameter, the methods of that name of the classes the
  caller sees (an instantiation can bind any of them);
- a method a class declares `virtual`, called on it (or on `this` in it), also reaches the overrides of the classes
  deriving from it;
- a variable of the caller (a lambda, a function pointer) is no function of the tree.

Among those, the definitions the caller sees (its file, then the files it includes) are the targets; failing that,
a function the tree defines once among the files linked into the same extension (a declaration in a header, the
definition in another translation unit: NAME_MATCH)."""

from __future__ import annotations

from dataclasses import dataclass

from atlas.parse.kernels.cpp import CppFunction
from atlas.parse.kernels.cppdecls import UNTYPED
from atlas.parse.kernels.cppindex import CppIndex, Definition
from atlas.parse.kernels.refs import Ref


@dataclass(frozen=True, slots=True)
class Target:
    definition: Definition
    how: str  # "local" (same class/file/includes) or "global" (in another file linked into the same extension)


def resolve(index: CppIndex, ref: Ref, path: str, caller: CppFunction) -> list[Target]:
    """The definitions `ref`, used in `caller` (a function of `path`), can mean."""
    if ref.is_variable:
        return []
    candidates = index.by_name.get(ref.name)
    if not candidates:
        return []
    pool = _named(index, ref, path, caller, candidates)
    if not pool:
        return []
    scope = caller.scope
    same_class = [d for d in pool if d.path == path and d.function.qualname.startswith(scope)] if scope else []
    if same_class and not ref.receiver:
        return [Target(d, "local") for d in same_class]
    same_file = [d for d in pool if d.path == path]
    visible = index.closure(path)
    included = [d for d in pool if d.path in visible]
    if same_file and not ref.receiver:
        return [Target(d, "local") for d in same_file]
    if included:
        return [Target(d, "local") for d in included]
    if ref.is_dependent:
        return []
    linked_files = index.linked_files(path)
    linked = [d for d in pool if d.path in linked_files]
    if len({d.id for d in linked}) == 1 or (ref.receiver and linked):
        return [Target(d, "global") for d in linked]
    return []


def _named(index: CppIndex, ref: Ref, path: str, caller: CppFunction, candidates: list[Definition]) -> list[Definition]:
    """The candidates C++'s lookup of `ref` from `caller` can find, wherever they are defined."""
    if ref.is_dependent:
        return [d for d in candidates if d.function.is_method]
    if ref.receiver:
        if ref.receiver == UNTYPED:
            return []
        cls = receiver_class(index, ref.receiver, path)
        return _methods(index, ref.name, cls, candidates) if cls else []
    usings = index.usings(path)
    if ref.qualifier:
        qualifier = unalias(index, ref.qualifier[:-2], path)
        return [d for d in candidates if _qualified(d.function, qualifier, caller.scope, usings)]
    bases = index.ancestors(caller.class_name) if caller.is_method else set()
    if any(d.function.class_name in bases for d in candidates) or any(
        f"{c}::{ref.name}" in index.virtuals for c in bases
    ):
        return _methods(index, ref.name, caller.class_name, candidates)  # a method of `this`: class scope first
    return [d for d in candidates if _reachable(d.function, caller.scope, usings)]


def _methods(index: CppIndex, name: str, cls: str, candidates: list[Definition]) -> list[Definition]:
    """The methods `name` a call on an object of class `cls` ("ns::Foo" as far as it is written) can run: its
    class's or an ancestor's, and when one of those declares it virtual, the overrides of the classes deriving
    from it."""
    last = cls.rsplit("::", 1)[-1]
    suffix = f"::{cls}::"
    others = index.ancestors(last) - {last}
    if any(f"{c}::{name}" in index.virtuals for c in others | {last}):
        others |= index.descendants(last) - {last}
    return [
        d
        for d in candidates
        if d.function.class_name in others
        or (d.function.class_name == last and f"::{d.function.scope}".endswith(suffix))
    ]


def unalias(index: CppIndex, name: str, path: str, depth: int = 4) -> str:
    """`name` (a type or namespace) with the aliases the file sees replaced by what they stand for, its first part
    (`gemm_t::X` -> `ns::Gemm::X`) and its last (`Handler::Cache` -> `ns::LruCache`, a member alias)."""
    aliases = index.aliases(path)
    for _ in range(depth):
        head, sep, rest = name.partition("::")
        last = name.rsplit("::", 1)[-1]
        if aliases.get(head, head) != head:
            name = aliases[head] + sep + rest
        elif aliases.get(last, last) != last:
            name = aliases[last]
        else:
            break
    return name


def receiver_class(index: CppIndex, chain: str, path: str) -> str:
    """The class ("ns::Foo", qualified as far as it is written) a receiver's type chain ends in: its first step a
    class, or a function whose declared return type is one; each later step a method of the class so far, giving
    its return type. "" when a step has no one class."""
    first, *methods = chain.split(".")
    cls = unalias(index, first, path)
    if cls.rsplit("::", 1)[-1] not in index.classes:
        named = index.by_name.get(cls.rsplit("::", 1)[-1], [])
        cls = _returned(index, [d for d in named if f"::{d.function.qualname}".endswith(f"::{cls}")], path)
    for step in methods:
        if not cls:
            return ""
        if step.startswith("@"):
            cls = _member_type(index, cls, step[1:], path)
        else:
            cls = _returned(index, _methods(index, step, cls, index.by_name.get(step, [])), path)
    return cls


def _member_type(index: CppIndex, cls: str, member: str, path: str) -> str:
    """The class a data member of `cls` (or of a class it derives from) is declared with, when one."""
    types = set()
    for name in index.ancestors(cls.rsplit("::", 1)[-1]):
        types |= index.fields.get(name, {}).get(member, set())
    found = unalias(index, next(iter(types)), path) if len(types) == 1 else ""
    return found if found.rsplit("::", 1)[-1] in index.classes else ""


def _returned(index: CppIndex, definitions: list[Definition], path: str) -> str:
    """The one class the definitions all return, "" when they return none or differ."""
    returned = {unalias(index, d.function.returns, path) for d in definitions}
    found = next(iter(returned)) if len(returned) == 1 else ""
    return found if found.rsplit("::", 1)[-1] in index.classes else ""


def _lookup_scope(function: CppFunction) -> str:
    """Where a function is found from: its scope, or for a constructor (`K::K`) the scope of its class."""
    scope = function.scope
    if function.class_name == function.name:
        return scope[: -len(function.name) - 2]
    return scope


def _opened(scope: str, usings: tuple[str, ...]) -> bool:
    """Whether a `using namespace` the caller sees opens `scope` ("ns::")."""
    return any(scope == u or scope.endswith("::" + u) for u in usings if u.endswith("::"))


def _reachable(function: CppFunction, scope: str, usings: tuple[str, ...]) -> bool:
    found = _lookup_scope(function)
    if scope.startswith(found) or _opened(found, usings):
        return True
    qualname = function.qualname
    return any(qualname == u or qualname.endswith("::" + u) for u in usings if not u.endswith("::"))


def _qualified(function: CppFunction, qualifier: str, scope: str, usings: tuple[str, ...]) -> bool:
    tail = f"{qualifier}::{function.name}"
    full = function.qualname
    if function.class_name == function.name:
        full = full[: -len(function.name) - 2]  # a constructor, named by its class
    if full != tail and not full.endswith("::" + tail):
        return False
    prefix = full[: len(full) - len(tail)]
    return scope.startswith(prefix) or _opened(prefix, usings)
