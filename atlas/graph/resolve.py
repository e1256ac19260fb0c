"""Call resolution: an abstract interpreter over the scope IR of every module (atlas.parse.python.facts).

Values are tuples: ('f', id) function, ('bm', id, receiver) bound method, ('c', id) class, ('i', id) instance,
('m', id) module, ('x', name) external name, ('xr', library) an object a library call returned,
('b', name) builtin, ('bt', name) method of a builtin type,
('k', constant), ('o', alloc) list/tuple/dict object, ('g', id) generator, ('sup', class id) super().
Cells hold the values written to variables, attributes, container slots, parameters and returns; each write
remembers its scope, statement line and whether it ran unconditionally, so a read later in the same scope sees
the last unconditional write and what follows it (flow-sensitive within a scope, flow-insensitive across scopes).
All scopes are evaluated in rounds until nothing grows (a fixpoint) or `max_rounds` is reached."""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field

from atlas.graph.mro import linearize
from atlas.model import Provenance
from atlas.parse.python.facts import ModuleFacts, Scope

BUILTINS = frozenset(dir(builtins))
_NOTHING: frozenset = frozenset()
_TYPE_PREFIX = {str: "<**PyStr**>", bytes: "<**PyStr**>"}
_PLAIN_BASES = frozenset({"abc", "typing", "typing_extensions", "enum", "dataclasses", "builtins", "collections"})
_CONTAINER_PREFIX = {"dict": "<**PyDict**>", "list": "<**PyList**>"}


@dataclass(slots=True)
class Resolution:
    """What resolution found: edges (caller, callee) -> {(line, provenance)}, and call sites (resolved or not)."""

    edges: dict = field(default_factory=dict)
    sites: dict = field(default_factory=dict)  # (caller, line, text) -> 0 unresolved, 1 external, 2 in the tree
    rounds: int = 0


