"""Higher-order calls for the call resolver. What a function gets by calling one of its parameters (`layer_fn(...)`
in `make_layers(n, layer_fn)`) is kept as ('pr', function, parameter); where the function returns it, in containers
too, each call site gets what its own argument returns (containers copied per site), so one shared helper does not
mix the results of every caller. Anywhere else ('pr', ...) stands for what any argument returns."""

from __future__ import annotations

_MAX_DEPTH = 2  # containers nested deeper than this are not copied per call site
_MAX_SLOTS = 8  # nor containers with more slots than this (a returned tuple is small)


class Summaries:
    """Mixin of Solver: ('pr', fid, param) values, made by `param_call`, resolved by `instantiate` at call sites
    and by `param_results` elsewhere."""

    def param_call(self, name: str) -> tuple | None:
        """('pr', scope, name) when `name(...)` calls a parameter of the function being evaluated (one that
        `calls_parameters` found)."""
        sid = self.ctx[0]
        return ("pr", sid, name) if name in self.pr_functions.get(sid, ()) else None

    def param_results(self, v: tuple):
        """What the parameter's values give when called, in no particular call site (never a ('pr', ...) itself:
        one that the results hold is expanded in turn)."""
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

    def call_results(self, values) -> set:
        out = set()
        for f in values:
            t = f[0]
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
        """`values` (what `fid` returned) with its ('pr', fid, p) replaced by what `bound[p]` returns; small
        containers are copied under an allocation id of this call site (`tag`), so the caller never sees the
        shared ones."""
        out = set()
        for v in values:
            if v[0] == "pr" and v[1] == fid:
                out |= self.call_results(bound.get(v[2], ()))
            elif v[0] == "o" and depth < _MAX_DEPTH and len(self.slots(v[1])) <= _MAX_SLOTS:
                copy = f"{v[1]}@{tag}"
                self.kinds[copy] = self.kinds.get(v[1], "list")
                for key in list(self.slots(v[1])):
                    self.write(("s", copy, key[2]), self.instantiate(self.read(key, local=False), fid, bound, tag,
                                                                      depth + 1))
                out.add(("o", copy))
            else:
                out.add(v)
        return out


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
