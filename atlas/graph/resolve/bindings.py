"""Bindings for the call resolver: assignment to names, attributes, slots and tuples; def and class statements
(parameters, decorators, bases)."""

from __future__ import annotations

from atlas.graph.resolve.calls import Calls
from atlas.graph.resolve.cells import _NOTHING
from atlas.parse.python.facts import Scope


class Bindings(Calls):
    """A part of Solver (atlas.graph.resolve.state): what assignments and definitions write."""

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
        t: str = target[0]
        if t == "n":
            scope = self.scopes[self.ctx[0]]
            owner = scope.module if target[1] in scope.global_names else scope.id
            self.write(("v", owner, target[1]), values if owner == scope.id else self.concrete(values), strong)
        elif t == "a":
            values = self.concrete(values)  # an attribute outlives the call: no per-call-site ('pr', ...) there
            for obj in self.eval(target[1]):
                if obj[0] in ("i", "c", "r"):
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
        """The values an annotation promises: an instance of each class it names; the class itself for `type[X]`
        (the parser's ('type', expr)), so calling it constructs."""
        out = set()
        for e in exprs:
            is_class = e[0] == "type"
            for v in self.eval(e[1] if is_class else e):
                if v[0] == "c":
                    out.add(v if is_class else ("i", v[1]))
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
        for deco in scope.decorators[::-1]:
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
        found = []
        for b in scope.bases:
            entries = []
            for v in self.eval(b):
                if v[0] == "c":
                    entries.append(v[1])
                elif v[0] == "x":
                    entries.append(f"x:{v[1]}")
                elif v[0] == "b":
                    entries.append(f"b:{v[1]}")
            found.append(tuple(sorted(entries)))
        bases = tuple(found)
        if self.bases.get(cid) != bases:
            self.bases[cid] = bases
            for user in self.mro_users.pop(cid, ()):
                self.mro_memo.pop(user, None)
            self.changed = True
            self.mark(("B", cid))
            for base in {b for alts in bases for b in alts if not b.startswith(("x:", "b:"))}:
                subs = self.direct_subclasses.setdefault(base, set())
                if cid not in subs:
                    subs.add(cid)
                    self.mark(("subs", base))
        for deco in scope.decorators:
            for d in self.eval(deco):
                if d[0] in ("f", "bm") and d[1] != cid:
                    self.invoke_with_values(d, {("c", cid)}, deco)
                elif d[0] == "x":
                    self.edge(d[1], (scope.start, 0, ""), deco)
        self.assign(("n", name), {("c", cid)})
