"""The state of the walk over one parsed file, shared by the parts of the walker: expressions, statements and
definitions are classes in their own modules forming one chain of single inheritance ending in the walker of
atlas.parse.python.extract, so mypyc can compile them (scripts/compile.py; plain Python runs the same code).
A part may call a method a later part defines; those are declared here, so each module type-checks alone."""

from __future__ import annotations

import sys
from typing import Any, Final

from atlas.model import SymbolKind
from atlas.parse.python.facts import Scope


_ATTRIBUTE: Final = SymbolKind.ATTRIBUTE.value


class WalkerState:
    """The file, the symbols and scopes found so far, the scope being filled, the statement line, whether it runs
    unconditionally."""

    scope: Scope  # set by the walk's first step (the module scope)

    def __init__(self, source: bytes, path: str, module: str, is_package: bool):
        self.src = source
        self.ascii = source.isascii()
        self.chars = source.decode("latin-1")
        self.path = path
        self.module = sys.intern(module)
        self.is_package = is_package
        self.symbols: list[tuple] = []  # rows as atlas.parse.python.facts.pack writes them (no Symbol objects:
        # a parse worker sends rows, and extract makes Symbols for callers in-process)
        self.scopes: list[Scope] = []
        self.seen_attrs: set[str] = set()
        self.defined: set[str] = set()  # ids of def/class symbols: an assignment of the same name adds no attribute
        self.jit_calls: set[str] = set()  # functions made kernels by a call: `k = triton.jit(...)(fn)`
        self.lambda_counts: dict[str, int] = {}
        self.idx = 0
        self.strong = True

    # -- helpers ------------------------------------------------------------------------------------------------
    def text(self, node: Any) -> str:
        """The node's source text: a slice of the source decoded byte for byte (Latin-1, so byte offsets are
        string offsets), decoded again as UTF-8 only when the slice holds a non-ASCII byte."""
        text = self.chars[node.start_byte:node.end_byte]
        return text if self.ascii or text.isascii() else text.encode("latin-1").decode("utf-8", "replace")

    def name(self, node: Any) -> str:
        """The node's text interned: names and ids recur across files, and the resolver's keys compare faster when
        equal strings are one object (marshal keeps them interned on the way to the parent)."""
        return sys.intern(self.text(node))

    def add_symbol(self, sid: str, kind: SymbolKind, node: Any, signature: str = "", decorators: Any = (),
                   bases: Any = ()) -> None:
        if kind is not SymbolKind.ATTRIBUTE:
            self.defined.add(sid)
            if sid in self.seen_attrs:  # `name = other` earlier, then `def name`: the definition is the symbol
                self.symbols = [s for s in self.symbols if s[0] != sid or s[1] != _ATTRIBUTE]
        self.symbols.append((sid, kind.value, node.start_point[0] + 1, node.end_point[0] + 1, signature,
                             tuple(decorators), tuple(bases)))

    def emit(self, stmt: tuple) -> None:
        self.scope.statements.append(stmt)

    def bind(self, name: str) -> None:
        if name not in self.scope.global_names:
            self.scope.local_names.add(name)

    # -- defined by later parts -----------------------------------------------------------------------------------
    def yield_expr(self, node: Any) -> tuple:  # Statements
        raise NotImplementedError

    def parameters(self, node: Any) -> tuple:  # Definitions
        raise NotImplementedError

    def annotation(self, node: Any) -> tuple:  # Definitions
        raise NotImplementedError

    def block(self, node: Any, top: bool = True) -> None:  # the walker (atlas.parse.python.extract)
        raise NotImplementedError
