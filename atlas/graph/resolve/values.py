"""Expressions for the call resolver: literals and their slots, subscripts, slices and iteration."""

from __future__ import annotations

from typing import Any

from atlas.graph.resolve.cells import _NOTHING
from atlas.graph.resolve.names import Names


class Values(Names):
    """A part of Solver (atlas.graph.resolve.state): the abstract values of an IR expression (see
    atlas.parse.python.facts)."""

    # -- expressions --------------------------------------------------------------------------------------------
    def eval(self, e: tuple):
        t: str = e[0]
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
        self.depend(("slots", alloc))
        return self.slot_keys.get(alloc, ())

    def subscript(self, values, key_expr: tuple):
        out = set()
        keys = None
        for v in values:
            t: str = v[0]
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
            elif t == "i" or t == "r":
                out |= self.call_value(v, "__getitem__", key_expr)
            elif t == "pr":
                out |= self.subscript(self.param_results(v), key_expr)
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

    def iterate(self, values: Any) -> Any:
        out = set()
        for v in values:
            t: str = v[0]
            if t == "o":
                for k in self.slots(v[1]):
                    out |= self.read(k, local=False)
            elif t == "g":
                out |= self.read(("y", v[1]), local=False)
            elif t == "xr":
                out.add(v)
            elif t == "pr":
                out |= self.iterate(self.param_results(v))
            elif t == "i" or t == "r":
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
