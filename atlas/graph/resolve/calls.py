"""Calls for the call resolver: call sites, edges with provenance, argument passing into parameter cells,
constructors, the builtins that move values (map, filter, iter, sorted, next, enumerate, zip, getattr, super) and
the library calls that do (nn.ModuleList, islice; CONTAINERS), and calling nn.Module instances (CALL_RUNS)."""

from __future__ import annotations

from typing import Any, Final

from atlas.graph.resolve.cells import _NOTHING
from atlas.graph.resolve.summaries import Summaries
from atlas.model import Provenance

# External classes whose __call__ runs a method of the instance: calling a subclass's instance reaches that method.
CALL_RUNS: Final = {"torch.nn.Module": "forward", "torch.nn.modules.module.Module": "forward"}
# External callables whose result holds the elements of their arguments: "iterable" (the first argument's
# elements) or "items" (each positional argument is an element).
CONTAINERS: Final = {"torch.nn.ModuleList": "iterable", "torch.nn.Sequential": "items",
                     "itertools.islice": "iterable", "itertools.chain": "iterables", "collections.deque": "iterable"}
# Called with a function, these return it as a kernel (`k = triton.jit(fn)`); with options only, a decorator.
KERNEL_WRAPPERS: Final = frozenset({"triton.jit", "triton.autotune", "triton.heuristics"})
_STATIC: Final = Provenance.STATIC
_LAUNCH: Final = Provenance.LAUNCH
_TYPE_INFERRED: Final = Provenance.TYPE_INFERRED
_DISPATCH: Final = Provenance.DISPATCH
# Which provenance an edge keeps when one call site reaches a callee in several ways (first = surest): the result
# does not depend on the order values are met in (sets iterate in hash order).
RANK: Final = {p: i for i, p in enumerate((Provenance.STATIC, Provenance.LAUNCH, Provenance.TYPE_INFERRED,
                                           Provenance.STRING_DISPATCH, Provenance.DISPATCH, Provenance.REGISTRATION,
                                           Provenance.NAME_MATCH, Provenance.RUNTIME))}


