"""What the site is rendered from, per engine: the pin and its checkout, the symbol index and call graph (when
built), and the annotations with their lines at the pin. The IO edge of the render stage; the pages are pure
functions of these values. The index and the graph are loaded when first used: a rebuild whose units the memo
keeps (atlas.render.memo) loads neither."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from atlas import annotate
from atlas import graph as graph_stage
from atlas.env import Settings
from atlas.errors import BuildMissing, ConfigError
from atlas.graph.build import folder as graph_folder
from atlas.model import Finding, Pin, Span, Symbol
from atlas.render.memo import Memo, digest
from atlas.runtime import recording
from atlas.runtime.series import FILE as SERIES_FILE
from atlas.runtime.series import load_file as load_series
from atlas.sources import having, locate

log = logging.getLogger("atlas")


@dataclass(frozen=True, slots=True)
class Anchored:
    """One annotation with the span it resolved to at the pin (None when it did not resolve)."""

    annotation: object  # atlas.annotate Annotation
    span: Span | None
    problem: str = ""
    finding: Finding | None = None  # why it did not resolve, with the annotation's file:line


class Deferred:
    """A value made on first use: `collect` hands EngineData a Deferred call graph."""

    def __init__(self, load: Callable[[], object]) -> None:
        self.load = load


class _MadeOnFirstRead:
    """A dataclass field given either its value or a Deferred; the first read of a Deferred makes the value and
    keeps it. Reading it (dataclasses.replace and asdict do) is what loads it."""

    def __set_name__(self, owner, name: str) -> None:
        self.name = f"_{name}"

    def __get__(self, obj, owner=None):
        if obj is None:
            return None  # the field's default
        value = obj.__dict__[self.name]
        if isinstance(value, Deferred):
            value = obj.__dict__[self.name] = value.load()
        return value

    def __set__(self, obj, value) -> None:
        obj.__dict__[self.name] = value


class LoadedMapping(Mapping):
    """A mapping made on first use: `collect` hands EngineData its symbols as one."""

    def __init__(self, load: Callable[[], Mapping]) -> None:
        self._load = load
        self._loaded: Mapping | None = None

    @property
    def loaded(self) -> Mapping:
        if self._loaded is None:
            self._loaded = self._load()
        return self._loaded

    def __getitem__(self, key):
        return self.loaded[key]

    def __iter__(self):
        return iter(self.loaded)

    def __len__(self) -> int:
        return len(self.loaded)

    def __contains__(self, key) -> bool:
        return key in self.loaded

    def get(self, key, default=None):
        return self.loaded.get(key, default)

    def keys(self):
        return self.loaded.keys()

    def values(self):
        return self.loaded.values()

    def items(self):
        return self.loaded.items()


@dataclass(frozen=True)
class EngineData:
    name: str  # vllm | sglang
    pin: Pin
    pin_set: str
    checkout: Path
    package_root: str  # "" for vllm, "python" for sglang
    symbols: Mapping[str, Symbol] = field(default_factory=dict)  # a LoadedMapping from `collect`
    graph: object | None = _MadeOnFirstRead()  # networkx MultiDiGraph, node id = symbol id, or None when not
    # built; a Deferred graph is loaded when first read
    anchored: tuple[Anchored, ...] = ()
    missing: tuple[str, ...] = ()  # inputs not available, in words, shown on the pages
    fingerprint: str | None = None  # a digest of pin, symbols, graph and sources (atlas.render.memo); None: unknown
    reviews: tuple[annotate.ReviewRow, ...] = ()  # the review record's rows (atlas.annotate.review)
    review_pins: tuple[tuple[str, Pin], ...] = ()  # (pin set, its pin): where a row's deciding lines link to

    def source(self, path: str) -> str:
        return _read(self.checkout, path)

    def module_of(self, path: str) -> str:
        """`python/sglang/srt/x.py` -> `sglang.srt.x`; non-Python files keep their path."""
        prefix = f"{self.package_root}/" if self.package_root else ""
        if not path.endswith(".py") or not path.startswith(prefix):
            return path
        parts = path[len(prefix) : -3].split("/")
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.lru_cache(maxsize=256)
def _read(checkout: Path, path: str) -> str:
    """A pinned file's text (the checkouts are read-only, so caching is safe for the process)."""
    return (checkout / path).read_text(encoding="utf-8", errors="replace")


@dataclass(frozen=True, slots=True)
class SiteData:
    engines: tuple[EngineData, ...]
    results: Mapping[str, object] = field(default_factory=dict)  # probe traces / diff reports, when present


