"""A minimal symbol table built with the standard library's ast, for table-driven tests of the pure diff core
(the real tables come from atlas.graph's Index; the diff core only needs `.symbols` and `.source`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from atlas.model import Span, Symbol, SymbolKind


@dataclass
class Table:
    files: dict[str, str]
    symbols: dict[str, Symbol] = field(default_factory=dict)

    def source(self, path: str) -> str:
        return self.files[path]


def table(files: dict[str, str]) -> Table:
    result = Table(files)
    for path, text in files.items():
        module = path.removesuffix(".py").replace("/", ".")
        _walk(ast.parse(text), module, path, result.symbols, in_class=False)
    return result


def _walk(node, prefix, path, out, in_class):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            sid = f"{prefix}.{child.name}"
            if isinstance(child, ast.ClassDef):
                kind, signature = SymbolKind.CLASS, ""
            else:
                kind = SymbolKind.METHOD if in_class else SymbolKind.FUNCTION
                signature = f"({ast.unparse(child.args)})"
            out[sid] = Symbol(sid, kind, Span(path, child.lineno, child.end_lineno), signature)
            _walk(child, sid, path, out, in_class=isinstance(child, ast.ClassDef))
