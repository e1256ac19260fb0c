"""The state of call resolution, shared by the parts of the solver: each part (cells, names, values, summaries,
calls, bindings, dispatch) is a class in its own module, and they form one chain of single inheritance ending in
Solver, so mypyc can compile them to native classes (scripts/compile.py; plain Python runs the same code).

A part may call a method a later part defines; those are declared here, so each module type-checks alone."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from atlas.parse.python.facts import Scope

Ctx = tuple[str, int, str, bool]  # (scope id, statement line, caller id, unconditional?)


@dataclass(slots=True)
class Resolution:
    """What resolution found: edges (caller, callee) -> {line: provenance}, and call sites (resolved or not)."""

    edges: dict = field(default_factory=dict)
    sites: dict = field(default_factory=dict)  # (caller, line, text) -> 0 unresolved, 1 external, 2 in the tree
    rounds: int = 0


class State:
    """The attributes every part reads and writes (set up by Solver.__init__)."""

    pycg: bool
    max_rounds: int
    cap: int
    scopes: dict[str, Scope]
    modules: set[str]
    submodules: dict[str, set[str]]  # module -> the dotted names under it that are modules
    star_modules: set[str]
    caller_of: dict[str, str]
    class_of: dict[str, str]
    bases: dict[str, tuple]
    mro_memo: dict[str, tuple]  # class -> (MRO, internal classes, walk, ("B", class) keys): Names.mro_walk
    mro_users: dict[str, set[str]]  # class -> the memoized classes whose MRO holds it
    direct_subclasses: dict[str, set[str]]  # class -> the classes that name it as a base
    kernel_functions: set[str]  # functions jit'd by a call, `k = triton.jit(fn)`: launches of k
    stars: dict[str, list[str]]
    kinds: dict[str, str]
    slot_keys: dict[str, list]  # alloc -> its slot cell keys
    out: Resolution
    changed: bool
    num_changes: int
    stale: bytearray  # per statement of the plan: 1 when a cell it read has changed since
    reader: int  # the plan index of the statement being evaluated
    num_evaluated: int  # statement runs so far: the number of the run in progress
    mro_read: dict[str, int]  # class -> the last statement run registered as reading its MRO
    ctx: Ctx
    by_name: dict[str, Any]  # method name -> its atlas.graph.resolve.rules.ByName
    named_calls: set  # (caller, line, method name, rule) of the by-name calls seen
    pr_functions: dict[str, frozenset]  # see atlas.graph.resolve.summaries
    pr_holders: dict[str, set]  # function -> the containers its ('pr', ...) values were put in
    arg_memo: tuple | None  # (args, kwargs, ctx, values, keyword values): Calls.eval_args

    # -- defined by later parts -----------------------------------------------------------------------------------
    def note_pr(self, alloc: str, values: Any) -> None:  # Summaries
        raise NotImplementedError

    def param_results(self, v: tuple) -> set:  # Summaries
        raise NotImplementedError

    def returns(self, fid: str) -> Any:  # Calls
        raise NotImplementedError

    def call_expr(self, e: tuple) -> Any:  # Calls
        raise NotImplementedError

    def invoke(self, v: tuple, args: Any, kwargs: Any, site: Any, fexpr: Any) -> Any:  # Calls
        raise NotImplementedError

    def note_named_call(self, rule: Any, args: Any, kwargs: Any, site: Any) -> None:  # Dispatch
        raise NotImplementedError
