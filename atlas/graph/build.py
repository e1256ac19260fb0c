"""Build the index and call graph of one pinned tree into the build folder, and load them back.

Layout: `<build>/graph/<framework>-<commit12>/{index-vN.pickle, graph-vN.pickle, sites-vN.pickle, key}` (the graph
as an edge table, the call sites as a site table, atlas.graph.table); `key` hashes the analysed (path, blob) list
and the code versions, so a rebuild with nothing changed only lists files and compares keys.
Per-file parse results live in `<build>/pyfacts/` (see atlas.graph.parsing and atlas.graph.packs)."""

from __future__ import annotations

import gc
import hashlib
import os
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from atlas import locks, publish, stored
from atlas.env import BUILD_KNOB, Settings
from atlas.errors import BuildMissing
from atlas.graph import background, components, processes
from atlas.graph.index import Index
from atlas.graph.packs import Packs
from atlas.graph.parsing import FACTS_VERSION, cache, py_files
from atlas.graph.queries import AtlasGraph
from atlas.graph.store import assemble
from atlas.graph.table import EdgeTable, SiteTable
from atlas.model import Pin, Span, Symbol, SymbolKind
from atlas.parse.kernels.layer import cpp_paths, cpp_targets
from atlas.sources import Checkout, Manifest, analysed_files, load_all, locate, recheck

T = TypeVar("T")
GRAPH_VERSION = "9"  # part of the file names: files written by another layout are not read

INDEX_FILE = f"index-v{GRAPH_VERSION}.pickle"
GRAPH_FILE = f"graph-v{GRAPH_VERSION}.pickle"
SITES_FILE = f"sites-v{GRAPH_VERSION}.pickle"  # apart from the graph: most queries never read it


@dataclass(slots=True)
class BuildReport:
    framework: str
    pin_set: str
    ref: str
    num_files: int
    num_parsed: int
    num_lines: int
    seconds: float
    rebuilt: bool
    timings: dict = field(default_factory=dict)


def folder(settings: Settings, framework: str, commit: str) -> Path:
    return settings.build / "graph" / f"{framework}-{commit[:12]}"


def code_version() -> str:
    """A hash of the parser and graph code (the kernel layer's too): a build made by other code is rebuilt."""
    h = hashlib.sha1()
    parse = Path(__file__).parents[1] / "parse"
    for folder in (Path(__file__).parent, parse / "python", parse / "kernels"):
        for path in sorted(folder.rglob("*.py")):
            h.update(path.read_bytes())
    return h.hexdigest()[:12]


def _key(files: list[tuple[str, str]], manifest: Manifest) -> str:
    h = hashlib.sha1(
        f"{FACTS_VERSION}/{GRAPH_VERSION}/{code_version()}/{components.rules_version(manifest.name)}".encode()
    )
    for path, blob in files:
        h.update(f"{path}\0{blob}\n".encode())
    return h.hexdigest()


def build(
    settings: Settings,
    framework: str,
    pin_set: str = "default",
    progress=None,
    force: bool = False,
    workers: int | None = None,
) -> BuildReport:
    """Build (or refresh) the index and graph of `framework` at `pin_set` into `settings.build`."""
    return build_many(settings, [framework], pin_set, progress, force, workers)[0]


def build_many(
    settings: Settings,
    frameworks: list[str],
    pin_set: str = "default",
    progress=None,
    force: bool = False,
    workers: int | None = None,
) -> list[BuildReport]:
    """Build (or refresh) several trees, reports in the order of `frameworks`: their files parsed over `workers`
    processes (default: every core), each tree resolved in a process of its own (atlas.graph.processes)."""
    with gc_paused(), locks.hold(settings.build, "building graphs", knob=BUILD_KNOB):
        start = time.perf_counter()
        plans = [_plan(settings, framework, pin_set) for framework in frameworks]
        todo, done = [], {}
        for p in plans:
            if force or not p.is_built():
                todo.append(p)
            else:
                done[p.framework] = BuildReport(
                    p.framework, pin_set, p.checkout.pin.ref, len(p.files), 0, 0, time.perf_counter() - start, False
                )
        store = cache(settings.build)  # one reading of the pack headers for every tree
        works = [_work(plan, pin_set, start, store) for plan in todo]
        scratch = settings.build / f".parse-{os.getpid()}"
        for report in processes.run(works, workers or os.cpu_count() or 1, scratch, progress):
            done[report.framework] = report
        return [done[framework] for framework in frameworks]


