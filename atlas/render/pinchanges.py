"""What changed in each annotated mechanism step between the default pin and another pin set (latest): where the
code is at both pins (upstream links to both pins' lines), whether it moved, its signature change, and the claims
whose verdict differs there. Read from the annotations' `at:` entries and both symbol indexes; a pin set whose
index is not stored (`atlas check --pins latest` stores it) is left out, so a site build never parses another tree.
Where a step's code is at both pins is kept in the build's memo under both trees' fingerprints, so an edit that
moves no symbol or anchor resolves nothing again, nor loads an index."""

from __future__ import annotations

import functools
from collections.abc import Callable

from atlas import graph as graph_stage
from atlas.annotate import load_annotations
from atlas.annotate.resolve import Resolver
from atlas.errors import AtlasError
from atlas.graph import Index, load_symbols
from atlas.render.inputs import StoredTree
from atlas.render.memo import Memo
from atlas.sources import load_all, locate


class _Pins:
    """One framework's symbol indexes at the default pins and at `pin_set`, with their resolvers, each loaded on
    first use: from the EngineData the build collected, else from the stored graph build (atlas.render.inputs), else
    from the parse stage (atlas.graph.load_symbols). `fingerprints` is None when either is known only by loading it."""

    def __init__(self, settings, manifest, pin_set: str, collected: dict) -> None:
        found = [_tree(settings, manifest, s, collected.get((manifest.name, s))) for s in ("default", pin_set)]
        self.fingerprints = None if None in (found[0][0], found[1][0]) else (found[0][0], found[1][0])
        self._loads = (found[0][1], found[1][1])

    @functools.cached_property
    def old(self) -> Index:
        return self._loads[0]()

    @functools.cached_property
    def new(self) -> Index:
        return self._loads[1]()

    @functools.cached_property
    def resolvers(self) -> tuple[Resolver, Resolver]:
        return Resolver(self.old), Resolver(self.new)

    def is_available(self) -> bool:
        """Whether both indexes are there (not synced or not checked here: nothing is said of that pin)."""
        try:
            return self.new is not None and self.old is not None  # the other pins' first: the likelier missing
        except AtlasError:
            return False


def _tree(settings, manifest, pin_set: str, engine) -> tuple[str | None, Callable[[], Index]]:
    """(fingerprint or None, what loads the index) of one tree."""
    if engine is not None:
        return engine.fingerprint, lambda: Index(engine.pin, engine.checkout, dict(engine.symbols.items()))
    if graph_stage.is_built(settings, manifest.name, pin_set):
        tree = StoredTree(settings, manifest, locate(manifest, pin_set, settings), pin_set, pin_set == "default")
        return tree.fingerprint, lambda: tree.index
    return None, lambda: load_symbols(settings, manifest.name, pin_set, on_demand=pin_set == "default")


def pin_changes(
    settings, frameworks: list[str] | None = None, pin_set: str = "latest", memo: Memo | None = None, engines=()
) -> dict[str, dict]:
    """annotation id -> what its mechanism step looks like at `pin_set` next to the default pin. `engines`: the
    EngineData the build collected (of any pin set), whose indexes are not loaded again."""
    memo = memo or Memo()
    out: dict[str, dict] = {}
    annotations = load_annotations(settings.root, cache=settings.build / "annotations.pickle")
    collected = {(e.name, e.pin_set): e for e in engines}
    for manifest in load_all(settings.root, frameworks):
        if pin_set not in manifest.pins or pin_set == "default":
            continue
        try:
            pins = _Pins(settings, manifest, pin_set, collected)
        except AtlasError:  # not synced here: nothing is said of that pin
            continue
        if pins.fingerprints is None and not pins.is_available():
            continue
        for a in annotations:
            if a.framework != manifest.name:
                continue
            was, now = a.for_pin("default"), a.for_pin(pin_set)
            key = memo.key("pin change", pins.fingerprints, (a.id, was.symbol, was.anchor, now.symbol, now.anchor))
            placed = memo.get(key, lambda a=a, pins=pins: _placed(a, pins.old, pins.new, *pins.resolvers, pin_set))
            out[a.id] = _change(a, placed, pin_set)
    return out


def _placed(a, old, new, old_r, new_r, pin_set: str) -> dict:
    """Where the step's code is at both pins, and its signature there."""
    was, now = a.for_pin("default"), a.for_pin(pin_set)
    r0, r1 = old_r.resolve(was), new_r.resolve(now)
    s0, s1 = old.get(was.symbol), new.get(now.symbol)
    sig0, sig1 = (s0.signature if s0 else ""), (s1.signature if s1 else "")
    return {
        "old_ref": old.pin.ref,
        "new_ref": new.pin.ref,
        "old": _where(old.pin, r0),
        "new": _where(new.pin, r1),
        "signature": (sig0, sig1) if sig0 and sig1 and sig0 != sig1 else None,
    }


def _change(a, placed: dict, pin_set: str) -> dict:
    was, now = a.for_pin("default"), a.for_pin(pin_set)
    verdicts = []
    for c in a.claims:
        v0, v1 = c.verdict_at("default"), c.verdict_at(pin_set)
        if (v0.verdict, v0.note) != (v1.verdict, v1.note):
            verdicts.append({"claim": c.claim, "old": v0.verdict, "new": v1.verdict, "note": v1.note})
    return {
        "pin_set": pin_set,
        "old_ref": placed["old_ref"],
        "new_ref": placed["new_ref"],
        "old": placed["old"],
        "new": placed["new"],
        "moved": "" if was.symbol == now.symbol else f"{was.symbol} -> {now.symbol}",
        "anchor_changed": bool(was.anchor and now.anchor and was.anchor.pattern != now.anchor.pattern),
        "signature": placed["signature"],
        "verdicts": verdicts,
    }


def _where(pin, resolution) -> dict:
    if not resolution.is_resolved:
        return {"text": "does not resolve", "href": ""}
    line = resolution.anchor_line or resolution.line
    end = resolution.anchor_end_line or resolution.end_line
    return {"text": f"{resolution.path}:{line}", "href": pin.permalink(resolution.path, line, end)}
