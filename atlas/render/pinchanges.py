"""What changed in each annotated mechanism step between the default pin and another pin set (latest): where the
code is at both pins (upstream links to both pins' lines), whether it moved, its signature change, and the claims
whose verdict differs there. Read from the annotations' `at:` entries and both symbol indexes; a pin set whose
index is not stored (`atlas check --pins latest` stores it) is left out, so a site build never parses another tree.
Where a step's code is at both pins is kept in the build's memo under both engines' fingerprints, so an edit that
moves no symbol or anchor resolves nothing again."""

from __future__ import annotations

import functools

from atlas.annotate import load_annotations
from atlas.annotate.resolve import Resolver
from atlas.errors import AtlasError
from atlas.graph import Index, load_symbols
from atlas.render.memo import Memo
from atlas.sources import load_all


class _Pins:
    """One framework's symbol indexes at the default pins and at `pin_set` (from their EngineData when the build
    collected them, else loaded on first use), with their resolvers."""

    def __init__(self, settings, name: str, pin_set: str, collected: dict) -> None:
        self.settings, self.name, self.pin_set = settings, name, pin_set
        self.engines = (collected.get((name, "default")), collected.get((name, pin_set)))

    @property
    def fingerprints(self) -> tuple | None:
        """Both engines' fingerprints, or None when either is unknown (its units are made every time)."""
        found = tuple(e.fingerprint if e is not None else None for e in self.engines)
        return None if None in found else found

    @functools.cached_property
    def old(self) -> Index:
        return self._index(self.engines[0], "default")

    @functools.cached_property
    def new(self) -> Index:
        return self._index(self.engines[1], self.pin_set)

    def _index(self, engine, pin_set: str) -> Index:
        if engine is not None:
            return Index(engine.pin, engine.checkout, dict(engine.symbols))
        return load_symbols(self.settings, self.name, pin_set, on_demand=pin_set == "default")

    @functools.cached_property
    def resolvers(self) -> tuple[Resolver, Resolver]:
        return Resolver(self.old), Resolver(self.new)

    def is_available(self) -> bool:
        """Whether both indexes are there (not synced or not checked here: nothing is said of that pin)."""
        try:
            return self.old is not None and self.new is not None
        except AtlasError:
            return False


def pin_changes(settings, frameworks: list[str] | None = None, pin_set: str = "latest", memo: Memo | None = None,
                engines=()) -> dict[str, dict]:
    """annotation id -> what its mechanism step looks like at `pin_set` next to the default pin. `engines`: the
    EngineData the build collected (of any pin set), whose indexes are not loaded again."""
    memo = memo or Memo()
    out: dict[str, dict] = {}
    annotations = load_annotations(settings.root, cache=settings.build / "annotations.pickle")
    collected = {(e.name, e.pin_set): e for e in engines}
    for manifest in load_all(settings.root, frameworks):
        if pin_set not in manifest.pins or pin_set == "default":
            continue
        pins = _Pins(settings, manifest.name, pin_set, collected)
        if pins.fingerprints is None and not pins.is_available():
            continue
        for a in annotations:
            if a.framework != manifest.name:
                continue
            was, now = a.for_pin("default"), a.for_pin(pin_set)
            key = memo.key("pin change", pins.fingerprints, a.id, was.symbol, was.anchor, now.symbol, now.anchor)
            placed = memo.get(key, lambda a=a: _placed(a, pins.old, pins.new, *pins.resolvers, pin_set))
            out[a.id] = _change(a, placed, pin_set)
    return out


def _placed(a, old, new, old_r, new_r, pin_set: str) -> dict:
    """Where the step's code is at both pins, and its signature there."""
    was, now = a.for_pin("default"), a.for_pin(pin_set)
    r0, r1 = old_r.resolve(was), new_r.resolve(now)
    s0, s1 = old.get(was.symbol), new.get(now.symbol)
    sig0, sig1 = (s0.signature if s0 else ""), (s1.signature if s1 else "")
    return {"old_ref": old.pin.ref, "new_ref": new.pin.ref, "old": _where(old.pin, r0), "new": _where(new.pin, r1),
            "signature": (sig0, sig1) if sig0 and sig1 and sig0 != sig1 else None}


def _change(a, placed: dict, pin_set: str) -> dict:
    was, now = a.for_pin("default"), a.for_pin(pin_set)
    verdicts = []
    for c in a.claims:
        v0, v1 = c.verdict_at("default"), c.verdict_at(pin_set)
        if (v0.verdict, v0.note) != (v1.verdict, v1.note):
            verdicts.append({"claim": c.claim, "old": v0.verdict, "new": v1.verdict, "note": v1.note})
    return {
        "pin_set": pin_set, "old_ref": placed["old_ref"], "new_ref": placed["new_ref"],
        "old": placed["old"], "new": placed["new"],
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
