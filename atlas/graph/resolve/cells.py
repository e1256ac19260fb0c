"""Cells: the values written to variables, attributes, container slots and returns, and which statements read them.

A cell keeps its values per writer: a variable's per binding version (atlas.parse.python.flow; 0 for a parameter,
OUTSIDE for a write from another scope: `global`, `nonlocal`, `module.name = ...`), an attribute's or a slot's per
writing statement (scope, top-level line, unconditional?), so that a read sees only the writers that reach it.
Every read registers the statement being evaluated as a reader; a write that changes what a reader may have seen
marks it stale, and the solver runs it again. Topic cells hold no values: statements that depend on something else
(a class's bases, a module's star imports) read them, and `mark` makes those readers stale."""

from __future__ import annotations

from typing import Final, cast

from atlas.graph.resolve.limits import MAX_DATA_VALUES, MAX_VALUES
from atlas.graph.resolve.values import (
    BUILTIN_METHOD,
    CONSTANT,
    CONTAINER_METHOD,
    EXTERNAL,
    LIBRARY_RESULT,
    NOTHING,
    OBJECT,
    RAISED,
    Value,
    Values,
)

SEPARATOR: Final = "@"  # in a scope or allocation id, before the context of the clone it belongs to (contexts)
CALL_SITE: Final = "#"  # in an allocation id, before the call site a container was copied for (summaries)
DATA: Final = frozenset({OBJECT, CONTAINER_METHOD, EXTERNAL, LIBRARY_RESULT, CONSTANT, BUILTIN_METHOD, RAISED})
OUTSIDE: Final = -1  # the writer key of a variable's writes from other scopes
ON_CLASS: Final = "."  # before an attribute's name: the cell of what was set on the class itself (heap.write_attribute)
HeapWriter = tuple[str, int, bool]  # (scope, top-level line, unconditional?)


class Cell:
    """`writers`: writer key -> the values it wrote (None before the first write); `union`: all of them (replaced,
    never mutated, so a reader may keep it); `strong`: (scope, line) of the unconditional heap writes; `flow`: a read
    has looked at the writers one by one (so a new writer matters even when the union stays); `readers`: the
    statements (plan indices) that read it since it last changed; `num_data`: how many of the union are data
    (MAX_DATA_VALUES)."""

    def __init__(self) -> None:
        self.writers: dict[object, Values] | None = None
        self.union: Values = NOTHING
        self.num_data = 0
        self.strong: list[tuple[str, int]] | None = None
        self.flow = False
        self.readers: set[object] | None = None  # plan indices, boxed once per statement run (Cells.reader)
        self.sites: set[object] | None = None  # the allocation sites of its data, once it reaches the data bound


