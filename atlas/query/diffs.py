"""Slices of what changed between two pins: the symbol changes `atlas diff` finds (kept in the build folder under
the two commits, so a slice after the first answers at once), cut by folder, symbol prefix and kind."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from atlas import publish, stored
from atlas.diff import DiffReport, diff
from atlas.errors import ConfigError
from atlas.model import Change, ChangeKind
from atlas.query.session import Atlas, PinRef

CHANGES_VERSION = "changes 1"
# --kind words: each names one or more ChangeKinds
KIND_WORDS = {
    "added": (ChangeKind.ADDED,),
    "removed": (ChangeKind.REMOVED,),
    "renamed": (ChangeKind.RENAMED,),
    "moved": (ChangeKind.MOVED,),
    "split": (ChangeKind.SPLIT,),
    "changed": (ChangeKind.SIGNATURE, ChangeKind.BODY),
    "signature": (ChangeKind.SIGNATURE,),
    "body": (ChangeKind.BODY,),
    "calls": (ChangeKind.CALLEE_ADDED, ChangeKind.CALLEE_REMOVED),
    "ops": (ChangeKind.OP_ADDED, ChangeKind.OP_REMOVED),
}


@dataclass(frozen=True, slots=True)
class DiffSlice:
    framework: str
    old: PinRef
    new: PinRef
    under: str
    symbol: str
    kinds: tuple[str, ...]  # the --kind words asked (all when empty)
    changes: tuple[Change, ...]  # in the order `atlas diff` found them, filtered
    num_all: int  # changes before the filters


def kinds_of(words: list[str]) -> tuple[str, ...]:
    """The --kind words, checked: ConfigError names the choices."""
    unknown = [w for w in words if w not in KIND_WORDS]
    if unknown:
        raise ConfigError(f"unknown change kind(s) {', '.join(unknown)}; choose from: {', '.join(KIND_WORDS)}")
    return tuple(dict.fromkeys(words))


def _file(atlas: Atlas, framework: str, old: str, new: str) -> Path:
    return atlas.settings.build / "diff" / f"changes-{framework}-{old}-{new}.pickle"


def keep(atlas: Atlas, report: DiffReport, old: str, new: str) -> None:
    """Store a diff's changes for slicing later, under the refs as asked (`default`, `v0.33.0`)."""
    path = _file(atlas, report.framework, old, new)
    publish.make_room(path, atlas.settings.build)  # a file where the folder belongs, or a folder in the file's place
    path.parent.mkdir(parents=True, exist_ok=True)
    pins = (PinRef.of(report.old, old), PinRef.of(report.new, new))
    stored.dump(path, (pins, report.changes), CHANGES_VERSION)


def _current(atlas: Atlas, framework: str, ref: str, commit: str) -> bool:
    """Whether a stored commit is still what `ref` names: a pin set's lock, or any commit for a tag or commit."""
    entry = atlas.manifest(framework).pins.get(ref)
    return entry is None or commit in (entry.get("locks") or {}).values()


def changes(atlas: Atlas, framework: str, old: str, new: str) -> tuple[PinRef, PinRef, tuple[Change, ...]]:
    """(old pin, new pin, every change) between two refs (pin set names, tags, commits): the stored ones when the
    refs still name the same commits, else `atlas diff`'s detection run now and stored."""
    path = _file(atlas, framework, old, new)
    try:
        (old_pin, new_pin), found = stored.load(path, CHANGES_VERSION, _is_changes)
        if _current(atlas, framework, old, old_pin.commit) and _current(atlas, framework, new, new_pin.commit):
            return old_pin, new_pin, found
    except stored.Damaged:
        pass
    report = diff(atlas.settings, atlas.manifest(framework), old, new)
    keep(atlas, report, old, new)
    return PinRef.of(report.old, old), PinRef.of(report.new, new), report.changes


def _is_changes(obj: object) -> bool:
    """The shape `keep` stores: ((old pin, new pin), changes)."""
    return (
        isinstance(obj, tuple)
        and len(obj) == 2
        and isinstance(obj[0], tuple)
        and len(obj[0]) == 2
        and all(isinstance(pin, PinRef) for pin in obj[0])
        and isinstance(obj[1], tuple)
        and all(isinstance(change, Change) for change in obj[1])
    )


def _touches(change: Change, under: str) -> bool:
    folder = under.rstrip("/") + "/"
    return any(span is not None and (span.path + "/").startswith(folder) for span in (change.old, change.new))


def _names(change: Change, prefix: str) -> bool:
    return any(
        name and (name.startswith(prefix) or f".{prefix}" in name) for name in (change.symbol, change.new_symbol)
    )


def diff_slice(
    atlas: Atlas, framework: str, old: str, new: str, under: str = "", symbol: str = "", kinds: tuple[str, ...] = ()
) -> DiffSlice:
    """The changes between `old` and `new` in files under `under`, of symbols whose id starts with `symbol` (or has
    it after a dot: `KVCacheManager`), of the kinds named (KIND_WORDS)."""
    old_pin, new_pin, found = changes(atlas, framework, old, new)
    wanted = {k for word in kinds for k in KIND_WORDS[word]}
    picked = tuple(
        c
        for c in found
        if (not wanted or c.kind in wanted) and (not under or _touches(c, under)) and (not symbol or _names(c, symbol))
    )
    return DiffSlice(framework, old_pin, new_pin, under, symbol, kinds, picked, len(found))
