"""The build's memo (atlas.render.memo) on disk, beside the site: a folder per pin set holding one checked pickle
(atlas.stored) per shard of keys, by the keys' first two hex digits. A unit's value never changes under its key, so
a shard whose keys are the ones it was loaded with is not written again: a rebuild after a small edit writes a few
shards, not the whole memo. Each shard is written whole or not at all; a kill between shards leaves a mix of two
builds' units, each still valid under its key (a unit missing from it is only made again)."""

from __future__ import annotations

from pathlib import Path

from atlas import publish, stored
from atlas.render.memo import Memo

VERSION = "site memo 3"
_DIGITS = 2  # 256 shards


def load(folder: Path, salt: str) -> Memo:
    """The memo stored in `folder` (shards missing or damaged are left out), salted with the code that renders the
    site (atlas.render.memo.code_version)."""
    known: dict = {}
    for path in sorted(folder.glob("*.pickle")) if folder.is_dir() else ():
        try:
            known.update(stored.load(path, VERSION))
        except stored.Damaged:
            continue
    return Memo(known, salt)


def dump(folder: Path, memo: Memo) -> int:
    """Store what `memo` kept into `folder`: the shards whose keys changed, and the removal of those left empty;
    returns how many shards were written."""
    shards: dict[str, dict] = {}
    for key, unit in memo.kept.items():
        shards.setdefault(key[:_DIGITS], {})[key] = unit
    before: dict[str, set] = {}
    for key in memo.known:
        before.setdefault(key[:_DIGITS], set()).add(key)
    num_written = 0
    for name, units in sorted(shards.items()):
        if before.get(name) != units.keys():
            # in key order: the same units give the same bytes, whatever order the build made them in
            stored.dump(folder / f"{name}.pickle", dict(sorted(units.items())), VERSION)
            num_written += 1
    for name in sorted(before.keys() - shards.keys()):
        publish.discard(folder / f"{name}.pickle")
    return num_written
