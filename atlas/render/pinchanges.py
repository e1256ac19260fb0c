"""What changed in each annotated mechanism step between the default pin and another pin set (latest): where the
code is at both pins (upstream links to both pins' lines), whether it moved, its signature change, and the claims
whose verdict differs there. Read from the annotations' `at:` entries and both symbol indexes; a pin set whose
index is not stored (`atlas check --pins latest` stores it) is left out, so a site build never parses another tree."""

from __future__ import annotations

from atlas.annotate import load_annotations
from atlas.annotate.resolve import Resolver
from atlas.errors import AtlasError
from atlas.graph import load_symbols
from atlas.sources import load_all


def pin_changes(settings, frameworks: list[str] | None = None, pin_set: str = "latest") -> dict[str, dict]:
    """annotation id -> what its mechanism step looks like at `pin_set` next to the default pin."""
    out: dict[str, dict] = {}
    annotations = load_annotations(settings.root, cache=settings.build / "annotations.pickle")
    for manifest in load_all(settings.root, frameworks):
        if pin_set not in manifest.pins or pin_set == "default":
            continue
        try:
            old = load_symbols(settings, manifest.name, "default")
            new = load_symbols(settings, manifest.name, pin_set, on_demand=False)
        except AtlasError:  # not synced or not checked here (`atlas check --pins latest`): nothing said of that pin
            continue
        old_r, new_r = Resolver(old), Resolver(new)
        for a in annotations:
            if a.framework == manifest.name:
                out[a.id] = _change(a, old, new, old_r, new_r, pin_set)
    return out


def _change(a, old, new, old_r, new_r, pin_set: str) -> dict:
    was, now = a.for_pin("default"), a.for_pin(pin_set)
    r0, r1 = old_r.resolve(was), new_r.resolve(now)
    s0, s1 = old.get(was.symbol), new.get(now.symbol)
    sig0, sig1 = (s0.signature if s0 else ""), (s1.signature if s1 else "")
    verdicts = []
    for c in a.claims:
        v0, v1 = c.verdict_at("default"), c.verdict_at(pin_set)
        if (v0.verdict, v0.note) != (v1.verdict, v1.note):
            verdicts.append({"claim": c.claim, "old": v0.verdict, "new": v1.verdict, "note": v1.note})
    return {
        "pin_set": pin_set, "old_ref": old.pin.ref, "new_ref": new.pin.ref,
        "old": _where(old.pin, r0), "new": _where(new.pin, r1),
        "moved": "" if was.symbol == now.symbol else f"{was.symbol} -> {now.symbol}",
        "anchor_changed": bool(was.anchor and now.anchor and was.anchor.pattern != now.anchor.pattern),
        "signature": (sig0, sig1) if sig0 and sig1 and sig0 != sig1 else None,
        "verdicts": verdicts,
    }


def _where(pin, resolution) -> dict:
    if not resolution.is_resolved:
        return {"text": "does not resolve", "href": ""}
    line = resolution.anchor_line or resolution.line
    end = resolution.anchor_end_line or resolution.end_line
    return {"text": f"{resolution.path}:{line}", "href": pin.permalink(resolution.path, line, end)}
