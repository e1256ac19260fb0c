"""Where a Python line sits in the Python index: the innermost function or method whose span holds it (else the
module), and what a bare name in a module refers to."""

from __future__ import annotations

from atlas.model import Spans, Symbol, SymbolKind
from atlas.parse.python.modules import module_name

_CALLABLE = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.TRITON_KERNEL})


def module_id(path: str, package_root: str) -> str:
    """`python/sglang/srt/x.py` -> `sglang.srt.x` (package_root "python"); `__init__.py` names its package."""
    return module_name(path, package_root.rstrip("/"))[0]


class Scopes:
    def __init__(self, symbols: dict[str, Symbol], package_root: str) -> None:
        self.symbols = symbols
        self.package_root = package_root
        self._spans = Spans(symbols.values(), _CALLABLE)

    def module_of(self, path: str) -> str:
        return module_id(path, self.package_root)

    def enclosing(self, path: str, line: int) -> str:
        """The innermost function/method around `line` of `path`; the module id at module level."""
        return self._spans.innermost(path, line) or self.module_of(path)

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