class Calls(Summaries):
    """A part of Solver (atlas.graph.resolve.state): invoking values, recording edges (caller, callee) ->
    {line: provenance} and sites."""

    # -- calls --------------------------------------------------------------------------------------------------
    def call_expr(self, e: tuple):
        _, fexpr, args, kwargs, site = e
        callees = self.eval(fexpr)
        key = (self.ctx[2], site[0], site[2])
        out = set()
        hit = 0
        saved = self.arg_memo
        self.arg_memo = None  # the arguments are evaluated once, for the first callee that takes them (eval_args)
        for v in callees:
            tag: str = v[0]  # typed: mypyc compares str tags natively (the tags decide most branches here)
            if tag in ("k", "o", "g", "sup", "m"):
                continue
            hit = max(hit, 2 if tag in ("f", "bm", "c", "i", "r", "prop") else 1)
            out |= self.invoke(v, args, kwargs, site, fexpr)
        self.arg_memo = saved
        if hit > self.out.sites.get(key, -1):
            self.out.sites[key] = hit
        ftag: str = fexpr[0]
        if self.by_name and ftag in ("a", "n") and fexpr[-1] in self.by_name:
            self.note_named_call(self.by_name[fexpr[-1]], args, kwargs, site)
        if not callees:
            for a in args:
                self.eval(a[1] if a[0] == "*" else a)
            for _, a in kwargs:
                self.eval(a)
        if ftag == "n" and not self.pycg:
            marker = self.param_call(fexpr[1])  # a parameter called: each call site gets its argument's results
            if marker is not None:
                return {marker}
        return out

    def edge(self, callee: str, site, fexpr: tuple, prov: Provenance | None = None) -> None:
        lines = self.out.edges.get((self.ctx[2], callee))
        if lines is None:
            lines = self.out.edges[(self.ctx[2], callee)] = {}
        line = site[0] if site else 0
        have = lines.get(line)
        if have is _STATIC:
            return
        if prov is None:
            ftag: str = fexpr[0]
            if ftag == "n" or (ftag == "a" and fexpr[1][0] == "n" and fexpr[1][1] in ("self", "cls")) or (
                    ftag == "a" and fexpr[1][0] == "c" and fexpr[1][1] == ("n", "super")):
                prov = _STATIC
            elif ftag == "s" and callee in self.scopes and (callee in self.kernel_functions or any(
                    d.split("(")[0].rsplit(".", 1)[-1] in ("jit", "autotune", "heuristics")
                    for d in self.scopes[callee].decorator_names)):
                prov = _LAUNCH
            else:
                prov = _TYPE_INFERRED
        if have is None or RANK[prov] < RANK[have]:  # the surest way the site reached the callee, whatever the order
            lines[line] = prov

    def invoke(self, v: tuple, args, kwargs, site, fexpr):
        t: str = v[0]
        if t == "f":
            return self.call_function(v[1], None, args, kwargs, site, fexpr)
        if t == "bm":
            return self.call_function(v[1], v[2], args, kwargs, site, fexpr)
        if t == "c":
            return self.construct(v[1], args, kwargs, fexpr, site)
        if t == "x":
            self.edge(v[1], site, fexpr, _STATIC if fexpr[0] == "n" else _TYPE_INFERRED)
            vals, _ = self.eval_args(args, kwargs)
            if v[1] in CONTAINERS and not self.pycg:  # nn.ModuleList(layers), islice(layers, ...): the elements
                return self.new_list(v[1], site, self.elements(vals, CONTAINERS[v[1]], args))
            if v[1] in KERNEL_WRAPPERS and not self.pycg:  # k = triton.jit(fn), triton.jit(**options)(fn)
                kernels = {f for f in (vals[0] if vals else ()) if f[0] == "f"}
                self.kernel_functions.update(f[1] for f in kernels)
                return kernels or ({v} if not args else {("xr", "triton")})
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
        if t == "put":  # list.append / insert / extend: the list's elements grow
            self.edge(f"<**PyList**>.{v[2]}", site, fexpr)
            vals, _ = self.eval_args(args, kwargs)
            if vals:
                self.write(("s", v[1], "*"), self.iterate(vals[0]) if v[2] == "extend" else vals[-1])
            return _NOTHING
        if t == "i" or t == "r":
            out = set()
            for m in self.class_attr(v[1], "__call__", v):
                method = CALL_RUNS.get(m[1].rpartition(".")[0]) if m[0] == "x" else None
                if method:  # an external base's __call__ runs a method of the instance: nn.Module -> forward
                    for f in self.class_attr(v[1], method, v):
                        if f[0] == "bm":
                            out |= self.call_function(f[1], f[2], args, kwargs, site, fexpr,
                                                      _TYPE_INFERRED)
                out |= self.invoke(m, args, kwargs, site, fexpr)
            return out
        if t == "prop":
            return self.invoke(("bm", v[1], None), args, kwargs, site, fexpr)
        if t == "pr":
            out = set()
            for c in self.param_results(v):
                out |= self.invoke(c, args, kwargs, site, fexpr)
            return out
        return _NOTHING

    def new_list(self, name: str, site, elements) -> set:
        """A list object made at this call site (by a builtin or library call) holding `elements`."""
        alloc = f"{name}:{self.ctx[2]}:{site[0] if site else 0}"
        self.kinds[alloc] = "list"
        self.write(("s", alloc, "*"), elements)
        return {("o", alloc)}

    def elements(self, vals: list, how: str, args) -> set:
        """The elements a container call gets from its evaluated arguments (see CONTAINERS)."""
        if how == "iterable":
            return self.iterate(vals[0]) if vals else set()
        out = set()
        for a, val in zip(args, vals):
            out |= self.iterate(val) if how == "iterables" or a[0] == "*" else val
        return out

    def eval_args(self, args: Any, kwargs: Any) -> Any:
        """The values of the arguments (each ('pr', ...) made concrete, constants dropped but in PyCG mode). A call
        with several callees evaluates them once: the memo holds the last evaluation, for the same argument tuples
        in the same context (the statement being run; call_expr clears it around each call)."""
        memo = self.arg_memo
        if memo is not None and memo[0] is args and memo[1] is kwargs and memo[2] is self.ctx:
            return memo[3], memo[4]
        vals: list = []
        tag: str
        for a in args:
            tag = a[0]
            vals.append(self.concrete(self.eval(a[1] if tag == "*" else a)))
        kvals = [(k, self.concrete(self.eval(a))) for k, a in kwargs] if kwargs else []
        if not self.pycg:  # constants matter for PyCG's dict and list cases; in real code they only bloat cells
            vals = [_without_constants(val) for val in vals]
            kvals = [(k, _without_constants(val)) for k, val in kvals]
        self.arg_memo = (args, kwargs, self.ctx, vals, kvals)
        return vals, kvals

    def call_function(self, fid: str, receiver, args, kwargs, site, fexpr, prov: Provenance | None = None):
        scope = self.scopes.get(fid)
        if scope is None:
            return _NOTHING
        if receiver is not None and receiver[0] == "r":  # an instance a dispatch rule names: a run-time choice
            prov, receiver = _DISPATCH, ("i", receiver[1])
        self.edge(fid, site, fexpr, prov)
        vals, kvals = self.eval_args(args, kwargs)
        params = scope.params
        pos = 0
        saved = self.ctx
        self.ctx = (self.ctx[2], -1, self.ctx[2], False)
        bound = {}
        if receiver is not None and params:
            self.write(("v", fid, params[0][0]), {receiver})
            pos = 1
        tag: str
        for a, val in zip(args, vals):
            tag = a[0]
            if tag == "*":
                break
            if pos >= len(params):
                break
            p = params[pos]
            tag = p[3]
            if tag == "*" or tag == "**":
                break
            if len(val) <= self.cap:
                self.write(("v", fid, p[0]), val)
                bound[p[0]] = val
            pos += 1
        for k, val in kvals:
            if k is None:
                continue
            for p in params:
                if p[0] == k and p[3] == "" and len(val) <= self.cap:
                    self.write(("v", fid, k), val)
                    bound[k] = val
                    break
        self.ctx = saved
        if scope.is_generator:
            return {("g", fid)}
        if fid in self.pr_functions:
            return self.instantiate(self.returns(fid), fid, bound, f"{self.ctx[2]}:{site[0] if site else 0}")
        return self.returns(fid)

    def returns(self, fid: str):
        saved = self.ctx
        self.ctx = (fid, 1 << 30, fid, False)
        out = self.read(("ret", fid), local=False)
        self.ctx = saved
        return out

    def construct(self, cls: str, args, kwargs, fexpr, site):
        inst = ("i", cls)
        tag: str
        for m in self.class_attr(cls, "__init__", inst):
            tag = m[0]
            if tag == "bm":
                self.call_function(m[1], inst, args, kwargs, site, fexpr)
            elif tag == "x":
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
        if name in ("enumerate", "zip") and vals:  # rows (index, element) / (element of each argument)
            row = f"{name}:{self.ctx[2]}:{site[0] if site else 0}:row"
            self.kinds[row] = "list"
            for i, val in enumerate([set(), vals[0]] if name == "enumerate" else vals):
                self.write(("s", row, i), self.iterate(val))
            return self.new_list(name, site, {("o", row)})
        if name in ("getattr",) and len(vals) >= 2:
            out = set()
            for k in vals[1]:
                if k[0] == "k" and isinstance(k[1], str):
                    out |= self.getattr(vals[0], k[1])
            return out
        return _NOTHING


def _without_constants(values: Any) -> Any:
    """`values` less its constants (the same set when it holds none: nothing mutates what eval returns)."""
    for v in values:
        tag: str = v[0]
        if tag == "k":
            return {v for v in values if v[0] != "k"}
    return values
