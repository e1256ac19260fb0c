"""The parse stage of a build: every analysed .py file of a checkout -> ModuleFacts, spread over the machine's cores,
each result cached in the build folder under its git blob id (and module id), so a rebuild parses changed files only.
Each file is parsed once for both layers: its Python facts and, when it mentions kernels, its kernel-layer facts
(atlas.parse.kernels.python_side). Facts travel and rest as marshal bytes of plain tuples (atlas.parse.python.pack,
atlas.parse.kernels.python_side.pack): a worker encodes them once, the same bytes go to the cache file and back to
the parent, which leaves them encoded for the process that resolves the tree (encode_files, decode_files)."""

from __future__ import annotations

import gc
import marshal
import os
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from atlas.parse.kernels import python_side as kernels
from atlas.parse.kernels.python_side import PyFacts
from atlas.parse.python import ModuleFacts, extract_packed, module_name, parser, unpack

FACTS_VERSION = "13"  # bump when the extractor's output changes: old cached facts are then ignored
_PARSER = None


def cache_dir(build: Path) -> Path:
    """Marshal's format belongs to the Python version, so the folder names both."""
    return build / "pyfacts" / f"v{FACTS_VERSION}-py{sys.version_info[0]}{sys.version_info[1]}-m{marshal.version}"


def _cache_file(folder: Path, blob: str, module: str) -> str:
    return f"{folder}/{blob[:2]}/{blob}-{module}.marshal"


def _parse_one(job: tuple[str, str, str, bool, str]) -> bytes:
    """Parse one file once for both layers (its Python facts, and its kernel-layer facts when it mentions kernels),
    cache them and return them encoded."""
    global _PARSER
    if _PARSER is None:
        _PARSER = parser()
    root, path, module, is_package, out = job
    source = Path(root, path).read_bytes()
    tree = _PARSER.parse(source)
    facts = extract_packed(source, path, module, is_package, tree)
    kernel = kernels.pack(kernels.tree_facts(path, tree.root_node)) if kernels.mentions_kernels(source) else None
    data = marshal.dumps((facts, kernel))
    _store(out, data)
    return data


def _store(target: str, data: bytes) -> None:
    """Write a cache entry in place: a reader that meets a half-written one fails to decode it and parses again,
    and two writers of one entry write the same bytes (a rename per entry cost more than the entry's parse)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    try:
        fd = os.open(target, flags, 0o644)
    except FileNotFoundError:  # the entry's folder is not there yet
        os.makedirs(target.rpartition("/")[0], exist_ok=True)
        fd = os.open(target, flags, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def _decode(data: bytes, component: Callable[[str], str] | None) -> tuple[ModuleFacts, PyFacts | None]:
    facts, kernel = marshal.loads(data)
    return unpack(facts, component), kernels.unpack(kernel) if kernel is not None else None


def parse_files(root: Path, files: list[tuple[str, str]], package_root: str, build: Path,
                progress=None, workers: int | None = None, component: Callable[[str], str] | None = None
                ) -> tuple[list[ModuleFacts], int, list[PyFacts]]:
    """Facts of every (path, blob) file, their symbols tagged by `component` (symbol id -> component name);
    returns (facts in file order, number of files actually parsed, the kernel-layer facts of the files that mention
    kernels, in file order: see atlas.graph.parsing.decode_files)."""
    encoded, num_parsed = encode_files(root, files, package_root, build, progress, workers)
    facts, kernel_facts = decode_files(encoded, component)
    return facts, num_parsed, kernel_facts


def encode_files(root: Path, files: list[tuple[str, str]], package_root: str, build: Path,
                 progress=None, workers: int | None = None) -> tuple[list[tuple[tuple, bytes | None]], int]:
    """Every (path, blob) file parsed (or read from the cache), still encoded: (its parse job, its bytes) in file
    order, and the number of files actually parsed. Decoding is left to the process that resolves the tree
    (decode_files), so a tree resolved in a forked child never has its facts made (and dropped) here."""
    folder = cache_dir(build)
    out: list[tuple[tuple, bytes | None]] = []
    jobs = []
    for path, blob in files:
        module, is_package = module_name(path, package_root)
        cached = _cache_file(folder, blob, module)
        job = (str(root), path, module, is_package, cached)
        try:
            with open(cached, "rb") as f:
                out.append((job, f.read()))
            continue
        except FileNotFoundError:
            pass
        out.append((job, None))
        jobs.append(job)
    workers = workers or os.cpu_count() or 1
    parsed: dict[str, bytes] = {}
    if len(jobs) > 8 and workers > 1:
        with ProcessPoolExecutor(max_workers=workers, initializer=gc.disable) as pool:
            for n, (job, data) in enumerate(zip(jobs, pool.map(_parse_one, jobs, chunksize=16)), 1):
                parsed[job[1]] = data
                if progress and n % 50 == 0:
                    progress("parse", n / len(jobs))
    else:
        for job in jobs:
            parsed[job[1]] = _parse_one(job)
    return [(job, data if data is not None else parsed[job[1]]) for job, data in out], len(jobs)


def decode_files(encoded: list[tuple[tuple, bytes | None]], component: Callable[[str], str] | None = None
                 ) -> tuple[list[ModuleFacts], list[PyFacts]]:
    """The facts of encode_files' files (a damaged cache entry is parsed again here), their symbols tagged by
    `component`; and the kernel-layer facts of the files that mention kernels, in file order (see
    atlas.parse.kernels.kernel_layer)."""
    facts, kernel_facts = [], []
    for job, data in encoded:
        try:
            f, k = _decode(data, component)
        except (EOFError, ValueError, TypeError):  # a damaged or stale cache entry: parse again
            f, k = _decode(_parse_one(job), component)
        facts.append(f)
        if k is not None:
            kernel_facts.append(k)
    return facts, kernel_facts
