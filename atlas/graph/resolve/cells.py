"""Cells of the call resolver: the values written to variables, attributes, container slots, parameters and
returns, each write keyed by (scope, statement line, unconditional?) so reads are flow-sensitive within a scope."""

from __future__ import annotations

_NOTHING: frozenset = frozenset()


class Cells:
    """Mixin of Solver: `write` grows a cell and stamps it with the clock (one tick per change);
    `read` records the dependency with the clock of its first read in the current run of the scope."""

    def depend(self, key) -> None:
        if key not in self.deps:
            self.deps[key] = self.clock


    def write(self, key: tuple, values, strong: bool = False) -> None:
        if not values:
            return
        scope, idx = self.ctx[0], self.ctx[1]
        cell = self.cells.get(key)
        if cell is None:
            cell = self.cells[key] = {}
            if key[0] == "s":
                self.slot_keys.setdefault(key[1], []).append(key)
                self.mark(("slots", key[1]))
        if key[0] == "s":
            self.note_pr(key[1], values)
        w = (scope, idx, strong)
        have = cell.get(w)
        if have is None:
            cell[w] = set(values)
            self.changed = True
            self.mark(key)
        elif not have.issuperset(values):
            have.update(values)
            self.changed = True
            self.mark(key)

    def mark(self, key) -> None:
        self.clock += 1
        self.dirty[key] = self.clock
        self.num_changes += 1

    def read(self, key: tuple, local: bool = True):
        """The values of a cell as seen from the current statement."""
        if key not in self.deps:
            self.deps[key] = self.clock
        cell = self.cells.get(key)
        if not cell:
            return _NOTHING
        if len(cell) == 1:
            for vals in cell.values():
                return vals
        scope, idx = self.ctx[0], self.ctx[1]
        last = -1
        if local:
            for (s, i, strong) in cell:
                if strong and s == scope and last < i < idx:
                    last = i
        out = set()
        keep_others = last < 0 or key[0] != "v" or self.scopes[key[1]].kind == "module"
        for (s, i, _), vals in cell.items():
            if s == scope:
                if last < 0 or last <= i <= idx:
                    out |= vals
            elif keep_others:
                out |= vals
        return out
