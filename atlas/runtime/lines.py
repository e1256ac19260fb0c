"""Definition lines at the pin for hook entries without them: a parse of the pinned file with `ast` (the `def`
line, as the static graph records it, and the last line of the body)."""

from __future__ import annotations

import ast
from pathlib import Path

from atlas.errors import SymbolNotFound


def module_path(module: str, package_root: str) -> str:
    """'sglang.srt.x' -> 'python/sglang/srt/x.py' for package_root 'python'."""
    rel = module.replace(".", "/") + ".py"
    return f"{package_root}/{rel}" if package_root else rel


def find_def(tree: ast.Module, qualname: str) -> ast.AST | None:
    scope: list = tree.body
    node = None
    for part in qualname.split("."):
        node = next(
            (
                n
                for n in scope
                if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == part
            ),
            None,
        )
        if node is None:
            return None
        scope = node.body
    return node


def resolve(entries: list[dict], checkout: Path, package_root: str) -> list[dict]:
    """Entries with path, line and end_line filled from the checkout; raises SymbolNotFound naming what is missing
    unless the entry is optional (then it is dropped)."""
    trees: dict[str, ast.Module | None] = {}
    out = []
    for entry in entries:
        if entry.get("line"):
            out.append(entry)
            continue
        path = module_path(entry["module"], package_root)
        if path not in trees:
            file = checkout / path
            trees[path] = ast.parse(file.read_text(encoding="utf-8"), path) if file.is_file() else None
        node = find_def(trees[path], entry["qualname"]) if trees[path] else None
        if node is None:
            if entry.get("optional"):
                continue
            raise SymbolNotFound(
                f"hook {entry['symbol']} is not defined in {path} at {checkout}; update the hook "
                "list (atlas/runtime/defaults.py) or the annotation for this pin"
            )
        out.append({**entry, "path": path, "line": node.lineno, "end_line": node.end_lineno})
    return out
