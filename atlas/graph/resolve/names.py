"""Names and attributes for the call resolver: scope lookup, module attributes (star imports included), class
attributes through the MRO, bound methods and properties."""

from __future__ import annotations

import builtins
from typing import Any, Final

from atlas.graph.mro import linearize
from atlas.graph.resolve.cells import _NOTHING, Cells

BUILTINS: Final = frozenset(dir(builtins))
_TYPE_PREFIX: Final[dict[type, str]] = {str: "<**PyStr**>", bytes: "<**PyStr**>"}
_PLAIN_BASES: Final = frozenset({"abc", "typing", "typing_extensions", "enum", "dataclasses", "builtins",
                                 "collections"})
_CONTAINER_PREFIX: Final = {"dict": "<**PyDict**>", "list": "<**PyList**>"}
# what an MRO entry is
_CLASS: Final = "class"
_PLAIN: Final = "plain"
_EXTERNAL: Final = "external"
_BUILTIN: Final = "builtin"
MAX_SUBCLASS_METHODS: Final = 40  # a name more subclasses define than this is too generic to follow


class Names(Cells):
    """A part of Solver (atlas.graph.resolve.state): what a name or an attribute may hold as seen from the current
    statement."""

    # -- names and attributes -----------------------------------------------------------------------------------
    def lookup(self, name: str):
        scope = self.scopes[self.ctx[0]]
        if name in scope.local_names and name not in scope.global_names:
            return self.read(("v", scope.id, name))
        module = scope.module
        if name not in scope.global_names:
            parent = scope.parent
            while parent:
                p = self.scopes[parent]
                if p.kind == "module":
                    break
                if p.kind != "class" and name in p.local_names:
                    return self.read(("v", p.id, name), local=False)
                parent = p.parent
        found = self.module_attr(module, name, local=scope.id == module)
        if found:
            return found
        if name in BUILTINS:
            return {("b", name)}
        return _NOTHING

    def module_attr(self, module: str, name: str, local: bool = False, seen=None):
        scope = self.scopes.get(module)
        out = self.read(("v", module, name), local=local) if scope is not None and name in scope.local_names \
            else _NOTHING
        if name in self.submodules.get(module, ()):
            out = out | {("m", f"{module}.{name}")}
        if module in self.star_modules:  # only these get star imports: other modules need not depend on them
            self.depend(("stars", module))
            if not out and self.stars.get(module):
                seen = seen or set()
                seen.add(module)
                out = set()
                for star in self.stars[module]:
                    if star not in seen:
                        out |= self.module_attr(star, name, seen=seen)
        return out

    def mro(self, cls: str) -> tuple:
        """The MRO of `cls`; the statement being evaluated then depends on the bases of every class in it."""
        return self.mro_walk(cls)[0]

    def mro_walk(self, cls: str) -> tuple:
        """(MRO, its internal classes, per entry (class or external name, what it is: _CLASS, _PLAIN, _EXTERNAL or
        _BUILTIN)), memoized until a base in it changes; registers the statement's dependency on those bases."""
        got = self.mro_memo.get(cls)
        if got is None:
            mro = linearize(cls, self.bases)
            walk = tuple((k[2:], _PLAIN if k[2:].split(".")[0] in _PLAIN_BASES else _EXTERNAL) if k.startswith("x:")
                         else (k, _BUILTIN) if k.startswith("b:") else (k, _CLASS) for k in mro)
            internal = tuple(k for k, what in walk if what == _CLASS)
            got = self.mro_memo[cls] = (mro, internal, walk, tuple(("B", k) for k in internal))
            for k in mro:
                self.mro_users.setdefault(k, set()).add(cls)
        if self.mro_read.get(cls) != self.num_evaluated:  # once per statement run (bases change rarely)
            self.mro_read[cls] = self.num_evaluated
            for key in got[3]:
                self.depend(key)
        return got

    def class_attr(self, cls: str, name: str, receiver: tuple | None, start_after: str = "",
                   cells: list | None = None):
        """`name` looked up on class `cls` through its MRO (after `start_after` when given), bound to `receiver`.
        `cells`: the ("a", class, name) cells of the MRO's internal classes, in order, when the caller (getattr)
        watched them already (never with start_after)."""
        mro, internal, walk, _ = self.mro_walk(cls)
        if cells is None or not internal or internal[0] != cls:
            self.depend(("a", cls, name))
        if start_after:
            walk = walk[mro.index(start_after) + 1:] if start_after in mro else ()
        scopes = self.scopes
        k: str
        what: str  # typed: mypyc compares str natively
        i = 0
        for k, what in walk:
            if what != _CLASS:
                if what == _PLAIN:
                    continue
                return {("x", f"{k}.{name}")} if what == _EXTERNAL else _NOTHING
            i += 1
            scope = scopes.get(k)
            if scope is None:
                continue
            defined = name in scope.local_names
            cell = cells[i - 1] if cells is not None else self.watch(("a", k, name))
            if not defined and cell.writers is None:
                continue
            vals = self.read(("v", k, name), local=False) if defined else _NOTHING
            vals = vals | cell.union
            return {self.bind_attr(v, receiver, cls) for v in vals}
        return _NOTHING

    def subclass_methods(self, cls: str, name: str):
        """The methods `name` of the subclasses of `cls` that define one, when `cls` has none (`impl.do_kv_cache_update`
        on an AttentionImplBase): bound to ('r', subclass), so calls through them are DISPATCH edges."""
        out, seen, todo = set(), {cls}, [cls]
        while todo:
            c = todo.pop()
            self.depend(("subs", c))
            for sub in self.direct_subclasses.get(c, ()):
                if sub not in seen:
                    seen.add(sub)
                    todo.append(sub)
                    if name in self.scopes[sub].local_names and f"{sub}.{name}" in self.scopes:
                        out |= self.class_attr(sub, name, ("r", sub))
        return out if len(out) <= MAX_SUBCLASS_METHODS else _NOTHING

    def bind_attr(self, v: tuple, receiver: tuple | None, cls: str) -> tuple:
        tag: str = v[0]
        if tag != "f":
            return v
        decos = self.scopes[v[1]].decorator_names if v[1] in self.scopes else ()
        if "staticmethod" in decos:
            return v
        if "classmethod" in decos:
            return ("bm", v[1], ("c", cls))
        if receiver is not None:
            if "property" in decos or "cached_property" in decos or "functools.cached_property" in decos:
                return ("prop", v[1])
            return ("bm", v[1], receiver)
        return v

    def getattr(self, values, name: str):
        out = set()
        bound = False  # only attributes bound to an instance can be properties
        for v in values:
            t: str = v[0]
            if t == "m":
                out |= self.module_attr(v[1], name)
            elif t == "x":
                out.add(("x", f"{v[1]}.{name}"))
            elif t == "xr":
                out.add(v)
            elif t == "i" or t == "r":
                found = _NOTHING
                cells = [self.watch(("a", k, name)) for k in self.mro_walk(v[1])[1]]
                for cell in cells:
                    got = cell.union
                    if got:
                        found = found | got if found else got
                from_class = self.class_attr(v[1], name, v, "", cells)
                if found and not self.pycg:  # an instance attribute hides an external base's guess
                    from_class = {c for c in from_class if c[0] != "x"}
                elif not found and not from_class and not self.pycg:  # duck-typed: only subclasses define it
                    from_class = self.subclass_methods(v[1], name)
                out |= found
                out |= from_class
                bound = True
            elif t == "c":
                out |= self.class_attr(v[1], name, None)
            elif t == "pr":
                out |= self.getattr(self.param_results(v), name)
            elif t == "sup":
                cls = v[1]
                out |= self.class_attr(cls, name, ("i", cls), start_after=cls)
                bound = True
            elif t == "k" and type(v[1]) in _TYPE_PREFIX:
                out.add(("bt", f"{_TYPE_PREFIX[type(v[1])]}.{name}"))
            elif t == "o":
                kind = self.kinds.get(v[1], "list")
                if kind == "dict" and name == "update":
                    out.add(("upd", v[1]))
                elif kind == "list" and name in ("append", "insert", "extend"):
                    out.add(("put", v[1], name))
                else:
                    out.add(("bt", f"{_CONTAINER_PREFIX[kind]}.{name}"))
        return self.resolve_props(out) if bound else out

    def resolve_props(self, values: Any) -> Any:
        tag: str
        for v in values:
            tag = v[0]
            if tag == "prop":
                break
        else:
            return values
        out = set()
        for v in values:
            tag = v[0]
            if tag == "prop":
                out |= self.returns(v[1])
            else:
                out.add(v)
        return out
