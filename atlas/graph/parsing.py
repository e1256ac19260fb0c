"""The parse stage of a build: every analysed .py file of a checkout -> ModuleFacts, spread over the machine's cores,
each result cached in the build folder under its git blob id (and module id), so a rebuild parses changed files only.
Facts travel and rest as marshal bytes of plain tuples (atlas.parse.python.pack): a worker encodes them once, the
same bytes go to the cache file and back to the parent."""

from __future__ import annotations

import gc
import marshal
import os
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from atlas.parse.python import ModuleFacts, extract, module_name, pack, parser, unpack

FACTS_VERSION = "11"  # bump when the extractor's output changes: old cached facts are then ignored
_PARSER = None


def cache_dir(build: Path) -> Path:
    """Marshal's format belongs to the Python version, so the folder names both."""
    return build / "pyfacts" / f"v{FACTS_VERSION}-py{sys.version_info[0]}{sys.version_info[1]}-m{marshal.version}"


def _cache_file(folder: Path, blob: str, module: str) -> Path:
    return folder / blob[:2] / f"{blob}-{module}.marshal"


def _parse_one(job: tuple[str, str, str, bool, str]) -> bytes:
    """Parse one file, cache its facts and return them encoded."""
    global _PARSER
    if _PARSER is None:
        _PARSER = parser()
    root, path, module, is_package, out = job
    facts = extract(Path(root, path).read_bytes(), path, module, is_package, _PARSER)
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    data = marshal.dumps(pack(facts))
    tmp.write_bytes(data)
    tmp.replace(target)
    return data


def parse_files(root: Path, files: list[tuple[str, str]], package_root: str, build: Path,
                progress=None, workers: int | None = None, component: Callable[[str], str] | None = None
                ) -> tuple[list[ModuleFacts], int]:
    """Facts of every (path, blob) file, their symbols tagged by `component` (symbol id -> component name);
    returns (facts in file order, number of files actually parsed)."""
    folder = cache_dir(build)
    results: dict[str, ModuleFacts] = {}
    jobs = []
    for path, blob in files:
        module, is_package = module_name(path, package_root)
        cached = _cache_file(folder, blob, module)
        if cached.exists():
            try:
                results[path] = unpack(marshal.loads(cached.read_bytes()), component)
                continue
            except (EOFError, ValueError, TypeError):
                pass  # a damaged or stale entry: parse again
        jobs.append((str(root), path, module, is_package, str(cached)))
    workers = workers or os.cpu_count() or 1
    if len(jobs) > 8 and workers > 1:
        with ProcessPoolExecutor(max_workers=workers, initializer=gc.disable) as pool:
            for n, data in enumerate(pool.map(_parse_one, jobs, chunksize=16), 1):
                facts = unpack(marshal.loads(data), component)
                results[facts.path] = facts
                if progress and n % 50 == 0:
                    progress("parse", n / len(jobs))
    else:
        for job in jobs:
            facts = unpack(marshal.loads(_parse_one(job)), component)
            results[facts.path] = facts
    return [results[p] for p, _ in files], len(jobs)