class StoredTree:
    """A pinned tree's index and call graph as the graph stage stored them, each loaded on first use. Its
    `fingerprint` digests the pin, the package root and the stored build's key (None when there is none): two loads
    under one key give the same symbols and graph, and a load that finds another build raises (the site would mix
    two). `on_demand`: a damaged build is built again when loaded (else BuildMissing says what to run)."""

    def __init__(self, settings: Settings, manifest, checkout, pin_set: str, on_demand: bool = True) -> None:
        self.settings, self.name, self.pin_set, self.on_demand = settings, manifest.name, pin_set, on_demand
        self.key_path = graph_folder(settings, manifest.name, checkout.pin.commit) / "key"
        self.key = _read_key(self.key_path)
        self.fingerprint = digest(checkout.pin, manifest.package_root, self.key) if self.key else None

    @functools.cached_property
    def index(self):
        return self._checked(graph_stage.load_index(self.settings, self.name, self.pin_set, self.on_demand))

    @functools.cached_property
    def graph(self):
        return self._checked(graph_stage.load_graph(self.settings, self.name, self.pin_set, self.on_demand).graph)

    def _checked(self, value):
        if _read_key(self.key_path) != self.key:
            raise BuildMissing(
                f"the graph of {self.name} ({self.pin_set} pins) was rebuilt while the site was built; "
                "run `atlas build` again"
            )
        return value


CONTEXT = 3  # lines shown around an anchored statement
MAX_SYMBOL_LINES = 60  # an unanchored annotation shows its symbol's first lines; the rest is a link upstream


def _annotation_inputs(settings: Settings, name: str, stored: StoredTree, memo: Memo) -> list[Anchored]:
    """The annotations with their lines at the pin; each resolution is kept in `memo` under the engine's fingerprint
    and what it reads of the annotation (an edit of a claim's text resolves nothing again, nor loads the index)."""
    resolver = functools.cache(lambda: annotate.Resolver(stored.index))
    annotations = annotate.load_annotations(settings.root, framework=name, cache=settings.build / "annotations.pickle")
    keys = [memo.key("resolution", stored.fingerprint, (a.id, a.symbol, a.anchor, a.file, a.line)) for a in annotations]
    return [anchored_span(a, memo.get(key, lambda a=a: resolver().resolve(a))) for a, key in zip(annotations, keys)]


def anchored_span(annotation, resolution) -> Anchored:
    """The lines a mechanism page shows for an annotation: the anchored statement with a little context, else the
    symbol's first lines."""
    if resolution.finding is not None:
        return Anchored(annotation, None, resolution.finding.message, resolution.finding)
    if resolution.anchor_line:
        start = max(resolution.line, resolution.anchor_line - CONTEXT)
        end = min(
            resolution.end_line or resolution.anchor_end_line,
            (resolution.anchor_end_line or resolution.anchor_line) + CONTEXT,
        )
        return Anchored(annotation, Span(resolution.path, start, max(start, end)))
    end = min(resolution.end_line, resolution.line + MAX_SYMBOL_LINES - 1)
    return Anchored(annotation, Span(resolution.path, resolution.line, max(resolution.line, end)))


def collect(
    settings: Settings, frameworks: list[str] | None = None, pin_set: str = "default", memo: Memo | None = None
) -> SiteData:
    """Everything the site needs for the given engines at one pin set; raises BuildMissing when a checkout is not
    synced. The graph is built on first use (atlas.graph) and loaded when a page needs it, annotations come from
    annotations/ (resolved, or kept in `memo`). What changed at the latest pins is atlas.render.pinchanges'."""
    memo = memo or Memo()
    engines = []
    record = annotate.load_reviews(settings.root)
    for manifest in having(settings.root, frameworks, pin_set):
        checkout = locate(manifest, pin_set, settings)
        if not graph_stage.is_built(settings, manifest.name, pin_set):
            graph_stage.build(settings, manifest.name, pin_set)
        stored = StoredTree(settings, manifest, checkout, pin_set)
        anchored = _annotation_inputs(settings, manifest.name, stored, memo)
        engines.append(
            EngineData(
                manifest.name,
                checkout.pin,
                pin_set,
                checkout.path,
                manifest.package_root,
                LoadedMapping(lambda s=stored: s.index.symbols),
                Deferred(lambda s=stored: s.graph),
                tuple(anchored),
                fingerprint=stored.fingerprint,
                reviews=record.rows,
                review_pins=_review_pins(manifest, pin_set, checkout.pin),
            )
        )
    return SiteData(tuple(engines), load_results(settings))