@dataclass(frozen=True, slots=True)
class _Plan:
    """One tree to build: where its sources are, what it analyses, where its graph goes, and the key it is built
    under."""

    framework: str
    manifest: Manifest
    checkout: Checkout
    files: list
    out: Path
    key: str
    build: Path  # the build folder holding `out`

    def is_built(self) -> bool:
        """Whether the stored build has this key and whole files (lengths checked; checksums when loaded)."""
        try:
            key = (self.out / "key").read_text()
        except OSError:
            return False
        return key == self.key and all(
            stored.is_whole(self.out / name, GRAPH_VERSION) for name in (INDEX_FILE, GRAPH_FILE, SITES_FILE)
        )


def _plan(settings: Settings, framework: str, pin_set: str) -> _Plan:
    (manifest,) = load_all(settings.root, [framework])
    checkout = locate(manifest, pin_set, settings)
    files = analysed_files(manifest, checkout, (".py",))
    return _Plan(
        framework,
        manifest,
        checkout,
        files,
        folder(settings, framework, checkout.pin.commit),
        _key(files, manifest),
        settings.build,
    )


def _work(plan: _Plan, pin_set: str, start: float, store: Packs) -> processes.TreeWork:
    """What atlas.graph.processes needs to build `plan`: the files the parse cache `store` lacks, the C++ files, and
    how to finish (resolve and store)."""
    root = Path(plan.checkout.path)
    files = py_files(plan.files, plan.manifest.package_root)
    known = store.index()
    return processes.TreeWork(
        root,
        files,
        [f for f in files if f.key not in known],
        cpp_paths(plan.checkout, plan.manifest),
        cpp_targets(root),
        store,
        partial(components.component_of, plan.framework),
        partial(_finish, plan, pin_set, start),
    )


