"""Higher-order calls for the call resolver. What a function gets by calling one of its parameters (`layer_fn(...)`
in `make_layers(n, layer_fn)`) is kept as ('pr', function, parameter); where the function returns it, in containers
too, each call site gets what its own argument returns (the containers that hold one copied per call site), so one
shared helper does not mix the results of every caller. In the function's own body, and where it leaves the body
other than by its return (an argument, an attribute), it stands for what any argument returns."""

from __future__ import annotations

from typing import Any

from atlas.graph.resolve.values import Values

_MAX_DEPTH = 2  # containers nested deeper than this are not copied per call site
_MAX_SLOTS = 8  # nor containers with more slots than this (a returned tuple is small)


class Summaries(Values):
    """A part of Solver (atlas.graph.resolve.state): ('pr', fid, param) values, made by `param_call`, resolved by
    `instantiate` at call sites and by `param_results` elsewhere."""

    def param_call(self, name: str) -> tuple | None:
        """('pr', scope, name) when `name(...)` calls a parameter of the function being evaluated (one that
        `calls_parameters` found)."""
        sid = self.ctx[0]
        return ("pr", sid, name) if name in self.pr_functions.get(sid, ()) else None

    def param_results(self, v: tuple):
        """What the parameter's values give when called, for a use of ('pr', fid, p) in fid's own body (never a
        ('pr', ...) itself: one the results hold is expanded in turn). Elsewhere, where only a container that was
        not copied per call site can have brought it, it stands for nothing: every caller's results would be a
        guess for any one of them."""
        if self.ctx[0] != v[1]:
            return set()
        out, todo, seen = set(), [v], {v}
        while todo:
            p = todo.pop()
            for r in self.call_results(self.read(("v", p[1], p[2]), local=False)):
                if r[0] != "pr":
                    out.add(r)
                elif r not in seen:
                    seen.add(r)
                    todo.append(r)
        return out

    def concrete(self, values):
        """`values` with each ('pr', ...) replaced by what it stands for: for a value leaving the function's
        locals, containers and return (an argument, an attribute, a global)."""
        if self.ctx[0] not in self.pr_functions or not any(v[0] == "pr" for v in values):
            return values  # (outside its own function a ('pr', ...) stands for nothing: kept, it stays inert)
        out = set()
        for v in values:
            out |= self.param_results(v) if v[0] == "pr" else {v}
        return out

    def call_results(self, values: Any) -> set:
        out: set = set()
        for f in values:
            t: str = f[0]
            if t == "f" or t == "bm":
                scope = self.scopes.get(f[1])
                if scope is not None:
                    out |= {("g", f[1])} if scope.is_generator else self.returns(f[1])
            elif t == "c":
                out.add(("i", f[1]))
            elif t == "x":
                out.add(("xr", f[1].split(".")[0]))
            elif t == "i" or t == "r":
                for m in self.class_attr(f[1], "__call__", f):
                    if m[0] == "bm":
                        out |= self.returns(m[1])
        return out

    def instantiate(self, values, fid: str, bound: dict, tag: str, depth: int = 0):
        """`values` (what `fid` returned) with its ('pr', fid, p) replaced by what `bound[p]` returns; a small
        container that holds one is copied under an allocation id of this call site (`tag`)."""
        self.depend(("pr", fid))  # a container of fid's that gains a ('pr', ...) later makes the caller run again
        holders = self.pr_holders.get(fid, ())
        out = set()
        for v in list(values):  # a snapshot: the copies below may grow the cells `values` came from
            if v[0] == "pr" and v[1] == fid:
                out |= self.call_results(bound.get(v[2], ()))
            elif v[0] == "o" and depth < _MAX_DEPTH and holders and self.holds_pr(v[1], holders):
                copy = f"{v[1]}@{tag}"
                self.kinds[copy] = self.kinds.get(v[1], "list")
                for key in list(self.slots(v[1])):
                    self.write(("s", copy, key[2]), self.instantiate(self.read(key, local=False), fid, bound, tag,
                                                                      depth + 1))
                out.add(("o", copy))
            else:
                out.add(v)
        return out

    def note_pr(self, alloc: str, values) -> None:
        """On every write of a container slot: remember the containers a ('pr', fid, ...) is put in."""
        for v in values:
            if v[0] == "pr":
                holders = self.pr_holders.setdefault(v[1], set())
                if alloc not in holders:
                    holders.add(alloc)
                    self.mark(("pr", v[1]))

    def holds_pr(self, alloc: str, holders: set) -> bool:
        """Whether the container holds a ('pr', fid, ...) (`holders`: fid's), itself or in a container in one of its
        (few) slots."""
        if alloc in holders:
            return True
        keys = self.slots(alloc)
        return len(keys) <= _MAX_SLOTS and any(v[0] == "o" and v[1] in holders
                                               for key in keys for v in self.read(key, local=False))


def calls_parameters(scopes) -> dict[str, frozenset]:
    """Function id -> the parameters its body calls (`layer_fn(...)`), found in the IR before the rounds."""
    out = {}
    for sid, scope in scopes.items():
        if scope.kind != "function":
            continue
        skip = 1 if scopes[scope.parent].kind == "class" else 0
        params = {p[0] for p in scope.params[skip:] if not p[3]}
        if not params or params.isdisjoint(scope.called_names):  # the parser saw no call of a parameter here
            continue
        called = set()
        todo = list(scope.statements)
        while todo:
            node = todo.pop()
            if node and node[0] == "c" and len(node) == 5 and node[1][0] == "n" and node[1][1] in params:
                called.add(node[1][1])
            todo.extend(x for x in node if type(x) is tuple)
        if called:
            out[sid] = frozenset(called)
    return out