class Solver:
    def __init__(self, facts: list[ModuleFacts], pycg: bool = False, max_rounds: int = 30, cap: int = 48):
        self.pycg = pycg
        self.max_rounds = max_rounds
        self.cap = cap
        self.scopes: dict[str, Scope] = {}
        self.modules: set[str] = set()
        for f in facts:
            self.modules.add(f.module)
            parts = f.module.split(".")
            for i in range(1, len(parts)):
                self.modules.add(".".join(parts[:i]))
            for s in f.scopes:
                self.scopes[s.id] = s
        self.star_modules = {s.module for s in self.scopes.values() for st in s.statements
                             if st[0] == "from" and any(n == "*" for n, _ in st[2])}
        self.caller_of = {sid: self._caller(s) for sid, s in self.scopes.items()}
        self.class_of = {sid: self._enclosing_class(s) for sid, s in self.scopes.items()}
        self.cells: dict = {}
        self.bases: dict[str, tuple] = {}
        self.mro_memo: dict[str, tuple] = {}  # class -> (MRO, its ("B", class) dependency keys)
        self.mro_users: dict[str, set] = {}  # class -> the memoized classes whose MRO holds it
        self.stars: dict[str, list[str]] = {}
        self.kinds: dict[str, str] = {}
        self.slot_keys: dict[str, list] = {}  # alloc -> its slot cell keys
        self.out = Resolution()
        self.changed = False
        self.dirty: dict = {}  # key -> the clock (scope run) when it last grew: scopes that read it since run again
        self.clock = 0
        self.num_changes = 0
        self.deps: set = set()  # cells the scope being evaluated reads
        self.ctx: tuple = ("", 0, "", True)  # (scope id, idx, caller id, strong)

    # -- scope helpers ------------------------------------------------------------------------------------------
    def _caller(self, scope: Scope) -> str:
        while scope.kind == "class":
            scope = self.scopes[scope.parent]
        return scope.id

    def _enclosing_class(self, scope: Scope) -> str:
        while scope.parent:
            parent = self.scopes.get(scope.parent)
            if parent is None:
                return ""
            if parent.kind == "class":
                return parent.id
            if scope.kind == "lambda" or parent.kind != "module":
                scope = parent
                continue
            return ""
        return ""

    # -- running ------------------------------------------------------------------------------------------------
    def solve(self, on_round=None) -> Resolution:
        """Rounds over the scopes in module order; after the first, a scope runs again only when a cell it read
        changed since it last ran (earlier in this round included), until nothing changes or `max_rounds`."""
        order = sorted(self.scopes.values(), key=lambda s: (s.module, s.start))
        deps: dict[str, set] = {}
        last_run: dict[str, int] = {}
        stamp = self.dirty
        for n in range(1, self.max_rounds + 1):
            self.changed = False
            before = self.num_changes
            for scope in order:
                sid = scope.id
                if n > 1:
                    since = last_run[sid]
                    if not any(stamp.get(k, -1) >= since for k in deps[sid]):
                        continue
                self.clock += 1
                last_run[sid] = self.clock
                self.deps = deps[sid] = set()
                caller = self.caller_of[sid]
                for stmt in scope.statements:
                    self.statement(scope, caller, stmt)
            self.out.rounds = n
            if on_round:
                on_round(n, self.num_changes - before)
            if not self.changed:
                break
        return self.out

    def statement(self, scope: Scope, caller: str, stmt: tuple) -> None:
        op = stmt[0]
        if op == "=":
            self.ctx = (scope.id, stmt[3], caller, stmt[4])
            for target in stmt[1]:
                self.assign_expr(target, stmt[2])
            if stmt[5]:
                instances = self.annotation(stmt[5])
                for target in stmt[1]:
                    self.assign(target, instances, strong=False)
        elif op == "e":
            self.ctx = (scope.id, stmt[2], caller, len(stmt) > 3 and stmt[3])
            self.eval(stmt[1])
        elif op == "ret" or op == "y":
            self.ctx = (scope.id, 1 << 30, caller, False)
            key = ("ret", scope.id) if op == "ret" else ("y", scope.id)
            self.write(key, self.eval(stmt[1]))
        elif op == "def":
            self.ctx = (scope.id, stmt[3], caller, stmt[4])
            self.define(scope, stmt[1], stmt[2])
        elif op == "cls":
            self.ctx = (scope.id, stmt[3], caller, stmt[4])
            self.define_class(scope, stmt[1], stmt[2])
        elif op == "for":
            self.ctx = (scope.id, stmt[3], caller, False)
            self.assign(stmt[1], self.iterate(self.eval(stmt[2])), strong=False)
        elif op == "imp":
            self.ctx = (scope.id, stmt[3], caller, stmt[4])
            mod, alias = stmt[1], stmt[2]
            self.assign(("n", alias or mod.split(".")[0]), {self.module_value(mod if alias else mod.split(".")[0])})
        elif op == "from":
            self.ctx = (scope.id, stmt[3], caller, stmt[4])
            self.import_from(scope, stmt[1], stmt[2])
        elif op == "raise":
            self.ctx = (scope.id, stmt[2], caller, False)
            for v in self.eval(stmt[1]):
                if v[0] == "c":
                    self.construct(v[1], (), (), stmt[1], None)

    def import_from(self, scope: Scope, mod: str, names: tuple) -> None:
        internal = mod in self.modules
        for name, alias in names:
            if name == "*":
                if internal:
                    stars = self.stars.setdefault(scope.module, [])
                    if mod not in stars:
                        stars.append(mod)
                        self.mark(("stars", scope.module))
                        self.changed = True
                continue
            if internal:
                values = self.module_attr(mod, name)
                target = self.scopes.get(mod)
                if not values and not self.pycg and (target is None or name not in target.local_names) and \
                        mod not in self.star_modules:
                    values = {("x", f"{mod}.{name}")}  # not defined in Python: a compiled extension, say
            else:
                values = {("x", f"{mod}.{name}")}
            self.assign(("n", alias or name), values)

    def module_value(self, name: str) -> tuple:
        return ("m", name) if name in self.modules else ("x", name)

    # -- cells --------------------------------------------------------------------------------------------------
    def write(self, key: tuple, values, strong: bool = False) -> None:
        if not values:
            return
        scope, idx = self.ctx[0], self.ctx[1]
        cell = self.cells.get(key)
        if cell is None:
            cell = self.cells[key] = {}
            if key[0] == "s":
                self.slot_keys.setdefault(key[1], []).append(key)
                self.mark(("slots", key[1]))
        w = (scope, idx, strong)
        have = cell.get(w)
        if have is None:
            cell[w] = set(values)
            self.changed = True
            self.mark(key)
        elif not have.issuperset(values):
            have.update(values)
            self.changed = True
            self.mark(key)

    def mark(self, key) -> None:
        self.dirty[key] = self.clock
        self.num_changes += 1

    def read(self, key: tuple, local: bool = True):
        """The values of a cell as seen from the current statement."""
        self.deps.add(key)
        cell = self.cells.get(key)
        if not cell:
            return _NOTHING
        if len(cell) == 1:
            for vals in cell.values():
                return vals
        scope, idx = self.ctx[0], self.ctx[1]
        last = -1
        if local:
            for (s, i, strong) in cell:
                if strong and s == scope and last < i < idx:
                    last = i
        out = set()
        keep_others = last < 0 or key[0] != "v" or self.scopes[key[1]].kind == "module"
        for (s, i, _), vals in cell.items():
            if s == scope:
                if last < 0 or last <= i <= idx:
                    out |= vals
            elif keep_others:
                out |= vals
        return out

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
        out = set()
        if scope is not None and name in scope.local_names:
            out |= self.read(("v", module, name), local=local)
        sub = f"{module}.{name}"
        if sub in self.modules:
            out.add(("m", sub))
        self.deps.add(("stars", module))
        if not out and self.stars.get(module):
            seen = seen or set()
            seen.add(module)
            for star in self.stars[module]:
                if star not in seen:
                    out |= self.module_attr(star, name, seen=seen)
        return out

    def mro(self, cls: str) -> tuple:
        """The MRO of `cls`; the scope being evaluated then depends on the bases of every class in it."""
        got = self.mro_memo.get(cls)
        if got is None:
            mro = linearize(cls, self.bases)
            got = self.mro_memo[cls] = (mro, frozenset(("B", k) for k in mro if not k.startswith(("x:", "b:"))))
            for k in mro:
                self.mro_users.setdefault(k, set()).add(cls)
        self.deps |= got[1]
        return got[0]

    def class_attr(self, cls: str, name: str, receiver: tuple | None, start_after: str = ""):
        self.deps.add(("a", cls, name))
        mro = self.mro(cls)
        if start_after:
            mro = mro[mro.index(start_after) + 1:] if start_after in mro else ()
        for k in mro:
            if k.startswith("x:"):
                if k[2:].split(".")[0] in _PLAIN_BASES:
                    continue
                return {("x", f"{k[2:]}.{name}")}
            if k.startswith("b:"):
                return _NOTHING
            scope = self.scopes.get(k)
            if scope is None:
                continue
            defined = name in scope.local_names
            self.deps.add(("a", k, name))
            if not defined and ("a", k, name) not in self.cells:
                continue
            vals = set(self.read(("v", k, name), local=False)) if defined else set()
            vals |= self.read(("a", k, name), local=False)
            return {self.bind_attr(v, receiver, cls) for v in vals}
        return _NOTHING

    def bind_attr(self, v: tuple, receiver: tuple | None, cls: str) -> tuple:
        if v[0] != "f":
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
        for v in values:
            t = v[0]
            if t == "m":
                out |= self.module_attr(v[1], name)
            elif t == "x":
                out.add(("x", f"{v[1]}.{name}"))
            elif t == "xr":
                out.add(v)
            elif t == "i":
                found = set()
                for k in self.mro(v[1]):
                    if not k.startswith(("x:", "b:")):
                        found |= self.read(("a", k, name), local=False)
                from_class = self.class_attr(v[1], name, v)
                if found and not self.pycg:  # an instance attribute hides an external base's guess
                    from_class = {c for c in from_class if c[0] != "x"}
                out |= found | from_class
            elif t == "c":
                out |= self.class_attr(v[1], name, None)
            elif t == "sup":
                cls = v[1]
                out |= self.class_attr(cls, name, ("i", cls), start_after=cls)
            elif t == "k" and type(v[1]) in _TYPE_PREFIX:
                out.add(("bt", f"{_TYPE_PREFIX[type(v[1])]}.{name}"))
            elif t == "o":
                kind = self.kinds.get(v[1], "list")
                if kind == "dict" and name == "update":
                    out.add(("upd", v[1]))
                else:
                    out.add(("bt", f"{_CONTAINER_PREFIX[kind]}.{name}"))
        return self.resolve_props(out)

    def resolve_props(self, values):
        if not any(v[0] == "prop" for v in values):
            return values
        out = set()
        for v in values:
            if v[0] == "prop":
                out |= self.returns(v[1])
            else:
                out.add(v)
        return out

    # -- expressions --------------------------------------------------------------------------------------------
    def eval(self, e: tuple):
        t = e[0]
        if t == "n":
            return self.lookup(e[1])
        if t == "a":
            return self.getattr(self.eval(e[1]), e[2])
        if t == "c":
            return self.call_expr(e)
        if t == "k":
            return {e}
        if t == "s":
            return self.subscript(self.eval(e[1]), e[2])
        if t == "l":
            return self.literal(e)
        if t == "d":
            return self.dict_literal(e)
        if t == "lam":
            return {("f", e[1])}
        if t == "u":
            out = set()
            for x in e[1]:
                out |= self.eval(x)
            return out
        if t == "it":
            return self.iterate(self.eval(e[1]))
        if t == "sl":
            return self.slice(e)
        return _NOTHING

    def literal(self, e: tuple):
        alloc = e[2]
        self.kinds[alloc] = "list"
        star = False
        for i, item in enumerate(e[1]):
            if item[0] == "*":
                star = True
                self.write(("s", alloc, "*"), self.iterate(self.eval(item[1])))
            else:
                self.write(("s", alloc, "*" if star else i), self.eval(item), strong=self.ctx[3])
        return {("o", alloc)}

    def dict_literal(self, e: tuple):
        alloc = e[2]
        self.kinds[alloc] = "dict"
        for key, value in e[1]:
            if key is None:
                self.copy_slots(self.eval(value), alloc)
                continue
            keys = self.eval(key)
            k = next(iter(keys))[1] if len(keys) == 1 and next(iter(keys))[0] == "k" else "*"
            self.write(("s", alloc, k), self.eval(value), strong=self.ctx[3] and k != "*")
        return {("o", alloc)}

    def copy_slots(self, values, alloc: str) -> None:
        for v in values:
            if v[0] == "o":
                for key in list(self.slots(v[1])):
                    self.write(("s", alloc, key[2]), self.read(key), strong=self.ctx[3] and key[2] != "*")

    def slots(self, alloc: str):
        self.deps.add(("slots", alloc))
        return self.slot_keys.get(alloc, ())

    def subscript(self, values, key_expr: tuple):
        out = set()
        keys = None
        for v in values:
            t = v[0]
            if t == "o":
                if keys is None:
                    keys = self.eval(key_expr)
                consts = [k[1] for k in keys if k[0] == "k"]
                if consts and len(consts) == len(keys):
                    for c in consts:
                        out |= self.read(("s", v[1], c))
                    out |= self.read(("s", v[1], "*"))
                else:
                    for k in self.slots(v[1]):
                        out |= self.read(k)
            elif t in ("f", "c", "x", "bm", "xr"):
                out.add(v)  # kernel[grid], Generic[T], external[...]
            elif t == "i":
                out |= self.call_value(v, "__getitem__", key_expr)
        return out

    def slice(self, e: tuple):
        values = self.eval(e[1])
        lo = self.eval(e[2]) if e[2] is not None else {("k", 0)}
        hi = self.eval(e[3]) if e[3] is not None else {("k", None)}
        out = set()
        for v in values:
            if v[0] != "o":
                continue
            if "[" not in v[1] and len(lo) == 1 and len(hi) == 1 and all(
                    isinstance(x[1], int) or x[1] is None for x in lo | hi):
                a, b = next(iter(lo))[1] or 0, next(iter(hi))[1]
                alloc = f"{v[1]}[{a}:{b}]"
                self.kinds[alloc] = "list"
                ints = sorted(k[2] for k in self.slots(v[1]) if isinstance(k[2], int))
                for i in ints[a:b]:
                    self.write(("s", alloc, i - a), self.read(("s", v[1], i)))
                self.write(("s", alloc, "*"), self.read(("s", v[1], "*")))
                out.add(("o", alloc))
            else:
                out.add(v)
        return out

    def iterate(self, values):
        out = set()
        for v in values:
            t = v[0]
            if t == "o":
                for k in self.slots(v[1]):
                    out |= self.read(k, local=False)
            elif t == "g":
                out |= self.read(("y", v[1]), local=False)
            elif t == "xr":
                out.add(v)
            elif t == "i":
                for it in self.call_value(v, "__iter__", None):
                    if it[0] == "i":
                        out |= self.call_value(it, "__next__", None)
                    else:
                        out |= self.iterate({it})
        return out

    def call_value(self, receiver: tuple, method: str, arg_expr: tuple | None):
        out = set()
        for m in self.class_attr(receiver[1], method, receiver):
            out |= self.invoke(m, (arg_expr,) if arg_expr else (), (), None, ("n", method))
        return out

    # -- calls --------------------------------------------------------------------------------------------------
    def call_expr(self, e: tuple):
        _, fexpr, args, kwargs, site = e
        callees = self.eval(fexpr)
        key = (self.ctx[2], site[0], site[2])
        out = set()
        hit = 0
        for v in callees:
            if v[0] in ("k", "o", "g", "sup", "m"):
                continue
            hit = max(hit, 2 if v[0] in ("f", "bm", "c", "i", "prop") else 1)
            out |= self.invoke(v, args, kwargs, site, fexpr)
        if hit > self.out.sites.get(key, -1):
            self.out.sites[key] = hit
        if not callees:
            for a in args:
                self.eval(a[1] if a[0] == "*" else a)
            for _, a in kwargs:
                self.eval(a)
        return out

    def edge(self, callee: str, site, fexpr: tuple, prov: Provenance | None = None) -> None:
        if prov is None:
            if fexpr[0] == "n" or (fexpr[0] == "a" and fexpr[1][0] == "n" and fexpr[1][1] in ("self", "cls")) or (
                    fexpr[0] == "a" and fexpr[1][0] == "c" and fexpr[1][1] == ("n", "super")):
                prov = Provenance.STATIC
            elif fexpr[0] == "s" and callee in self.scopes and any(
                    d.split("(")[0].rsplit(".", 1)[-1] in ("jit", "autotune", "heuristics")
                    for d in self.scopes[callee].decorator_names):
                prov = Provenance.LAUNCH
            else:
                prov = Provenance.TYPE_INFERRED
        lines = self.out.edges.setdefault((self.ctx[2], callee), {})
        line = site[0] if site else 0
        if line not in lines:
            lines[line] = prov

    def invoke(self, v: tuple, args, kwargs, site, fexpr):
        t = v[0]
        if t == "f":
            return self.call_function(v[1], None, args, kwargs, site, fexpr)
        if t == "bm":
            return self.call_function(v[1], v[2], args, kwargs, site, fexpr)
        if t == "c":
            return self.construct(v[1], args, kwargs, fexpr, site)
        if t == "x":
            self.edge(v[1], site, fexpr, Provenance.STATIC if fexpr[0] == "n" else Provenance.TYPE_INFERRED)
            self.eval_args(args, kwargs)
            return {v} if self.pycg else {("xr", v[1].split(".")[0])}  # some object of that library
        if t == "b":
            return self.call_builtin(v[1], args, kwargs, site, fexpr)
        if t == "xr":  # a method of an object a library returned: resolved outside the tree, no edge
            self.eval_args(args, kwargs)
            return {v}
        if t == "bt":
            self.edge(v[1], site, fexpr)
            self.eval_args(args, kwargs)
            return _NOTHING
        if t == "upd":
            for a in args:
                if a[0] != "*":
                    self.copy_slots(self.eval(a), v[1])
            return _NOTHING
        if t == "i":
            out = set()
            for m in self.class_attr(v[1], "__call__", v):
                out |= self.invoke(m, args, kwargs, site, fexpr)
            return out
        if t == "prop":
            return self.invoke(("bm", v[1], None), args, kwargs, site, fexpr)
        return _NOTHING

    def eval_args(self, args, kwargs):
        vals = [self.eval(a[1] if a[0] == "*" else a) for a in args]
        kvals = [(k, self.eval(a)) for k, a in kwargs]
        if not self.pycg:  # constants matter for PyCG's dict and list cases; in real code they only bloat cells
            vals = [{v for v in val if v[0] != "k"} if val else val for val in vals]
            kvals = [(k, {v for v in val if v[0] != "k"} if val else val) for k, val in kvals]
        return vals, kvals

    def call_function(self, fid: str, receiver, args, kwargs, site, fexpr):
        scope = self.scopes.get(fid)
        if scope is None:
            return _NOTHING
        self.edge(fid, site, fexpr)
        vals, kvals = self.eval_args(args, kwargs)
        params = scope.params
        pos = 0
        saved = self.ctx
        self.ctx = (self.ctx[2], -1, self.ctx[2], False)
        if receiver is not None and params:
            self.write(("v", fid, params[0][0]), {receiver})
            pos = 1
        for a, val in zip(args, vals):
            if a[0] == "*":
                break
            if pos >= len(params):
                break
            p = params[pos]
            if p[3] == "*":
                break
            if p[3] == "**":
                break
            if len(val) <= self.cap:
                self.write(("v", fid, p[0]), val)
            pos += 1
        for k, val in kvals:
            if k is None:
                continue
            for p in params:
                if p[0] == k and p[3] == "" and len(val) <= self.cap:
                    self.write(("v", fid, k), val)
                    break
        self.ctx = saved
        if scope.is_generator:
            return {("g", fid)}
        return self.returns(fid)

    def returns(self, fid: str):
        saved = self.ctx
        self.ctx = (fid, 1 << 30, fid, False)
        out = self.read(("ret", fid), local=False)
        self.ctx = saved
        return out

    def construct(self, cls: str, args, kwargs, fexpr, site):
        inst = ("i", cls)
        for m in self.class_attr(cls, "__init__", inst):
            if m[0] == "bm":
                self.call_function(m[1], inst, args, kwargs, site, fexpr)
            elif m[0] == "x":
                self.edge(m[1], site, fexpr)
        if site is not None and not self.pycg and not self.class_attr(cls, "__init__", inst):
            self.edge(cls, site, fexpr)  # no __init__ of its own (a dataclass, say): the edge names the class
        return {inst}

    def call_builtin(self, name: str, args, kwargs, site, fexpr):
        self.edge(f"<builtin>.{name}", site, fexpr)
        if name == "super":
            cls = self.class_of.get(self.ctx[0], "")
            self.eval_args(args, kwargs)
            return {("sup", cls)} if cls else _NOTHING
        vals, kvals = self.eval_args(args, kwargs)
        if name in ("map", "filter"):
            out = set()
            elems = set()
            for val in vals:
                elems |= self.iterate(val)
            for val in vals:
                for f in val:
                    if f[0] in ("f", "bm", "c"):
                        out |= self.invoke(f, (), (), site, fexpr)
            alloc = f"{name}:{self.ctx[2]}:{site[0] if site else 0}"
            self.kinds[alloc] = "list"
            self.write(("s", alloc, "*"), out)
            return {("o", alloc)}
        if name in ("iter", "reversed", "sorted", "list", "tuple", "set", "frozenset") and vals:
            alloc = f"{name}:{self.ctx[2]}:{site[0] if site else 0}"
            self.kinds[alloc] = "list"
            self.write(("s", alloc, "*"), self.iterate(vals[0]))
            return {("o", alloc)}
        if name == "next" and vals:
            return self.iterate(vals[0])
        if name in ("getattr",) and len(vals) >= 2:
            out = set()
            for k in vals[1]:
                if k[0] == "k" and isinstance(k[1], str):
                    out |= self.getattr(vals[0], k[1])
            return out
        return _NOTHING

    # -- assignment ---------------------------------------------------------------------------------------------
    def assign_expr(self, target: tuple, value: tuple) -> None:
        if target[0] == "t" and value[0] == "l" and not any(i[0] == "*" for i in value[1]):
            items, targets = value[1], target[1]
            stars = [i for i, t in enumerate(targets) if t[0] == "*"]
            if not stars and len(items) == len(targets):
                for t, item in zip(targets, items):
                    self.assign_expr(t, item)
                return
            if len(stars) == 1 and len(items) >= len(targets) - 1:
                s = stars[0]
                after = len(targets) - s - 1
                for t, item in zip(targets[:s], items[:s]):
                    self.assign_expr(t, item)
                for t, item in zip(targets[s + 1:], items[len(items) - after:]):
                    self.assign_expr(t, item)
                middle = ("l", items[s:len(items) - after], f"{value[2]}*")
                self.assign(targets[s][1], self.eval(middle))
                return
        self.assign(target, self.eval(value))

    def assign(self, target: tuple, values, strong: bool | None = None) -> None:
        strong = self.ctx[3] if strong is None else strong
        t = target[0]
        if t == "n":
            scope = self.scopes[self.ctx[0]]
            owner = scope.module if target[1] in scope.global_names else scope.id
            self.write(("v", owner, target[1]), values, strong)
        elif t == "a":
            for obj in self.eval(target[1]):
                if obj[0] in ("i", "c"):
                    self.write(("a", obj[1], target[2]), values)
                elif obj[0] == "m" and obj[1] in self.scopes:
                    self.write(("v", obj[1], target[2]), values)
        elif t == "s":
            objs = [o for o in self.eval(target[1]) if o[0] == "o"]
            if not objs:
                return
            keys = self.eval(target[2])
            consts = [k[1] for k in keys if k[0] == "k"]
            for obj in objs:
                if consts and len(consts) == len(keys):
                    for c in consts:
                        self.write(("s", obj[1], c), values, strong and len(objs) == 1 and len(consts) == 1)
                else:
                    self.write(("s", obj[1], "*"), values)
        elif t == "t":
            positional = [v for v in values if v[0] == "o"]
            rest = self.iterate(values)
            for i, sub in enumerate(target[1]):
                if sub[0] == "*":
                    self.assign(sub[1], values, strong=False)
                    continue
                vals = set()
                for o in positional:
                    vals |= self.read(("s", o[1], i), local=False)
                self.assign(sub, vals or rest, strong=False)
        elif t == "*":
            self.assign(target[1], values, strong=False)

    # -- definitions --------------------------------------------------------------------------------------------
    def annotation(self, exprs: tuple):
        out = set()
        for e in exprs:
            for v in self.eval(e):
                if v[0] == "c":
                    out.add(("i", v[1]))
                elif v[0] == "x" and not self.pycg:
                    out.add(v)
        return out

    def define(self, parent: Scope, fid: str, name: str) -> None:
        scope = self.scopes[fid]
        outer = self.ctx
        self.ctx = (fid, -2, outer[2], False)
        for i, (pname, default, annot, _kind) in enumerate(scope.params):
            self.ctx = outer
            vals = set(self.eval(default)) if default is not None else set()
            if annot:
                vals |= self.annotation(annot)
            if i == 0 and parent.kind == "class" and "staticmethod" not in scope.decorator_names:
                vals.add(("c", parent.id) if "classmethod" in scope.decorator_names else ("i", parent.id))
            self.ctx = (fid, -2, outer[2], False)
            self.write(("v", fid, pname), vals)
        if scope.returns:
            self.ctx = outer
            vals = self.annotation(scope.returns)
            self.ctx = (fid, -3, outer[2], False)
            self.write(("ret", fid), vals)
        self.ctx = outer
        value = {("f", fid)}
        for deco in reversed(scope.decorators):
            decorated = set()
            internal = False
            for d in self.eval(deco):
                if d[0] in ("f", "bm", "c") and d[1] != fid and not self.pycg:
                    self.edge(d[1], (scope.start, 0, ""), deco)  # the name keeps the function (see below)
                elif d[0] in ("f", "bm", "c") and d[1] != fid:
                    internal = True
                    decorated |= self.invoke_with_values(d, value, deco)
                elif d[0] == "x":
                    self.edge(d[1], (scope.start, 0, ""), deco)
            if internal:  # PyCG mode only: real code keeps the decorated function itself, since passing every
                value = decorated  # function through one identity decorator would merge them all
        self.assign(("n", name), value)

    def invoke_with_values(self, callee: tuple, values, fexpr: tuple):
        """Call a decorator with an already-evaluated argument."""
        fid = callee[1]
        scope = self.scopes.get(fid)
        if callee[0] == "c":
            return self.construct(fid, (), (), fexpr, (self.scopes[self.ctx[0]].start, 0, ""))
        if scope is None:
            return _NOTHING
        self.edge(fid, None, fexpr)
        params = scope.params[1:] if callee[0] == "bm" else scope.params
        if params:
            saved = self.ctx
            self.ctx = (self.ctx[2], -1, self.ctx[2], False)
            self.write(("v", fid, params[0][0]), values)
            self.ctx = saved
        return {("g", fid)} if scope.is_generator else self.returns(fid)

    def define_class(self, parent: Scope, cid: str, name: str) -> None:
        scope = self.scopes[cid]
        bases = []
        for b in scope.bases:
            entries = []
            for v in self.eval(b):
                if v[0] == "c":
                    entries.append(v[1])
                elif v[0] == "x":
                    entries.append(f"x:{v[1]}")
                elif v[0] == "b":
                    entries.append(f"b:{v[1]}")
            bases.append(tuple(sorted(entries)))
        bases = tuple(bases)
        if self.bases.get(cid) != bases:
            self.bases[cid] = bases
            for user in self.mro_users.pop(cid, ()):
                self.mro_memo.pop(user, None)
            self.changed = True
            self.mark(("B", cid))
        for deco in scope.decorators:
            for d in self.eval(deco):
                if d[0] in ("f", "bm") and d[1] != cid:
                    self.invoke_with_values(d, {("c", cid)}, deco)
                elif d[0] == "x":
                    self.edge(d[1], (scope.start, 0, ""), deco)
        self.assign(("n", name), {("c", cid)})
