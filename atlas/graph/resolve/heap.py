"""Reads and writes of the resolver's memory as the statement being evaluated makes them (atlas.graph.resolve.cells
holds the cells): variables by binding version, attributes, container slots, what functions return and yield."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from atlas.graph.resolve.cells import ON_CLASS
from atlas.graph.resolve.values import NOTHING, OBJECT, PARAM_RESULT, Values, constant

if TYPE_CHECKING:
    from atlas.graph.resolve.solver import Solver

DEFAULT: Final = "="  # prefix of the variable holding a parameter's default values (never a Python name)
SPREAD: Final = "*"  # in Solver.given: a call spread `*args` or `**kwargs` there (never a Python name)
PARAMETER = 0  # the binding version of a parameter's values (what callers pass, defaults, annotations)


class Context:
    """Where the statement being evaluated is: its scope, the line of its top-level statement, the function whose
    call edges it makes (a class body's is its enclosing module or function), whether it runs unconditionally, its
    own line, the suffix of a clone."""

    def __init__(self, scope: str, top: int, caller: str, strong: bool, line: int = 0, suffix: str = "") -> None:
        self.scope = scope
        self.top = top
        self.caller = caller
        self.strong = strong
        self.line = line  # the statement's own line: where the calls Python makes for it happen (iteration, with)
        self.suffix = suffix  # in a clone, what the scopes and allocation sites its statements name take
        # (atlas.graph.resolve.contexts)


# -- variables ------------------------------------------------------------------------------------------------------


def write_variable(s: Solver, scope: str, name: str, version: int, values: Values) -> None:
    """A binding of `name` in `scope` (its own statement, `version` > 0; a parameter, PARAMETER; another scope's
    write, OUTSIDE)."""
    s.cells.write(s.cells.variable(scope, name), version, values)


def read_local(s: Solver, scope: str, name: str, versions: tuple[int, ...] | None) -> Values:
    """`name` read in its own scope, where `versions` of its bindings reach (None: every binding)."""
    cell = s.cells.variable(scope, name)
    return s.cells.read(cell) if versions is None else s.cells.read_versions(cell, versions)


def read_exported(s: Solver, scope: str, name: str) -> Values:
    """A module's or class's `name` as other scopes see it: the bindings that reach the end of its body, and what
    other scopes wrote."""
    body = s.scopes.get(scope)
    if body is None:
        return NOTHING
    return s.cells.read_versions(s.cells.variable(scope, name), body.exit_versions.get(name, ()))


def read_enclosing(s: Solver, scope: str, name: str) -> Values:
    """A closure's read of an enclosing function's variable: any of its values (the closure may run at any time)."""
    return s.cells.read(s.cells.variable(scope, name))


# -- attributes and container slots ---------------------------------------------------------------------------------


def write_attribute(s: Solver, cls: str, name: str, values: Values, on_class: bool = False) -> None:
    """`name` set on an instance of `cls` or on the class itself (`on_class`), from outside its body. What is set on
    the class is also kept apart (cells.ON_CLASS): a function there is a method of the instances, bound when read on
    one, and a function set on an instance (`self.fn = kernel`) is not (classes.class_attr)."""
    ctx = s.ctx
    writer = (ctx.scope, ctx.top, False)
    s.cells.write(s.cells.attribute(cls, name), writer, values)
    if on_class:
        s.cells.write(s.cells.attribute(cls, ON_CLASS + name), writer, values)


def write_slot(s: Solver, alloc: str, key: object, values: Values, strong: bool = False) -> None:
    """An element of container `alloc` (`key`: a constant index or key, "*" for any); `strong`: the write replaces
    what this scope wrote there before (an unconditional `d["k"] = v`)."""
    cells = s.cells
    cell = cells.slot(alloc, key)
    if cell.writers is None and values:
        s.slot_keys.setdefault(alloc, []).append(key)
        cells.mark(cells.topic("slots", alloc))
    note_holder(s, alloc, values)
    ctx = s.ctx
    cells.write(cell, (ctx.scope, ctx.top, strong), values, (ctx.scope, ctx.top) if strong else None)


def read_slot(s: Solver, alloc: str, key: object, flow: bool = True) -> Values:
    """An element of container `alloc` as the statement being evaluated sees it (`flow`: a strong write earlier in
    its scope hides that scope's earlier writes), or every value it ever held (not `flow`)."""
    cell = s.cells.slot(alloc, key)
    if not flow:
        return s.cells.read(cell)
    return s.cells.read_heap(cell, s.ctx.scope, s.ctx.top)


def slot_keys(s: Solver, alloc: str) -> list[object]:
    """The keys of `alloc`'s slots written so far (the statement depends on new ones)."""
    s.cells.watch(s.cells.topic("slots", alloc))
    return s.slot_keys.get(alloc, [])


def elements(s: Solver, alloc: str) -> Values:
    """Every value of every slot of `alloc` (a dict's values, not its keys)."""
    out: Values = {}
    for key in slot_keys(s, alloc):
        out.update(read_slot(s, alloc, key, flow=False))
    return out


def keys(s: Solver, alloc: str) -> Values:
    """The keys of dict `alloc`, what iterating it gives: the constants it was written under. A key that is no
    constant (`{cls: f}`, `d[layer] = x`) is not kept: iterating such a dict gives none of it, never its values."""
    return {constant(k): None for k in slot_keys(s, alloc) if k != "*" and isinstance(k, (str, int))}


# -- returns and yields ---------------------------------------------------------------------------------------------


def write_return(s: Solver, fid: str, values: Values) -> None:
    s.cells.write(s.cells.returned(fid), None, values)


def returns(s: Solver, fid: str) -> Values:
    return s.cells.read(s.cells.returned(fid))


def write_yield(s: Solver, fid: str, values: Values) -> None:
    s.cells.write(s.cells.yielded(fid), None, values)


def yields(s: Solver, fid: str) -> Values:
    return s.cells.read(s.cells.yielded(fid))


def note_holder(s: Solver, alloc: str, values: Values) -> None:
    """On every write of a container slot: remember the containers a parameter result is put in."""
    for v in values:
        if v.kind == PARAM_RESULT:
            holders = s.pr_holders.setdefault(v.name, set())
            if alloc not in holders:
                holders.add(alloc)
                s.cells.mark(s.cells.topic("holders", v.name))


def copy_slots(s: Solver, values: Values, alloc: str) -> None:
    """Each slot of the containers among `values` written to the same slot of `alloc` (`d.update(other)`). A slot
    whose values are the very object this statement copied last time is not written again (a cell's values are
    replaced, never changed: nothing new there), which spares re-checking a large slot on every run."""
    copied = s.copied
    ctx = s.ctx
    for v in values:
        if v.kind == OBJECT:
            for key in list(slot_keys(s, v.name)):
                got = read_slot(s, v.name, key)
                memo = (v.name, key, alloc, ctx.scope, ctx.top)
                if copied.get(memo) is got:
                    continue
                copied[memo] = got
                write_slot(s, alloc, key, got, strong=ctx.strong and key != "*")
