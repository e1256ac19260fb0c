"""One Python file -> ModuleFacts: tree-sitter parse, one walk over the tree that records symbols (with exact spans
and signatures) and the structured IR of every scope (atlas.parse.python.statements), then the flow pass
(atlas.parse.python.flow) that versions local names and flattens each scope for the resolver."""

from __future__ import annotations

from typing import Final

import tree_sitter as ts

from atlas.model import SymbolKind
from atlas.parse.python import flow
from atlas.parse.python.codec import pack_scopes, unpack
from atlas.parse.python.grammar import parser
from atlas.parse.python.ir import ModuleFacts, Scope
from atlas.parse.python.statements import block
from atlas.parse.python.walk import FileWalk

_MODULE: Final = SymbolKind.MODULE.value
_FUNCTION: Final = SymbolKind.FUNCTION.value
_TRITON_KERNEL: Final = SymbolKind.TRITON_KERNEL.value


def extract(
    source: bytes,
    path: str,
    module: str,
    is_package: bool,
    ts_parser: ts.Parser | None = None,
    tree: ts.Tree | None = None,
) -> ModuleFacts:
    """Parse `source` (the file at repository-relative `path`, importable as `module`) into facts; `tree`: its
    tree-sitter tree when the caller parsed it already."""
    if tree is None:
        tree = (ts_parser or parser()).parse(source)
    return unpack(extract_packed(source, path, module, is_package, tree))


def extract_packed(source: bytes, path: str, module: str, is_package: bool, tree: ts.Tree) -> tuple:
    """`codec.pack(extract(...))` without the ModuleFacts and Symbol objects in between (what a parse worker
    sends)."""
    root = tree.root_node
    end = root.end_point[0] + 1
    w = FileWalk(source, path, module, is_package, Scope(module, "module", "", module, 1, end))
    w.symbols.append((w.module, _MODULE, 1, end, "", (), ()))
    block(w, root)
    scopes = {s.id: s for s in w.scopes}
    for scope in w.scopes:
        flow.run(scope, scopes)
    symbols = tuple(
        (s[0], _TRITON_KERNEL) + s[2:] if s[0] in w.jit_calls and s[1] == _FUNCTION else s for s in w.symbols
    )  # a function jit'd by a call (`triton.jit(fn)`) is a Triton kernel
    return (module, path, is_package, source.count(b"\n") + 1, symbols, pack_scopes(w.scopes))