def _review_pins(manifest, pin_set: str, pin: Pin) -> tuple[tuple[str, Pin], ...]:
    """Each pin set's pin as the manifest records it (the page's own set: the checkout's), for permalinks."""
    return tuple(
        (
            name,
            pin
            if name == pin_set
            else Pin(manifest.name, entry["ref"], "", manifest.url, entry.get("upstream_commit") or ""),
        )
        for name, entry in manifest.pins.items()
    )


def _read_key(path: Path) -> str | None:
    """The key the graph stage stored beside a tree's index and graph (its analysed files and the code that built
    them): two loads under one key give the same symbols and graph."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def load_results(settings: Settings) -> dict[str, object]:
    """Probe traces and diff reports, when their results files exist in the build folder. A
    results file of the build folder that cannot be read as what its command writes is left out, saying so; one of
    the project's (results/) is an error naming it."""
    found: dict[str, object] = {}
    runtime = settings.build / "runtime" / "summary.json"
    traces = []  # (title, summary): the latest local `atlas trace`, then the committed runs (H200, CPU)
    series = {}  # title -> the trace's per-step series, where it was recorded with them
    summary = _results_file(runtime, in_build=True) if runtime.exists() else None
    if summary is not None:
        found["runtime"] = summary
        traces.append(("latest `atlas trace` on this machine", found["runtime"]))
        series[traces[-1][0]] = _built_series(runtime.with_name(SERIES_FILE))
    root = getattr(settings, "root", None)
    for path in sorted(Path(root, "results").glob("*-summary.json")) if root else ():
        device = "H200" if path.name.startswith("gpu-") else "CPU"
        traces.append((f"{device} run, committed in results/{path.name}", _results_file(path, in_build=False)))
        series[traces[-1][0]] = load_series(path.with_name(path.name.replace("-summary.json", "-series.json")))
    if traces:
        found["traces"] = traces
        found["series"] = {title: s for title, s in series.items() if s is not None}
    recordings = (
        [
            (f"call edges recorded in the running engine, committed in results/edges/{path.name}", recording.load(path))
            for path in sorted(Path(root, "results", "edges").glob("*.edges.json"))
        ]
        if root
        else []
    )
    if recordings:
        found["recordings"] = recordings  # (title, atlas.runtime.recording.Recording): marked in the source view
    excerpts = (
        {
            path.name.split("-")[1]: _results_file(path, in_build=False)
            for path in sorted(Path(root, "results").glob("gpu-*-trace-excerpt.json"))
        }
        if root
        else {}
    )
    if excerpts:
        found["trace_excerpts"] = excerpts  # framework -> the committed Perfetto excerpt of its H200 run
    kernels_dir = Path(root, "results", "gpu-kernels") if root else None
    if kernels_dir is not None and (kernels_dir / "summaries.json").is_file():
        found["gpu_kernels"] = {  # the H200 runs of `atlas trace --kernels`: summaries and recorded names
            path.stem: _results_file(path, in_build=False)
            for path in (kernels_dir / "summaries.json", kernels_dir / "names.json")
            if path.is_file()
        }
    diffs = {
        p.stem.removeprefix("last-"): report
        for p in sorted((settings.build / "diff").glob("last-*.json"))
        if (report := _results_file(p, in_build=True)) is not None
    }
    if diffs:
        found["diff"] = diffs  # framework -> the last `atlas diff` report (atlas.diff.report.to_json)
    return found


def _results_file(path: Path, in_build: bool) -> dict | None:
    """A results file's JSON object. One the build folder holds (written by `atlas trace` or `atlas diff`) that is
    damaged is left out (None), saying which command writes it again; a project's is a ConfigError naming it."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict):
        return data
    if not in_build:
        raise ConfigError(f"{path} is not a JSON object as atlas writes it; restore it from git or remove it")
    command = "atlas diff" if path.parent.name == "diff" else "atlas trace"
    log.warning(f"atlas build: {path} is damaged and was left out; run `{command}` again to write it")
    return None


def _built_series(path: Path):
    """The per-step series the last `atlas trace` wrote into the build folder (atlas.runtime.series), or None; one
    that cannot be read is left out, saying so, as a damaged results file of the build folder is (the committed
    ones, under results/, are errors naming them)."""
    try:
        return load_series(path)
    except ConfigError as exc:
        log.warning(f"atlas build: {exc}; it was left out")
        return None
