"""The symbol index of one pinned tree: every module, class, function, method and attribute, by dotted id."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from atlas.errors import SymbolNotFound
from atlas.model import Pin, Symbol


@dataclass(slots=True)
class Index:
    """What `atlas.graph.load_index` returns. `symbols` maps id -> Symbol; `root` is the checkout folder."""

    pin: Pin
    root: Path
    symbols: dict[str, Symbol]
    _by_name: dict[str, list[str]] = field(default_factory=dict, repr=False)

    def get(self, sid: str) -> Symbol | None:
        return self.symbols.get(sid)

    def find(self, name: str) -> list[str]:
        """Ids equal to `name` or ending with `.name` (a unique suffix such as "Scheduler.schedule"), sorted."""
        if name in self.symbols:
            return [name]
        if not self._by_name:
            for sid in self.symbols:
                self._by_name.setdefault(sid.rsplit(".", 1)[-1], []).append(sid)
        last = name.rsplit(".", 1)[-1]
        return sorted(s for s in self._by_name.get(last, ()) if s.endswith("." + name))

    def resolve(self, name: str) -> str:
        """The one id `name` names; SymbolNotFound lists the candidates when it names none or several."""
        found = self.find(name)
        if len(found) == 1:
            return found[0]
        if not found:
            raise SymbolNotFound(f"no symbol {name!r} in {self.pin.framework} {self.pin.ref}; give a dotted suffix "
                                 "such as Scheduler.schedule, or check the spelling")
        shown = "\n  ".join(found[:20]) + ("\n  ..." if len(found) > 20 else "")
        raise SymbolNotFound(f"{name!r} is ambiguous in {self.pin.framework} {self.pin.ref} ({len(found)} "
                             f"candidates); name one of them:\n  {shown}")

    def source(self, path: str) -> str:
        """The text of a repository-relative file of the checkout."""
        return (self.root / path).read_text(encoding="utf-8", errors="replace")
