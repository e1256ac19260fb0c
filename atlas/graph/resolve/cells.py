"""Cells of the call resolver: the values written to variables, attributes, container slots, parameters and
returns, each write keyed by (scope, statement line, unconditional?) so reads are flow-sensitive within a scope.

A cell is a list [writers, union, strong, flow, readers]: writers maps (scope, line, strong) -> the values that
write added (None until the first write); union is every value of the cell (replaced, never mutated, so a reader
may keep it); strong lists the (scope, line) of its unconditional writes; flow says a read has looked at the writers
one by one; readers are the plan indices of the statements that read it since it last changed. Most reads see the
whole cell and take the union without looking at the writers, so a write that leaves the union (and the
unconditional writes) as they were, in a cell no read looked into, makes no reader stale. Keys that are not cells
(("B", class), ("stars", module), ...) get a cell that is never written, for its readers."""

from __future__ import annotations

from typing import Any

from atlas.graph.resolve.state import State

_NOTHING: frozenset = frozenset()


class Cells(State):
    """The first part of Solver (atlas.graph.resolve.state): `read` (and `depend`, for keys that are not cells) registers the statement being evaluated
    as a reader of the key; `write` grows a cell and `mark` makes its readers stale (and forgets them: a statement
    registers again when it runs and reads the key again)."""

    def depend(self, key: Any) -> None:
        cell = self.cells.get(key)
        if cell is None:
            self.cells[key] = [None, _NOTHING, None, False, {self.reader}]
        elif cell[4] is None:
            cell[4] = {self.reader}
        else:
            cell[4].add(self.reader)

    def is_written(self, key: Any) -> bool:
        cell = self.cells.get(key)
        return cell is not None and cell[0] is not None

    def write(self, key: tuple, values: Any, strong: bool = False) -> None:
        if not values:
            return
        ctx = self.ctx
        scope, idx = ctx[0], ctx[1]
        cell = self.cells.get(key)
        if cell is None:
            cell = self.cells[key] = [None, _NOTHING, None, False, None]
        writers = cell[0]
        if writers is None:
            writers = cell[0] = {}
            if key[0] == "s":
                self.slot_keys.setdefault(key[1], []).append(key)
                self.mark(("slots", key[1]))
        if key[0] == "s":
            self.note_pr(key[1], values)
        w = (scope, idx, strong)
        have = writers.get(w)
        visible = cell[3]  # a flow-sensitive read of this cell sees each writer
        if have is None:
            writers[w] = set(values)
            if strong:
                if cell[2] is None:
                    cell[2] = []
                cell[2].append((scope, idx))
                visible = True
        elif not have.issuperset(values):
            have.update(values)
        else:
            return
        if not cell[1].issuperset(values):
            cell[1] = cell[1].union(values)
            visible = True
        self.changed = True
        if visible:
            self.mark(key, cell)
        else:  # the union is what every read so far saw, and it is the same: no reader needs to run again
            self.num_changes += 1

    def mark(self, key: Any, cell: list | None = None) -> None:
        self.num_changes += 1
        if cell is None:
            cell = self.cells.get(key)
            if cell is None:
                return
        readers = cell[4]
        if readers:
            cell[4] = None
            stale = self.stale
            for i in readers:
                stale[i] = 1

    def read(self, key: tuple, local: bool = True) -> Any:
        """The values of a cell as seen from the current statement: after an unconditional write earlier in the
        same scope, only that write and what follows it up to the statement (and, but for a function's local
        variables, what other scopes wrote); otherwise every value."""
        cell = self.cells.get(key)
        if cell is None:
            self.cells[key] = [None, _NOTHING, None, False, {self.reader}]
            return _NOTHING
        readers = cell[4]
        if readers is None:
            cell[4] = {self.reader}
        else:
            readers.add(self.reader)
        strong = cell[2]
        if not local or strong is None or len(cell[0]) == 1:
            return cell[1]
        scope, idx = self.ctx[0], self.ctx[1]
        last = -1
        for s, i in strong:
            if s == scope and last < i < idx:
                last = i
        if last < 0:
            return cell[1]
        cell[3] = True
        out = set()
        keep_others = key[0] != "v" or self.scopes[key[1]].kind == "module"
        for (s, i, _), vals in cell[0].items():
            if s == scope:
                if last <= i <= idx:
                    out |= vals
            elif keep_others:
                out |= vals
        return out
