"""What scripts/compile.py builds, and the guards that run the Python sources instead when a build is stale (a source
changed since) or when ATLAS_PURE=1: the modules compiled with mypyc (the Python parser's walker and the call
resolver), the walker in C (c/, the extension atlas.parse.python._walk) and the resolver in C++
(atlas/graph/resolve/cpp, the extension atlas.graph.resolve._solve), which give the same results faster. The .py
files stay the source of truth; this module itself is never compiled."""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

ATLAS = Path(__file__).resolve().parents[2]
MODULES = (
    "atlas.parse.python.facts", "atlas.parse.python.walker", "atlas.parse.python.expressions",
    "atlas.parse.python.statements", "atlas.parse.python.definitions", "atlas.parse.python.extract",
    "atlas.graph.resolve.state", "atlas.graph.resolve.cells", "atlas.graph.resolve.names",
    "atlas.graph.resolve.values", "atlas.graph.resolve.summaries", "atlas.graph.resolve.calls",
    "atlas.graph.resolve.bindings", "atlas.graph.resolve.dispatch", "atlas.graph.resolve.solver",
)
GROUP = "atlas.parse.python.native"  # the shared library of the compiled modules: native__mypyc.*.so here
GROUP_LIB = Path(__file__).with_name("native__mypyc")
STAMP = Path(__file__).with_name("compiled.stamp")  # the source hash the compiled modules were built from


def source_path(module: str) -> Path:
    return ATLAS.parent.joinpath(*module.split(".")).with_suffix(".py")


def source_hash() -> str:
    """A hash of the sources of MODULES (and of the Python version: an extension belongs to one)."""
    h = hashlib.sha1(f"{sys.implementation.cache_tag}\n".encode())
    for module in MODULES:
        h.update(module.encode() + b"\0" + source_path(module).read_bytes())
    return h.hexdigest()


def compiled_files() -> list[Path]:
    """The extension modules of MODULES next to their sources."""
    out = []
    for module in MODULES:
        src = source_path(module)
        out.extend(p for suffix in importlib.machinery.EXTENSION_SUFFIXES
                   for p in [src.with_suffix(suffix)] if p.exists())
    return out


def is_compiled(module: str = "atlas.graph.resolve.solver") -> bool:
    """Whether `module`, as imported in this process, is a compiled one."""
    found = sys.modules.get(module)
    return found is not None and not str(found.__file__).endswith(".py")


class _SourceFinder:
    """Finds MODULES as their .py files, ahead of the extension modules next to them."""

    @staticmethod
    def find_spec(fullname: str, path=None, target=None):
        if fullname in MODULES:
            return importlib.util.spec_from_file_location(fullname, source_path(fullname))
        return None


def guard() -> None:
    """Run the sources when the compiled modules are stale or ATLAS_PURE is set (all of them or none: compiled
    modules share native classes). Call before any of MODULES is imported."""
    if any(isinstance(f, _SourceFinder) for f in sys.meta_path) or not compiled_files():
        return
    pure = os.environ.get("ATLAS_PURE", "") not in ("", "0")
    if not pure and STAMP.exists() and STAMP.read_text().strip() == source_hash():
        return
    if not pure:
        warnings.warn("atlas: the mypyc-compiled parser and resolver are older than their sources; running the "
                      "sources (slower). Run `python scripts/compile.py` to compile them again, or "
                      "`python scripts/compile.py --clean` to remove them", stacklevel=2)
    sys.meta_path.insert(0, _SourceFinder())


@dataclass(frozen=True)
class Native:
    """A C or C++ extension scripts/compile.py builds from `sources` (globs under atlas/), standing in for Python code
    that gives the same results."""

    module: str
    sources: tuple[str, ...]

    def source_files(self) -> list[Path]:
        return sorted(p for pattern in self.sources for p in ATLAS.glob(pattern))

    def source_hash(self) -> str:
        """A hash of its sources (and of the Python version), as the extension is built with it."""
        h = hashlib.sha1(f"{sys.implementation.cache_tag}\n".encode())
        for path in self.source_files():
            h.update(path.name.encode() + b"\0" + path.read_bytes())
        return h.hexdigest()[:16]

    def files(self) -> list[Path]:
        """The built extension, when there is one."""
        stem = ATLAS.parent.joinpath(*self.module.split("."))
        return [p for suffix in importlib.machinery.EXTENSION_SUFFIXES for p in [stem.with_name(stem.name + suffix)]
                if p.exists()]

    def current(self, what: str, expect: dict[str, str]):
        """The extension when it is built from its sources as they are (and its other constants are `expect`),
        else None, with a warning saying how to build it again; ATLAS_PURE=1: None."""
        if os.environ.get("ATLAS_PURE", "") not in ("", "0") or not self.files():
            return None
        module = importlib.import_module(self.module)
        expect = {"SOURCE_HASH": self.source_hash(), **expect}
        stale = [f"{key} {getattr(module, key, None)} (want {want})" for key, want in expect.items()
                 if getattr(module, key, None) != want]
        if not stale:
            return module
        warnings.warn(f"atlas: {what} is out of date ({', '.join(stale)}); running its Python source (slower). Run "
                      f"`python scripts/compile.py` to build it again", stacklevel=3)
        return None


WALKER = Native("atlas.parse.python._walk", ("parse/python/c/*.h", "parse/python/c/*.c"))
SOLVER = Native("atlas.graph.resolve._solve", ("graph/resolve/cpp/*.h", "graph/resolve/cpp/*.cpp"))


def native_walker():
    """The walker in C (parse/python/c), when built from its sources as they are and for the tree-sitter installed,
    else None."""
    return WALKER.current("the C walker", {"TREE_SITTER_VERSION": importlib.metadata.version("tree-sitter")})


def native_solver():
    """The call resolver in C++, when built from its sources as they are, else None."""
    return SOLVER.current("the C++ call resolver", {})


def in_use() -> str:
    """Which walker and resolver this process runs, in words (for benchmarks' reports)."""
    python = "mypyc-compiled" if is_compiled() else "Python source"
    walker = "C walker" if native_walker() else f"{python} walker"
    resolver = "C++ resolver" if native_solver() else f"{python} resolver"
    return f"{walker}, {resolver}"
