"""A small SymbolIndex over a folder of Python files (modules, classes, functions, methods), parsed lazily: the
test double of atlas.graph's Index for the resolver and check tests."""

from __future__ import annotations

import ast
from pathlib import Path

from atlas.model import Pin, Span, Symbol, SymbolKind


class FolderIndex:
    def __init__(self, root: Path, pin: Pin, package_root: str = ""):
        self.root, self.pin, self.package_root = Path(root), pin, package_root
        self.symbols: dict[str, Symbol] = {}
        self._loaded: set[str] = set()

    def source(self, path: str) -> str:
        return (self.root / path).read_text(encoding="utf-8")

    def get(self, id: str) -> Symbol | None:
        parts = id.split(".")
        for i in range(len(parts), 0, -1):
            if self._load(".".join(parts[:i])):
                break
        return self.symbols.get(id)

    def find(self, suffix: str) -> list[str]:
        base = self.root / self.package_root
        for path in base.rglob("*.py"):
            rel = path.relative_to(base).with_suffix("").parts
            self._load(".".join(rel[:-1] if rel[-1] == "__init__" else rel))
        return sorted(k for k in self.symbols if k == suffix or k.endswith("." + suffix))

    def _load(self, module: str) -> bool:
        if module in self._loaded:
            return True
        base = self.root / self.package_root / Path(*module.split("."))
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            if path.is_file():
                break
        else:
            return False
        self._loaded.add(module)
        rel = path.relative_to(self.root).as_posix()
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        self.symbols[module] = Symbol(module, SymbolKind.MODULE, Span(rel, 1, max(1, text.count("\n"))))
        self._walk(tree.body, module, rel, in_class=False)
        return True

    def _walk(self, body, prefix: str, rel: str, in_class: bool) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                kind = (
                    SymbolKind.CLASS
                    if isinstance(node, ast.ClassDef)
                    else SymbolKind.METHOD
                    if in_class
                    else SymbolKind.FUNCTION
                )
                sid = f"{prefix}.{node.name}"
                bases = tuple(ast.unparse(b) for b in node.bases) if isinstance(node, ast.ClassDef) else ()
                self.symbols[sid] = Symbol(sid, kind, Span(rel, node.lineno, node.end_lineno), bases=bases)
                if isinstance(node, ast.ClassDef):
                    self._walk(node.body, sid, rel, in_class=True)


def default_pin_index(project, framework: str) -> FolderIndex:
    """A FolderIndex over `framework`'s synced default-pin checkout; skips the test, saying why, when it is not
    synced here."""
    import pytest

    from atlas.env import settings
    from atlas.sources import load_all, locate

    s = settings(root=str(project))
    (manifest,) = load_all(s.root, [framework])
    try:
        checkout = locate(manifest, "default", s)
    except Exception as exc:  # noqa: BLE001 - any failure to find the checkout means: not synced here
        pytest.skip(
            f"{framework} default pin not synced ({exc}); export ATLAS_MIRROR=/work/shared/sources, "
            f"or run `atlas sync {framework}`"
        )
    return FolderIndex(checkout.path, checkout.pin, manifest.package_root)
