"""The two trees `atlas diff` compares, read for the suggestion rules (atlas.diff.suggest): source lines, each
symbol's syntax nodes (parsed once), the window of lines around a statement, where an old symbol is at NEW and back,
and the matches of a pattern in some symbols or anywhere in NEW. Pure: over two symbol indexes (anything with
`.symbols`, `.get`, `.source`) and the symbol changes."""

from __future__ import annotations

import ast

from atlas.annotate.pattern import NodeTable, compile_pattern, find
from atlas.annotate.resolve import Resolver
from atlas.diff.ranking import Window, window
from atlas.diff.variants import COMMON, WORD
from atlas.model import Change, ChangeKind, SymbolKind

CODE = (SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.CLASS)


class Trees:
    """OLD and NEW with the symbol changes between them; parses each symbol of either once."""

    def __init__(self, old, new, changes: list[Change], same_paths: set[str] | frozenset = frozenset()):
        self.old, self.new = old, new
        self.same_paths = same_paths  # files equal at both pins: code that moved did not move into them
        self.went: dict[str, list[str]] = {}
        for c in changes:
            if c.kind in (ChangeKind.RENAMED, ChangeKind.MOVED, ChangeKind.SPLIT) and c.new_symbol:
                self.went[c.symbol] = c.new_symbol.split(", ")
        self._resolver, self._old_resolver = Resolver(new), Resolver(old)
        self._lines: dict[tuple[int, str], list[str]] = {}
        self._windows: dict[tuple, Window] = {}
        self._by_path: dict[str, list[tuple[int, int, str]]] | None = None
        self._files: list[str] | None = None

    # -- sources ------------------------------------------------------------------------------------------------
    def lines(self, side, path: str) -> list[str]:
        key = (id(side), path)
        if key not in self._lines:
            self._lines[key] = side.source(path).splitlines()
        return self._lines[key]

    def table(self, sid: str, side=None) -> NodeTable | None:
        """The nodes of one symbol of NEW (or of `side`; only its lines are parsed: big files stay cheap)."""
        side = self.new if side is None else side
        span = side.get(sid).span
        try:
            return (self._resolver if side is self.new else self._old_resolver).table(span)
        except (SyntaxError, ValueError):
            return None

    def enclosing(self, path: str, line: int) -> str:
        """The innermost function, method or class of NEW holding `line` of `path` (lambdas left out)."""
        if self._by_path is None:
            self._by_path = {}
            for sid, s in self.new.symbols.items():
                if s.kind in CODE and s.span and "<" not in sid:
                    self._by_path.setdefault(s.span.path, []).append((s.span.start, s.span.end, sid))
        inside = [(end - start, sid) for start, end, sid in self._by_path.get(path, ()) if start <= line <= end]
        return min(inside)[1] if inside else ""

    def context(self, side, path: str, node: ast.AST) -> Window:
        """The lines of `node` in `path` of `side` and the lines around them."""
        key = (id(side), path, node.lineno, node.end_lineno)
        if key not in self._windows:
            self._windows[key] = window(self.lines(side, path), node.lineno, node.end_lineno)
        return self._windows[key]

    # -- where to look ------------------------------------------------------------------------------------------
    def targets(self, symbol: str) -> list[str]:
        """Where `symbol` is at NEW: itself, or what the symbol changes say it became."""
        if self.new.get(symbol) is not None:
            return [symbol]
        return [s for s in self.went.get(symbol, []) if self.new.get(s) is not None]

    def origins(self, symbol: str) -> list[str]:
        """What NEW's `symbol` was at OLD: itself, and the symbols the changes say became it."""
        out = [symbol] if self.old.get(symbol) is not None else []
        return out + [old for old, went in self.went.items() if symbol in went and self.old.get(old) is not None]

    def hits_in(self, symbols: list[str], pattern: str) -> list[tuple[str, ast.AST]]:
        compiled = compile_pattern(pattern)
        out = []
        for sid in symbols:
            span = self.new.get(sid).span
            table = self.table(sid) if span else None
            if table is not None:
                out += [(sid, n) for n in find(compiled, table, span.start, span.end)]
        return out

    def hits_anywhere(self, pattern: str) -> list[tuple[str, ast.AST]]:
        """Matches of the pattern in every file of NEW that holds all of its names (a cheap text filter first)."""
        words = set(WORD.findall(pattern)) - COMMON
        if not words:
            return []
        if self._files is None:
            self._files = sorted(
                {
                    s.span.path
                    for s in self.new.symbols.values()
                    if s.kind is SymbolKind.MODULE and s.span and s.span.path.endswith(".py")
                }
            )
        compiled = compile_pattern(pattern)
        longest = max(words, key=len)
        out = []
        for path in self._files:
            if path in self.same_paths:
                continue
            text = "\n".join(self.lines(self.new, path))
            if not all(w in text for w in words) or not _near(text, longest, words):
                continue
            lines = self.lines(self.new, path)
            holders = {self.enclosing(path, i + 1) for i, line in enumerate(lines) if longest in line}
            holders.discard("")
            for holder in sorted(holders):  # parse only the symbols that hold the pattern's rarest name
                span = self.new.get(holder).span
                table = self.table(holder)
                for node in find(compiled, table, span.start, span.end) if table is not None else ():
                    out.append((self.enclosing(path, node.lineno) or holder, node))
        return out


def _near(text: str, anchor: str, words: set[str], reach: int = 600) -> bool:
    """Whether every word occurs within `reach` characters of one occurrence of `anchor` (a statement's names sit
    close together; files that merely mention them all are not parsed)."""
    start = text.find(anchor)
    while start >= 0:
        window = text[max(0, start - reach) : start + reach]
        if all(w in window for w in words):
            return True
        start = text.find(anchor, start + 1)
    return False
