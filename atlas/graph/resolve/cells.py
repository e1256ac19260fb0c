"""Cells of the call resolver: the values written to variables, attributes, container slots, parameters and
returns, each write keyed by (scope, statement line, unconditional?) so reads are flow-sensitive within a scope.

Most reads see the whole cell and take the union without looking at the writers, so a write that leaves the union
(and the unconditional writes) as they were, in a cell no read looked into, makes no reader stale. Keys that are not
cells (("B", class), ("stars", module), ...) get a cell that is never written, for its readers."""

from __future__ import annotations

from typing import Any, Final

from atlas.graph.resolve.state import State

_NOTHING: Final[frozenset] = frozenset()


class Cell:
    """One cell: `writers` maps (scope, line, strong) -> the values that write added (None until the first write);
    `union` is every value of the cell (replaced, never mutated, so a reader may keep it); `strong` lists the
    (scope, line) of its unconditional writes; `flow` says a read has looked at the writers one by one; `readers`
    are the plan indices of the statements that read it since it last changed."""

    __slots__ = ("writers", "union", "strong", "flow", "readers")

    def __init__(self, readers: set[int] | None) -> None:
        self.writers: dict[tuple, set] | None = None
        self.union: frozenset = _NOTHING
        self.strong: list[tuple[str, int]] | None = None
        self.flow = False
        self.readers = readers


class Cells(State):
    """The first part of Solver (atlas.graph.resolve.state): `read` (and `depend`, for keys that are not cells)
    registers the statement being evaluated as a reader of the key; `write` grows a cell and `mark` makes its
    readers stale (and forgets them: a statement registers again when it runs and reads the key again)."""

    cells: dict[Any, Cell]

    def depend(self, key: Any) -> None:
        self.watch(key)

    def watch(self, key: Any) -> Cell:
        """The cell of `key` (made when missing), the statement being evaluated registered as its reader: its
        `union` is what `read(key, local=False)` returns."""
        cell = self.cells.get(key)
        if cell is None:
            cell = self.cells[key] = Cell({self.reader})
        elif cell.readers is None:
            cell.readers = {self.reader}
        else:
            cell.readers.add(self.reader)
        return cell

    def write(self, key: tuple, values: Any, strong: bool = False) -> None:
        if not values:
            return
        ctx = self.ctx
        scope, idx = ctx[0], ctx[1]
        cell = self.cells.get(key)
        if cell is None:
            cell = self.cells[key] = Cell(None)
        writers = cell.writers
        kind: str = key[0]  # typed: mypyc compares str natively
        if writers is None:
            writers = cell.writers = {}
            if kind == "s":
                self.slot_keys.setdefault(key[1], []).append(key)
                self.mark(("slots", key[1]))
        if kind == "s":
            self.note_pr(key[1], values)
        w = (scope, idx, strong)
        have = writers.get(w)
        visible = cell.flow  # a flow-sensitive read of this cell sees each writer
        if have is None:
            writers[w] = set(values)
            if strong:
                if cell.strong is None:
                    cell.strong = []
                cell.strong.append((scope, idx))
                visible = True
        elif not values <= have:
            have.update(values)
        else:
            return
        if not values <= cell.union:
            cell.union = cell.union | values
            visible = True
        self.changed = True
        if visible:
            self.mark(key, cell)
        else:  # the union is what every read so far saw, and it is the same: no reader needs to run again
            self.num_changes += 1

    def mark(self, key: Any, cell: Cell | None = None) -> None:
        self.num_changes += 1
        if cell is None:
            cell = self.cells.get(key)
            if cell is None:
                return
        readers = cell.readers
        if readers:
            cell.readers = None
            stale = self.stale
            for i in readers:
                stale[i] = 1

    def read(self, key: tuple, local: bool = True) -> Any:
        """The values of a cell as seen from the current statement: after an unconditional write earlier in the
        same scope, only that write and what follows it up to the statement (and, but for a function's local
        variables, what other scopes wrote); otherwise every value."""
        cell = self.cells.get(key)
        if cell is None:
            self.cells[key] = Cell({self.reader})
            return _NOTHING
        readers = cell.readers
        if readers is None:
            cell.readers = {self.reader}
        else:
            readers.add(self.reader)
        strong = cell.strong
        writers = cell.writers
        if not local or strong is None or writers is None or len(writers) == 1:
            return cell.union
        scope, idx = self.ctx[0], self.ctx[1]
        last = -1
        for s, i in strong:
            if s == scope and last < i < idx:
                last = i
        if last < 0:
            return cell.union
        cell.flow = True
        out: set = set()
        keep_others = key[0] != "v" or self.scopes[key[1]].kind == "module"
        for (s, i, _), vals in writers.items():
            if s == scope:
                if last <= i <= idx:
                    out |= vals
            elif keep_others:
                out |= vals
        return out
