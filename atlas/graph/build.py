"""Build the index and call graph of one pinned tree into the build folder, and load them back.

Layout: `<build>/graph/<framework>-<commit12>/{index-vN.pickle, graph-vN.pickle, key}` (the graph as an edge
table, atlas.graph.table); `key` hashes the analysed (path, blob) list and the code versions, so a rebuild with
nothing changed only lists files and compares keys.
Per-file parse results live in `<build>/pyfacts/` (see atlas.graph.parsing)."""

from __future__ import annotations

import hashlib
import os
import pickle
import time
from dataclasses import dataclass, field
from pathlib import Path

from atlas.env import Settings
from atlas.errors import BuildMissing
from atlas.graph import components
from atlas.graph.index import Index
from atlas.graph.parsing import FACTS_VERSION, parse_files
from atlas.graph.queries import AtlasGraph
from atlas.graph.store import assemble
from atlas.model import CallSite, Span, Symbol, SymbolKind
from atlas.sources import Manifest, analysed_files, load_all, locate

GRAPH_VERSION = "6"  # part of the file names: files written by another layout are not read

INDEX_FILE = f"index-v{GRAPH_VERSION}.pickle"
GRAPH_FILE = f"graph-v{GRAPH_VERSION}.pickle"


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
    h = hashlib.sha1(f"{FACTS_VERSION}/{GRAPH_VERSION}/{code_version()}/{components.rules_version(manifest.name)}"
                     .encode())
    for path, blob in files:
        h.update(f"{path}\0{blob}\n".encode())
    return h.hexdigest()


def build(settings: Settings, framework: str, pin_set: str = "default", progress=None, force: bool = False,
          workers: int | None = None) -> BuildReport:
    """Build (or refresh) the index and graph of `framework` at `pin_set` into `settings.build`."""
    start = time.perf_counter()
    (manifest,) = load_all(settings.root, [framework])
    checkout = locate(manifest, pin_set, settings)
    files = analysed_files(manifest, checkout, (".py",))
    out = folder(settings, framework, checkout.pin.commit)
    key = _key(files, manifest)
    if not force and (out / "key").exists() and (out / "key").read_text() == key and (out / GRAPH_FILE).exists():
        return BuildReport(framework, pin_set, checkout.pin.ref, len(files), 0, 0, time.perf_counter() - start,
                           False)
    timings = {}
    t = time.perf_counter()
    facts, num_parsed = parse_files(checkout.path, files, manifest.package_root, settings.build, progress, workers)
    timings["parse"] = time.perf_counter() - t
    if progress:
        progress("resolve", 0.9)
    graph = assemble(facts, checkout, manifest, timings)
    index = Index(checkout.pin, checkout.path, graph.symbols)
    out.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    _write(out / INDEX_FILE, (index.pin, str(index.root), [_flat(sym) for sym in index.symbols.values()]))
    _write(out / GRAPH_FILE, (graph.table, [(c.caller, c.expression, c.span.path, c.span.start)
                                                for c in graph.unresolved], graph.stats))
    (out / "key").write_text(key)
    timings["store"] = time.perf_counter() - t
    return BuildReport(framework, pin_set, checkout.pin.ref, len(files), num_parsed,
                       sum(f.num_lines for f in facts), time.perf_counter() - start, True, timings)


def _write(path: Path, obj) -> None:
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))
    tmp.replace(path)


def _built(settings: Settings, framework: str, pin_set: str, name: str, on_demand: bool) -> Path:
    (manifest,) = load_all(settings.root, [framework])
    checkout = locate(manifest, pin_set, settings)
    path = folder(settings, framework, checkout.pin.commit) / name
    if not path.exists():
        if not on_demand:
            raise BuildMissing(f"no graph of {framework} ({pin_set} pins) in {settings.build}; run "
                               f"`atlas index {framework} --pins {pin_set}` first")
        build(settings, framework, pin_set)
    return path


def _flat(s: Symbol) -> tuple:
    span = s.span
    return (s.id, s.kind.value, span.path if span else "", span.start if span else 0, span.end if span else 0,
            s.signature, s.decorators, s.bases, s.component)


def _symbol(row: tuple, kinds={k.value: k for k in SymbolKind}) -> Symbol:
    sid, kind, path, start, end, signature, decorators, bases, component = row
    return Symbol(sid, kinds[kind], Span(path, start, end) if path else None, signature, decorators, bases, component)


def load_index(settings: Settings, framework: str, pin_set: str = "default", on_demand: bool = True) -> Index:
    """The symbol index of a pinned tree; builds it first when missing (or raises BuildMissing if not on_demand)."""
    pin, root, rows = pickle.loads(_built(settings, framework, pin_set, INDEX_FILE, on_demand).read_bytes())
    return Index(pin, Path(root), {row[0]: _symbol(row) for row in rows})


def load_graph(settings: Settings, framework: str, pin_set: str = "default", on_demand: bool = True) -> AtlasGraph:
    """The call graph of a pinned tree; builds it first when missing (or raises BuildMissing if not on_demand)."""
    index = load_index(settings, framework, pin_set, on_demand)
    table, unresolved, stats = pickle.loads(_built(settings, framework, pin_set, GRAPH_FILE, on_demand)
                                            .read_bytes())
    sites = [CallSite(caller, text, Span(path, line, line)) for caller, text, path, line in unresolved]
    return AtlasGraph(index.pin, None, index.symbols, sites, stats, table)
