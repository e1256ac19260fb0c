"""Where a Python line sits in the Python index: the innermost function or method whose span holds it (else the
module), and what a bare name in a module refers to."""

from __future__ import annotations

import bisect

from atlas.model import Symbol, SymbolKind

_CALLABLE = (SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.TRITON_KERNEL)


def module_id(path: str, package_root: str) -> str:
    """`python/sglang/srt/x.py` -> `sglang.srt.x` (package_root "python"); `__init__.py` names its package."""
    if package_root and path.startswith(package_root.rstrip("/") + "/"):
        path = path[len(package_root.rstrip("/")) + 1:]
    path = path[:-3] if path.endswith(".py") else path
    parts = path.split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


class Scopes:
    def __init__(self, symbols: dict[str, Symbol], package_root: str) -> None:
        self.symbols = symbols
        self.package_root = package_root
        by_path: dict[str, list[tuple[int, int, str]]] = {}
        for symbol in symbols.values():
            if symbol.kind in _CALLABLE and symbol.span is not None:
                by_path.setdefault(symbol.span.path, []).append((symbol.span.start, symbol.span.end, symbol.id))
        self._spans = {path: sorted(spans) for path, spans in by_path.items()}
        self._starts = {path: [s[0] for s in spans] for path, spans in self._spans.items()}

    def module_of(self, path: str) -> str:
        return module_id(path, self.package_root)

    def enclosing(self, path: str, line: int) -> str:
        """The innermost function/method around `line` of `path`; the module id at module level."""
        spans = self._spans.get(path)
        best = None
        if spans:
            for i in range(bisect.bisect_right(self._starts[path], line) - 1, -1, -1):
                start, end, sid = spans[i]
                if start <= line <= end and (best is None or start >= best[0]):
                    best = (start, sid)
                    break  # sorted by start: the latest start holding the line is the innermost
        return best[1] if best else self.module_of(path)

    def resolve_name(self, name: str, module: str, imports: dict) -> str | None:
        """A bare (or dotted) name used in `module`: defined there, or imported with `from x import name`."""
        if not name or not name.replace(".", "").replace("_", "").isalnum():
            return None
        head, _, rest = name.partition(".")
        candidates = [f"{module}.{name}"]
        if head in imports:
            candidates.append(imports[head] + (f".{rest}" if rest else ""))
        for candidate in candidates:
            if candidate in self.symbols:
                return candidate
        return None if self.symbols else candidates[-1]

    def functions_in(self, path: str) -> list[tuple[int, int, str]]:
        return self._spans.get(path, [])
