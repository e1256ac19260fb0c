"""The symbol index of a pinned tree from the parse stage alone, without call resolution: all that `atlas check` and
`atlas diff` need of a tree. Parses go through the build's parse cache; the index is kept beside the graph's files
under the same key, so a second load is one pickle read."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

from atlas import stored as stored_files
from atlas.env import Settings
from atlas.errors import BuildMissing
from atlas.graph import components
from atlas.graph.build import INDEX_FILE, _flat, _plan, _symbol, load_index
from atlas.graph.index import Index
from atlas.graph.parsing import cache, parse_many, py_files, symbols_of
from atlas.model import Symbol

SYMBOLS_FILE = "symbols-v1.pickle"
SYMBOLS_VERSION = "symbols 1"


def is_built(settings: Settings, framework: str, pin_set: str = "default") -> bool:
    """Whether the full index and graph of the tree are built and current."""
    return _plan(settings, framework, pin_set).is_built()


def load_symbols(settings: Settings, framework: str, pin_set: str = "default", on_demand: bool = True) -> Index:
    """The symbol index of `framework` at `pin_set`: the full build's when current, else made from the parse stage
    (each file's facts from the parse cache, parsed where missing) and stored under the build's key. Without
    `on_demand`, only a stored index is read (BuildMissing says what to run when there is none)."""
    plan = _plan(settings, framework, pin_set)
    if plan.is_built() and (plan.out / INDEX_FILE).exists():
        return load_index(settings, framework, pin_set, on_demand=False)
    stored = plan.out / SYMBOLS_FILE
    try:
        key, pin, root, rows = stored_files.load(stored, SYMBOLS_VERSION)
    except stored_files.Damaged:  # none yet, damaged, or another version's: made again below
        key = None
    if key == plan.key:
        return Index(pin, Path(root), {row[0]: _symbol(row) for row in rows})
    if not on_demand:
        raise BuildMissing(
            f"no symbol index of {framework} ({pin_set} pins) in {settings.build}; run "
            f"`atlas check {framework} --pins {pin_set}`"
        )
    root = Path(plan.checkout.path)
    component = partial(components.component_of, framework)
    store = cache(settings.build)
    files = py_files(plan.files, plan.manifest.package_root)
    found = store.read([f.key for f in files])
    of_file: dict[str, list[Symbol]] = {}
    for file_key, data in found.items():
        try:
            of_file[file_key] = symbols_of(data, component)
        except ValueError:  # a damaged entry: parsed again below
            pass
    fresh = parse_many(root, [f for f in files if f.key not in of_file], os.cpu_count() or 1)
    for file_key, data in fresh.items():
        of_file[file_key] = symbols_of(data, component)
    symbols: dict[str, Symbol] = {}
    for f in files:
        for s in of_file[f.key]:
            symbols.setdefault(s.id, s)
    store.write(fresh)
    plan.out.mkdir(parents=True, exist_ok=True)
    stored_files.dump(
        stored, (plan.key, plan.checkout.pin, str(root), [_flat(s) for s in symbols.values()]), SYMBOLS_VERSION
    )
    return Index(plan.checkout.pin, root, symbols)
