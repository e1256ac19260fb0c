"""Where an old symbol's code may have gone that it still calls at NEW: the functions a symbol calls by a plain or
`self.` name (the helper rule of atlas.diff.suggest), and the methods of other objects the call graph resolves
by type (`self.allocator.check_decode_capacity(...)`: the typed-helper rule), each with how the caller's names
read inside it (atlas.diff.rebase). Pure, over NEW's symbol index and, when built, its call graph."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from atlas.diff.rebase import Rewrite, bindings, rebase
from atlas.diff.variants import COMMON
from atlas.model import Provenance, SymbolKind

_CALL = re.compile(r"(?:self\.|cls\.)?([A-Za-z_][A-Za-z0-9_]*)\s*\(")
FUNCTIONS = (SymbolKind.FUNCTION, SymbolKind.METHOD)


@dataclass(frozen=True, slots=True)
class Helper:
    """A function of NEW that the old symbol's code calls, directly or through other helpers."""

    symbol: str
    steps: tuple[Rewrite, ...] = ()  # one per call on the way, the caller's names -> the callee's

    def read(self, pattern: str) -> str:
        """The pattern as the helper's own code would write it (`self.allocator.size()` -> `self.size()`)."""
        for step in self.steps:
            pattern = rebase(pattern, step)
        return pattern


class Callees:
    """The helpers of NEW's symbols; `finder` gives NEW's index (`.new`), source lines and syntax tables."""

    def __init__(self, finder, graph=None):
        self.finder, self.graph = finder, graph
        self._by_name: dict[str, list[str]] | None = None

    def plain(self, callers: list[Helper], seen: set[str]) -> list[Helper]:
        """Functions `callers` call by a plain or self./cls. name: methods of the same class first, then functions
        of the same module, then an imported function (the one of that name in the tree)."""
        new, out = self.finder.new, []
        for caller in callers:
            s = new.get(caller.symbol)
            if s is None or s.span is None:
                continue
            body = "\n".join(self.finder.lines(new, s.span.path)[s.span.start : s.span.end])
            owner, module = caller.symbol.rsplit(".", 1)[0], caller.symbol.rsplit(".", 2)[0]
            for name in dict.fromkeys(_CALL.findall(body)):
                local = [c for c in (f"{owner}.{name}", f"{module}.{name}") if new.get(c) is not None]
                if not local and name not in COMMON:
                    found = [c for c in self.named(name) if new.get(c).kind is SymbolKind.FUNCTION]
                    local = found if len(found) == 1 else []
                for callee in local:
                    if callee not in seen:
                        seen.add(callee)
                        out.append(self._helper(caller, callee))
        return out

    def typed(self, callers: list[Helper], seen: set[str]) -> list[Helper]:
        """Functions and methods the call graph says `callers` call through a typed attribute or variable
        (provenance type-inferred; a dispatch to every override is left out)."""
        if self.graph is None:
            return []
        out = []
        for caller in callers:
            for _, _, callee, attrs in self.graph.callees(caller.symbol, 1):
                s = self.finder.new.get(callee)
                if (
                    callee in seen
                    or attrs.get("provenance") != Provenance.TYPE_INFERRED.value
                    or s is None
                    or s.kind not in FUNCTIONS
                    or s.span is None
                    or "<" in callee
                ):
                    continue
                seen.add(callee)
                out.append(self._helper(caller, callee, attrs.get("line", 0)))
        return out

    def _helper(self, caller: Helper, callee: str, line: int = 0) -> Helper:
        """`callee` as a helper reached from `caller`, with how the caller's names read inside it at the call."""
        name = callee.rsplit(".", 1)[-1]
        func = self._definition(callee)
        calls = [
            c
            for c in self._calls(caller.symbol)
            if _callee_name(c) == name and (not line or c.lineno <= line <= c.end_lineno)
        ]
        step = bindings(calls[0], func) if calls and func is not None else ()
        return Helper(callee, (*caller.steps, step) if step else caller.steps)

    def _calls(self, sid: str) -> list[ast.Call]:
        table, span = self.finder.table(sid), self.finder.new.get(sid).span
        return table.within(ast.Call, span.start, span.end) if table is not None else []

    def _definition(self, sid: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        table, span = self.finder.table(sid), self.finder.new.get(sid).span
        if table is None:
            return None
        name = sid.rsplit(".", 1)[-1]
        defs = [
            d
            for kind in (ast.FunctionDef, ast.AsyncFunctionDef)
            for d in table.within(kind, span.start, span.end)
            if d.name == name
        ]
        return min(defs, key=lambda d: d.lineno) if defs else None

    def named(self, name: str) -> list[str]:
        """The functions, methods and classes of NEW called `name`."""
        if self._by_name is None:
            self._by_name = {}
            for sid, sym in self.finder.new.symbols.items():
                if sym.kind in (*FUNCTIONS, SymbolKind.CLASS):
                    self._by_name.setdefault(sid.rsplit(".", 1)[-1], []).append(sid)
        return self._by_name.get(name, [])


def _callee_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