class Cells:
    """The cells, by what they hold; `reader` is the plan index of the statement being evaluated."""

    def __init__(self) -> None:
        self.variables: dict[tuple[str, str], Cell] = {}  # (scope, name)
        self.attributes: dict[tuple[str, str], Cell] = {}  # (class, attribute): set on instances or the class
        self.slots: dict[tuple[str, object], Cell] = {}  # (allocation, key): a container's element; key "*" any
        self.returns: dict[str, Cell] = {}  # function -> what it returns
        self.yields: dict[str, Cell] = {}  # generator function -> what it yields
        self.topics: dict[tuple[str, str], Cell] = {}  # (topic, name): dependencies without values
        self.reader: object = 0  # the int kept boxed: every read adds this one object, no new int per read
        self.stale = bytearray()
        self.changed = False
        self.num_changes = 0
        self.num_full = 0  # writes cut short because their cell was full (MAX_VALUES)

    # -- finding cells ----------------------------------------------------------------------------------------------
    def variable(self, scope: str, name: str) -> Cell:
        return _get(self.variables, (scope, name))

    def attribute(self, cls: str, name: str) -> Cell:
        return _get(self.attributes, (cls, name))

    def slot(self, alloc: str, key: object) -> Cell:
        return _get(self.slots, (alloc, key))

    def returned(self, fid: str) -> Cell:
        return _get(self.returns, fid)

    def yielded(self, fid: str) -> Cell:
        return _get(self.yields, fid)

    def topic(self, topic: str, name: str) -> Cell:
        return _get(self.topics, (topic, name))

    # -- reading ----------------------------------------------------------------------------------------------------
    def watch(self, cell: Cell) -> Cell:
        """Register the statement being evaluated as a reader of `cell`."""
        readers = cell.readers
        if readers is None:
            cell.readers = {self.reader}
        else:
            readers.add(self.reader)
        return cell

    def read(self, cell: Cell) -> Values:
        """Every value of the cell."""
        self.watch(cell)
        return cell.union

    def read_versions(self, cell: Cell, versions: tuple[int, ...]) -> Values:
        """A variable's values as a read that `versions` reach sees them (writes from other scopes included)."""
        self.watch(cell)
        writers = cell.writers
        if writers is None:
            return NOTHING
        out: Values = {}
        whole = True
        for key, values in writers.items():
            if key in versions or key == OUTSIDE:
                out.update(values)
            else:
                whole = False
        if whole:
            return cell.union
        cell.flow = True  # this read sees some writers only: a new writer matters to it even when the union stays
        return out

    def read_heap(self, cell: Cell, scope: str, top: int) -> Values:
        """An attribute's or a slot's values as the statement at top-level line `top` of `scope` sees them: after an
        unconditional write earlier in the same scope, only that write and the ones after it up to the statement
        (and every write of other scopes); otherwise every value."""
        self.watch(cell)
        strong = cell.strong
        writers = cell.writers
        if strong is None or writers is None or len(writers) == 1:
            return cell.union
        last = -1
        for s, i in strong:
            if s == scope and last < i < top:
                last = i
        if last < 0:
            return cell.union
        cell.flow = True
        out: Values = {}
        for key, values in writers.items():
            writer: HeapWriter = key  # type: ignore[assignment]  # a heap cell's writers are HeapWriters
            if writer[0] != scope or last <= writer[1] <= top:
                out.update(values)
        return out

    # -- writing ----------------------------------------------------------------------------------------------------
    def write(self, cell: Cell, writer: object, values: Values, strong: tuple[str, int] | None = None) -> None:
        """Add `values` to what `writer` wrote to `cell`; `strong`: (scope, line) when the write is an unconditional
        heap write. Marks the cell's readers stale when what they may see changed."""
        if not values:
            return
        writers = cell.writers
        have = writers.get(writer) if writers is not None else None
        if have is not None and _within(values, have):
            return
        if len(cell.union) + len(values) > MAX_DATA_VALUES:
            values = self._fit(cell, values)
            if not values:
                return
        if writers is None:
            writers = cell.writers = {}
        visible = cell.flow
        if have is None:
            writers[writer] = dict(values)
            if strong is not None:
                if cell.strong is None:
                    cell.strong = []
                cell.strong.append(strong)
                visible = True
        elif not _within(values, have):
            have.update(values)
        else:
            return
        if not _within(values, cell.union):
            union = cell.union
            cell.num_data += sum(1 for v in values if v.kind in DATA and v not in union)
            cell.union = union | values
            visible = True
        self.changed = True
        if visible:
            self.mark(cell)
        else:  # every read so far saw the union, and it is the same: no reader needs to run again
            self.num_changes += 1

    def _fit(self, cell: Cell, values: Values) -> Values:
        """Of `values`, those the cell holds already and the new ones that fit its bounds (MAX_VALUES, and
        MAX_DATA_VALUES allocation sites of data)."""
        union = cell.union
        data = cell.num_data
        code = len(union) - data
        sites = cell.sites
        if sites is None:
            sites = cell.sites = {site(v) for v in union if v.kind in DATA}
        kept: Values = {}
        left_out = False
        for v in values:
            if v in union:
                kept[v] = None
            elif v.kind in DATA:
                where = site(v)
                if data < MAX_VALUES and (where in sites or len(sites) < MAX_DATA_VALUES):
                    sites.add(where)
                    kept[v] = None
                    data += 1
                else:
                    left_out = True
            elif code < MAX_VALUES:
                kept[v] = None
                code += 1
            else:
                left_out = True
        if left_out:
            self.num_full += 1
        return kept

    def mark(self, cell: Cell) -> None:
        """The readers of `cell` are stale (and forgotten: a statement registers again when it reads again)."""
        self.num_changes += 1
        readers = cell.readers
        if readers:
            cell.readers = None
            stale = self.stale
            for i in readers:
                stale[cast(int, i)] = 1


def site(v: Value) -> object:
    """The allocation site a data value counts as: a container's (or its method's) name without the context of
    the clone that made it (`<site>@<context>`); a copy per call site, and any other value, is its own."""
    if v.kind == OBJECT or v.kind == CONTAINER_METHOD:
        name = v.name
        at = name.find(SEPARATOR)
        if at >= 0 and CALL_SITE not in name:
            return (v.kind, name[:at])
    return v


def _get(table: dict, key: object) -> Cell:
    cell = table.get(key)
    if cell is None:
        cell = table[key] = Cell()
    return cell


def _within(values: Values, have: Values) -> bool:
    for v in values:
        if v not in have:
            return False
    return True
