"""The parse stage of a build, a file at a time: one tree-sitter parse of a .py file gives its Python facts and, when it
mentions kernels, its kernel-layer facts (atlas.parse.kernels.python_side). Facts are packed tuples (atlas.parse.python
.pack) on the way, marshal bytes in the cache (atlas.graph.packs, under the file's git blob and module) and between
processes, and ModuleFacts / PyFacts for resolution."""

from __future__ import annotations

import marshal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from atlas.graph.packs import Packs
from atlas.parse.kernels import python_side as kernels
from atlas.parse.kernels.python_side import PyFacts
from atlas.parse.python import ModuleFacts, extract_packed, module_name, parser, unpack

FACTS_VERSION = "18"  # bump when the extractor's output changes: old cached facts are then ignored
_PARSER = None


@dataclass(frozen=True, slots=True)
class PyFile:
    """A .py file to parse: where it is, its git blob and the module it is."""

    path: str
    blob: str
    module: str
    is_package: bool

    @property
    def key(self) -> str:
        return f"{self.blob}-{self.module}"


def py_files(files: list[tuple[str, str]], package_root: str) -> list[PyFile]:
    return [PyFile(path, blob, *module_name(path, package_root)) for path, blob in files]


def cache(build: Path) -> Packs:
    """The parse cache of a build folder (marshal's format belongs to the Python version, so the folder names both)."""
    return Packs(build / "pyfacts" / f"v{FACTS_VERSION}-py{sys.version_info[0]}{sys.version_info[1]}"
                                      f"-m{marshal.version}")


def parse_packed(root: Path, f: PyFile) -> tuple:
    """(packed Python facts, packed kernel-layer facts or None) of one file, from one parse."""
    global _PARSER
    if _PARSER is None:
        _PARSER = parser()
    source = (root / f.path).read_bytes()
    tree = _PARSER.parse(source)
    facts = extract_packed(source, f.path, f.module, f.is_package, tree)
    kernel = kernels.pack(kernels.tree_facts(f.path, tree.root_node)) if kernels.mentions_kernels(source) else None
    return facts, kernel


def unpack_file(packed: tuple, component: Callable[[str], str] | None) -> tuple[ModuleFacts, PyFacts | None]:
    facts, kernel = packed
    return unpack(facts, component), kernels.unpack(kernel) if kernel is not None else None


def decode(data: bytes, component: Callable[[str], str] | None) -> tuple[ModuleFacts, PyFacts | None]:
    """The facts of marshal bytes made by `marshal.dumps(parse_packed(...))`; a damaged entry raises ValueError."""
    try:
        return unpack_file(marshal.loads(data), component)
    except (EOFError, TypeError) as exc:
        raise ValueError(f"damaged facts: {exc}") from None
