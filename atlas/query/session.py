"""The query layer's one entry: `Atlas`, the indexes, graphs and annotations of one project, each loaded once on
first use and kept while the object lives (a CLI call, the site build, an MCP server's life)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from atlas.annotate import Annotation, ReviewRow, load_annotations, load_reviews
from atlas.env import Settings
from atlas.graph import AtlasGraph, Index, is_built, load_graph, load_index, load_symbols
from atlas.model import Pin
from atlas.sources import Manifest, having, load_all

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class PinRef:
    """Which tree an answer is about: the framework, the pin set asked for and the commit it is locked to."""

    framework: str
    pin_set: str
    ref: str
    commit: str

    @staticmethod
    def of(pin: Pin, pin_set: str) -> PinRef:
        return PinRef(pin.framework, pin_set, pin.ref, pin.commit)


class Atlas:
    """Loads what a query needs, once: `graph(framework, pin_set)` (the call graph, built on demand),
    `index(...)` (its symbols; the parse stage's alone where the graph is not built and `symbols_only`),
    `annotations()`, `reviews()` (the review record's rows), `manifests(...)`."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._graphs: dict[tuple[str, str], AtlasGraph] = {}
        self._indexes: dict[tuple[str, str], Index] = {}
        self._full: set[tuple[str, str]] = set()  # indexes of a full build (not the parse stage's alone)
        self._annotations: list[Annotation] | None = None
        self._reviews: tuple[ReviewRow, ...] | None = None
        self._manifests: dict[str, Manifest] = {}
        self._kept: dict[str, Any] = {}

    def frameworks(self, framework: str | None, pin_set: str) -> list[str]:
        """The frameworks a query covers at `pin_set`: the one named (which must have the set), else every one
        that has it."""
        return [m.name for m in having(self.settings.root, [framework] if framework else None, pin_set)]

    def manifest(self, framework: str) -> Manifest:
        if framework not in self._manifests:
            (self._manifests[framework],) = load_all(self.settings.root, [framework])
        return self._manifests[framework]

    def pin_sets(self, framework: str) -> list[str]:
        """The framework's pin sets, default first."""
        return sorted(self.manifest(framework).pins, key=lambda s: (s != "default", s))

    def graph(self, framework: str, pin_set: str = "default") -> AtlasGraph:
        key = (framework, pin_set)
        if key not in self._graphs:
            if key not in self._full:
                self._indexes.pop(key, None)  # the parse stage's: the graph's own index replaces it
            self._graphs[key] = load_graph(self.settings, framework, pin_set, index=self.index(framework, pin_set))
        return self._graphs[key]

    def index(self, framework: str, pin_set: str = "default", symbols_only: bool = False) -> Index:
        """The symbol index: the full build's (built on demand), or with `symbols_only` the parse stage's where
        the graph is not built (all that claims and diffs need of a tree)."""
        key = (framework, pin_set)
        if key not in self._indexes:
            if symbols_only and not is_built(self.settings, framework, pin_set):
                self._indexes[key] = load_symbols(self.settings, framework, pin_set)
            else:
                self._indexes[key] = load_index(self.settings, framework, pin_set)
                self._full.add(key)
        return self._indexes[key]

    def cached(self, key: str) -> Any:
        """What `keep` kept under `key` (results files read once per Atlas), else None."""
        return self._kept.get(key)

    def keep(self, key: str, value: _T) -> _T:
        self._kept[key] = value
        return value

    def annotations(self) -> list[Annotation]:
        if self._annotations is None:
            self._annotations = load_annotations(self.settings.root, cache=self.settings.build / "annotations.pickle")
        return self._annotations

    def reviews(self) -> tuple[ReviewRow, ...]:
        """The review record's rows (annotations/*/review/): each statement's verdict and deciding lines."""
        if self._reviews is None:
            self._reviews = load_reviews(self.settings.root, cache=self.settings.build / "reviews.pickle").rows
        return self._reviews
