"""Run a diff end to end: check both refs out side by side, load (or build) both graphs, detect, and assess the
annotations at NEW. The orchestration lives here; detection (symbols, calls, annotations) stays pure."""

from __future__ import annotations

import time

from atlas.annotate import load_annotations
from atlas.diff.annotations import annotation_statuses
from atlas.diff.calls import call_changes, registration_changes
from atlas.diff.items import broken_items
from atlas.diff.report import DiffReport
from atlas.diff.symbols import symbol_changes
from atlas.env import Settings
from atlas.graph import is_built, load_graph, load_symbols
from atlas.model import ChangeKind
from atlas.sources import Manifest, analysed_files, sync_ref


def diff(
    settings: Settings,
    manifest: Manifest,
    old_ref: str,
    new_ref: str,
    progress=None,
    with_calls: bool = False,
    into: str = "",
) -> DiffReport:
    """The report for `manifest`'s framework between two refs (pin set names, tags, branches or commits). Symbol
    changes need only the two symbol indexes; call and kernel-registration changes need both graphs, so they are
    compared when both are built (`atlas index`), or built first `with_calls`; NEW's graph, when built, also lets
    the suggestions follow calls into methods of other objects (the typed-helper rule). Annotations are read as
    they are at OLD's pin set and at `into` (default: NEW's pin set, else OLD's: the set `atlas pin` moves)."""
    start = time.perf_counter()
    old_co = sync_ref(manifest, old_ref, settings, progress)
    new_co = sync_ref(manifest, new_ref, settings, progress)
    old_files = dict(analysed_files(manifest, old_co, (".py",)))
    new_files = dict(analysed_files(manifest, new_co, (".py",)))
    same = {path for path, blob in old_files.items() if new_files.get(path) == blob}
    old_index = load_symbols(settings, manifest.name, old_co.pin_set)
    new_index = load_symbols(settings, manifest.name, new_co.pin_set)
    changes = list(symbol_changes(old_index, new_index, same))
    renames = {c.symbol: c.new_symbol for c in changes if c.kind in (ChangeKind.RENAMED, ChangeKind.MOVED)}
    new_built = is_built(settings, manifest.name, new_co.pin_set)
    new_graph = load_graph(settings, manifest.name, new_co.pin_set) if with_calls or new_built else None
    if with_calls or (new_built and is_built(settings, manifest.name, old_co.pin_set)):
        old_graph = load_graph(settings, manifest.name, old_co.pin_set)
        changes += call_changes(old_graph, new_graph, renames)
        changes += registration_changes(old_graph, new_graph)
    annotations = load_annotations(settings.root, manifest.name, cache=settings.build / "annotations.pickle")
    old_set = old_co.pin_set if old_co.pin_set in manifest.pins else "default"
    into = into or (new_co.pin_set if new_co.pin_set in manifest.pins else old_set)
    statuses = list(annotation_statuses([a.for_pin(into) for a in annotations], new_index, changes))
    broken = list(broken_items(annotations, old_index, new_index, changes, old_set, into, same, new_graph))
    num_changed = len(set(new_files) ^ set(old_files)) + sum(
        1 for path in new_files.keys() & old_files.keys() if path not in same
    )
    return DiffReport(
        manifest.name,
        old_co.pin,
        new_co.pin,
        tuple(changes),
        tuple(statuses),
        num_changed,
        time.perf_counter() - start,
        tuple(broken),
        into,
    )
