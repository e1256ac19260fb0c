"""The state of the walk over one parsed file, shared by the walker's parts (expressions, statements, imports): the
file, the symbols and scopes found so far, the scope and the block being filled. The parts are module functions
taking this state first, as mypyc's own IR builder is written; atlas.parse.python.extract runs them."""

from __future__ import annotations

import sys
from typing import Any, Final

from atlas.model import SymbolKind
from atlas.parse.python.ir import Scope, Stmt

_ATTRIBUTE: Final = SymbolKind.ATTRIBUTE.value


class FileWalk:
    """One file being walked. `block` is the statement list being filled (a scope's body, or a branch or loop body
    inside it); `symbols` holds rows as atlas.parse.python.codec packs them (a parse worker sends rows; extract makes
    Symbols for callers in-process)."""

    def __init__(self, source: bytes, path: str, module: str, is_package: bool, scope: Scope):
        self.src = source
        self.ascii = source.isascii()
        self.chars = source.decode("latin-1")
        self.path = path
        self.module = sys.intern(module)
        self.is_package = is_package
        self.symbols: list[tuple] = []
        self.scopes: list[Scope] = [scope]
        self.scope = scope
        self.block: list[Stmt] = scope.body
        self.seen_attrs: set[str] = set()
        self.defined: set[str] = set()  # ids of def/class symbols: an assignment of the same name adds no attribute
        self.jit_calls: set[str] = set()  # functions made kernels by a call: `k = triton.jit(...)(fn)`
        self.lambda_counts: dict[str, int] = {}
        self.renames: dict[str, str] = {}  # inside a comprehension: its variables, under names of their own

    def text(self, node: Any) -> str:
        """The node's source text: a slice of the source decoded byte for byte (Latin-1, so byte offsets are
        string offsets), decoded again as UTF-8 only when the slice holds a non-ASCII byte."""
        text = self.chars[node.start_byte : node.end_byte]
        return text if self.ascii or text.isascii() else text.encode("latin-1").decode("utf-8", "replace")

    def name(self, node: Any) -> str:
        """The node's text interned: names and ids recur across files, and the resolver's keys compare faster when
        equal strings are one object (marshal keeps them interned on the way to the parent)."""
        return sys.intern(self.text(node))

    def add_symbol(
        self, sid: str, kind: SymbolKind, node: Any, signature: str = "", decorators: Any = (), bases: Any = ()
    ) -> None:
        if kind is not SymbolKind.ATTRIBUTE:
            self.defined.add(sid)
            if sid in self.seen_attrs:  # `name = other` earlier, then `def name`: the definition is the symbol
                self.symbols = [s for s in self.symbols if s[0] != sid or s[1] != _ATTRIBUTE]
        self.symbols.append(
            (
                sid,
                kind.value,
                node.start_point[0] + 1,
                node.end_point[0] + 1,
                signature,
                tuple(decorators),
                tuple(bases),
            )
        )

    def emit(self, stmt: Stmt) -> None:
        self.block.append(stmt)

    def bind(self, name: str) -> None:
        """`name` is bound in the current scope (local, unless declared global or nonlocal there)."""
        scope = self.scope
        if name not in scope.global_names and name not in scope.nonlocal_names:
            scope.local_names.add(name)
        elif name in scope.global_names:  # a module variable, bound from here
            self.scopes[0].local_names.add(name)

    def nested(self, fill: Any, *args: Any) -> tuple[Stmt, ...]:
        """The statements `fill(*args)` emits, as a block of their own (a branch or loop body)."""
        saved = self.block
        self.block = []
        fill(self, *args)
        block, self.block = self.block, saved
        return tuple(block)

    def enter(self, scope: Scope) -> tuple[Scope, list[Stmt]]:
        """Start filling `scope` (a def, class or lambda body); returns what `leave` restores."""
        saved = (self.scope, self.block)
        self.scopes.append(scope)
        self.scope = scope
        self.block = scope.body
        for p in scope.params:
            scope.local_names.add(p.name)
        return saved

    def leave(self, saved: tuple[Scope, list[Stmt]]) -> None:
        self.scope, self.block = saved

    def alloc(self, node: Any) -> str:
        """The allocation id of a container made by this node: module and byte offset."""
        return f"{self.module}:{node.start_byte}"
