"""The symbol index of one pinned tree: every module, class, function, method and attribute, by dotted id."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from atlas.errors import SymbolNotFound
from atlas.model import Pin, Spans, Symbol, SymbolKind

_KIND = re.compile(r"^(op|ext|cpp|cuda|jit):(?!:)")
# What code runs in: a line's enclosing symbol is one of these (attributes are assignments inside them).
_SCOPES = frozenset(
    {SymbolKind.MODULE, SymbolKind.CLASS, SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.TRITON_KERNEL}
)


def _last(sid: str) -> str:
    """The last name of an id: after the last `::` (kernel ids), else after the last dot."""
    return sid.rsplit("::", 1)[-1] if "::" in sid else sid.rsplit(".", 1)[-1]


@dataclass(slots=True)
class Index:
    """What `atlas.graph.load_index` returns. `symbols` maps id -> Symbol; `root` is the checkout folder."""

    pin: Pin
    root: Path
    symbols: dict[str, Symbol]
    _by_name: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _spans: Spans | None = field(default=None, repr=False)

    def get(self, sid: str) -> Symbol | None:
        return self.symbols.get(sid)

    def find(self, name: str) -> list[str]:
        """Ids equal to `name` or ending with `.name` (a unique suffix such as "Scheduler.schedule"), sorted. Kernel
        ids (`cuda:csrc/x.cu::vllm::kern`, `op:_C::op`) match a suffix after `::` or `/` too, with or without their
        kind prefix: "kern", "vllm::kern", "cuda:kern", "cuda:x.cu::vllm::kern"."""
        if name in self.symbols:
            return [name]
        if not self._by_name:
            for sid in self.symbols:
                self._by_name.setdefault(_last(sid), []).append(sid)
        kind, _, rest = name.partition(":") if _KIND.match(name) else ("", "", name)
        return sorted(
            s
            for s in self._by_name.get(_last(rest), ())
            if (not kind or s.startswith(kind + ":")) and s.endswith(("." + rest, "::" + rest, "/" + rest, ":" + rest))
        )

    def resolve(self, name: str) -> str:
        """The one id `name` names; SymbolNotFound lists the candidates when it names none or several."""
        found = self.find(name)
        if len(found) == 1:
            return found[0]
        if not found:
            raise SymbolNotFound(
                f"no symbol {name!r} in {self.pin.framework} {self.pin.ref}; give a dotted suffix "
                "such as Scheduler.schedule, or check the spelling"
            )
        shown = "\n  ".join(found[:20]) + ("\n  ..." if len(found) > 20 else "")
        raise SymbolNotFound(
            f"{name!r} is ambiguous in {self.pin.framework} {self.pin.ref} ({len(found)} "
            f"candidates); name one of them:\n  {shown}"
        )

    def symbol_at(self, path: str, line: int) -> str | None:
        """The id of the innermost module, class or function of the repository-relative `path` whose lines (its
        decorators included) hold `line`; None when the index has no such file."""
        if self._spans is None:
            self._spans = Spans(self.symbols.values(), _SCOPES)
        return self._spans.innermost(path, line)

    def source(self, path: str) -> str:
        """The text of a repository-relative file of the checkout."""
        return (self.root / path).read_text(encoding="utf-8", errors="replace")