@contextmanager
def gc_paused():
    """The cyclic garbage collector off for a while: a build creates millions of tuples, sets and dicts (facts,
    cells, edges) that form no cycles, and collections scanning them took a third of resolution's time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _finish(
    plan: _Plan, pin_set: str, start: float, facts: list, kernel_facts: list, cpp, num_parsed: int, timings: dict
) -> BuildReport:
    """Resolve, assemble and store one parsed tree (`cpp()`: its C++ files' part of the kernel layer)."""
    graph = assemble(facts, plan.checkout, plan.manifest, timings, kernel_facts=kernel_facts, cpp=cpp)
    index = Index(plan.checkout.pin, plan.checkout.path, graph.symbols)
    checkout = plan.checkout
    recheck(checkout.pin.framework, checkout.pin_set, checkout.path, checkout.pin.commit)  # read unchanged
    t = time.perf_counter()
    publish.make_room(plan.out, plan.build, is_folder=True)  # a file where the graph folders belong: cleared
    with publish.folder(plan.out) as out:  # the three files appear together, or the old build stays
        stored.dump(
            out / INDEX_FILE,
            (index.pin, str(index.root), [_flat(sym) for sym in index.symbols.values()]),
            GRAPH_VERSION,
        )
        stored.dump(out / GRAPH_FILE, (graph.table, graph.unresolved, graph.stats), GRAPH_VERSION)
        stored.dump(out / SITES_FILE, graph.sites, GRAPH_VERSION)
        publish.write_text(out / "key", plan.key)
    timings["store"] = time.perf_counter() - t
    background.retain(graph, index)
    return BuildReport(
        plan.framework,
        pin_set,
        plan.checkout.pin.ref,
        len(plan.files),
        num_parsed,
        sum(f.num_lines for f in facts),
        time.perf_counter() - start,
        True,
        timings,
    )


def _built(settings: Settings, framework: str, pin_set: str, name: str, on_demand: bool) -> Path:
    """The stored file `name` of a tree's build, after checking its key (the analysed files and the code that built
    it, see `_key`: a few milliseconds); a missing or stale build is built first when `on_demand`, else BuildMissing
    says what to run."""
    plan = _plan(settings, framework, pin_set)
    if not plan.is_built():
        if not on_demand:
            what = (
                "is stale (the analysed files or atlas's parser and graph code changed since it was built)"
                if (plan.out / name).exists()
                else "is missing"
            )
            raise BuildMissing(
                f"the graph of {framework} ({pin_set} pins) in {settings.build} {what}; run "
                f"`atlas index {framework} --pins {pin_set}`"
            )
        build(settings, framework, pin_set)
    return plan.out / name


def _flat(s: Symbol) -> tuple:
    span = s.span
    return (
        s.id,
        s.kind.value,
        span.path if span else "",
        span.start if span else 0,
        span.end if span else 0,
        s.signature,
        s.decorators,
        s.bases,
        s.component,
    )


_KINDS = {k.value: k for k in SymbolKind}


def _symbol(row: tuple, kinds: dict[str, SymbolKind] = _KINDS) -> Symbol:
    sid, kind, path, start, end, signature, decorators, bases, component = row
    return Symbol(sid, kinds[kind], Span(path, start, end) if path else None, signature, decorators, bases, component)


def _is_index(obj: object) -> bool:
    """The shape of a stored index: (pin, root, symbol rows)."""
    return isinstance(obj, tuple) and len(obj) == 3 and isinstance(obj[0], Pin) and isinstance(obj[2], list)


def _is_graph(obj: object) -> bool:
    """The shape of a stored graph: (edge table, unresolved call sites with their reasons, stats)."""
    return (
        isinstance(obj, tuple)
        and len(obj) == 3
        and isinstance(obj[0], EdgeTable)
        and isinstance(obj[1], list)
        and isinstance(obj[2], dict)
    )


def _as_stored(obj: T) -> T:
    return obj


_SHAPES = {INDEX_FILE: _is_index, GRAPH_FILE: _is_graph, SITES_FILE: lambda obj: isinstance(obj, SiteTable)}
_MISREAD = (stored.Damaged, TypeError, ValueError, KeyError, IndexError, AttributeError)  # rows of another shape


def _load(settings: Settings, framework: str, pin_set: str, name: str, on_demand: bool, read: Callable[[Any], T]) -> T:
    """`read` of a stored file of a tree's build, checked (atlas.stored: header, checksum and shape; its rows as
    `read` takes them); a damaged one is rebuilt when `on_demand`, else BuildMissing names the command that rebuilds
    it."""
    path = _built(settings, framework, pin_set, name, on_demand)
    try:
        return read(stored.load(path, GRAPH_VERSION, _SHAPES[name]))
    except _MISREAD as exc:
        if not on_demand:
            raise BuildMissing(
                f"the stored graph is damaged: {exc}; run `atlas index {framework} --pins {pin_set} "
                "--force` to rebuild it"
            ) from None
    build(settings, framework, pin_set, force=True)
    try:
        return read(stored.load(path, GRAPH_VERSION, _SHAPES[name]))
    except _MISREAD as exc:
        raise BuildMissing(f"the rebuilt graph is damaged too: {exc}; check the disk under {settings.build}") from None


def load_index(settings: Settings, framework: str, pin_set: str = "default", on_demand: bool = True) -> Index:
    """The symbol index of a pinned tree; builds it first when missing (or raises BuildMissing if not on_demand)."""

    def read(stored_index: tuple) -> Index:
        pin, root, rows = stored_index
        return Index(pin, Path(root), {row[0]: _symbol(row) for row in rows})

    return _load(settings, framework, pin_set, INDEX_FILE, on_demand, read)


def load_graph(
    settings: Settings, framework: str, pin_set: str = "default", on_demand: bool = True, index: Index | None = None
) -> AtlasGraph:
    """The call graph of a pinned tree; builds it first when missing (or raises BuildMissing if not on_demand).
    `index`: the tree's full index, when the caller has loaded it already."""
    index = index or load_index(settings, framework, pin_set, on_demand)
    table, unresolved, stats = _load(settings, framework, pin_set, GRAPH_FILE, on_demand, _as_stored)
    sites = partial(_load, settings, framework, pin_set, SITES_FILE, on_demand, _as_stored)
    return AtlasGraph(index.pin, None, index.symbols, unresolved, stats, table, sites)
