"""The parse stage of a build, a file at a time: one tree-sitter parse of a .py file gives its Python facts and, when it
mentions kernels, its kernel-layer facts (atlas.parse.kernels.python_side). Facts are packed tuples (atlas.parse.python
.pack) on the way, marshal bytes in the cache (atlas.graph.packs, under the file's git blob and module) and between
processes (`encode`: the symbols first, readable alone), and ModuleFacts / PyFacts for resolution."""

from __future__ import annotations

import io
import marshal
import multiprocessing
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from atlas.errors import SourceError
from atlas.graph import background
from atlas.graph.packs import Packs
from atlas.model import Symbol
from atlas.parse.kernels import python_side as kernels
from atlas.parse.kernels.python_side import PyFacts
from atlas.parse.python import ModuleFacts, extract_packed, module_name, parser, unpack, unpack_symbols
from atlas.sources import blob_id

MIN_SHARE = 32  # files per process below which a parse runs here rather than forking a helper
FACTS_VERSION = "34"  # bump when the extractor's output changes: old cached facts are then ignored
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
    return Packs(
        build / "pyfacts" / f"v{FACTS_VERSION}-py{sys.version_info[0]}{sys.version_info[1]}-m{marshal.version}",
        top=build,
    )


def parse_packed(root: Path, f: PyFile) -> tuple:
    """(packed Python facts, packed kernel-layer facts or None) of one file, from one parse."""
    global _PARSER
    if _PARSER is None:
        _PARSER = parser()
    source = (root / f.path).read_bytes()
    if blob_id(source, f.blob) != f.blob:  # the facts are kept under the blob: never made from other text
        raise SourceError(f"{root / f.path} changed while atlas read it; run the command again")
    tree = _PARSER.parse(source)
    facts = extract_packed(source, f.path, f.module, f.is_package, tree)
    kernel = kernels.pack(kernels.tree_facts(f.path, tree.root_node)) if kernels.mentions_kernels(source) else None
    return facts, kernel


def unpack_file(packed: tuple, component: Callable[[str], str] | None) -> tuple[ModuleFacts, PyFacts | None]:
    facts, kernel = packed
    return unpack(facts, component), kernels.unpack(kernel) if kernel is not None else None


def encode(packed: tuple) -> bytes:
    """The bytes of `parse_packed`'s result: the file's head (module, path, is_package, lines, symbol rows), then its
    scopes and kernel-layer facts, two marshal records, so that a symbol index reads the first alone."""
    facts, kernel = packed
    return marshal.dumps(facts[:5]) + marshal.dumps((facts[5], kernel))


def decode(data: bytes, component: Callable[[str], str] | None) -> tuple[ModuleFacts, PyFacts | None]:
    """The facts of bytes made by `encode`; a damaged entry raises ValueError."""
    try:
        stream = io.BytesIO(data)
        head = marshal.load(stream)
        scopes, kernel = marshal.load(stream)
        return unpack_file((head + (scopes,), kernel), component)
    except (EOFError, TypeError, ValueError) as exc:
        raise ValueError(f"damaged facts: {exc}") from None


def symbols_of(data: bytes, component: Callable[[str], str] | None) -> list[Symbol]:
    """The symbols alone of bytes made by `encode` (the scopes stay unread); a damaged entry raises ValueError."""
    try:
        _, path, _, _, rows = marshal.loads(data)  # the first record: the file's head
        return unpack_symbols(path, rows, component)
    except (EOFError, TypeError, ValueError) as exc:
        raise ValueError(f"damaged facts: {exc}") from None


def parse_many(root: Path, files: list[PyFile], cores: int) -> dict[str, bytes]:
    """key -> `encode(parse_packed(root, f))` for every file, parsed over up to `cores` processes (forked helpers
    for all shares but this process's own; atlas.graph.background), shares balanced by file size. A daemon process
    (a build's worker) may not fork: it parses them all itself."""
    num = 1 if multiprocessing.current_process().daemon else max(1, min(cores, len(files) // MIN_SHARE))
    by_size = sorted(files, key=lambda f: (-(root / f.path).stat().st_size, f.path))
    shares = [by_size[i::num] for i in range(num)]
    helpers = [background.start(_parse_share, root, share) for share in shares[1:]]
    out = _parse_share(root, shares[0])
    for result in helpers:
        out.update(result())
    return out


def _parse_share(root: Path, files: list[PyFile]) -> dict[str, bytes]:
    return {f.key: encode(parse_packed(root, f)) for f in files}
