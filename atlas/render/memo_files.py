"""The build's memo (atlas.render.memo) on disk, beside the site: a folder per pin set holding one checked pickle
(atlas.stored) per shard of keys, by the keys' first two hex digits. A unit's value never changes under its key, so
a shard whose keys are the ones it was loaded with is not written again: a rebuild after a small edit writes a few
shards, not the whole memo. Each shard is written whole or not at all; a kill between shards leaves a mix of two
builds' units, each still valid under its key (a unit missing from it is only made again). What is read is checked
by shape as well as by checksum: a shard that is not a mapping of keys to units, or that is not a file, is left out
and replaced by the next store; a file where the memo's folder belongs is removed."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from atlas import publish, stored
from atlas.render.memo import Memo

VERSION = "site memo 3"
_DIGITS = 2  # 256 shards
_KEY = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True, slots=True)
class Shard:
    """One shard as read: its units, or none when it was damaged (it is then written again, or removed)."""

    units: dict = field(default_factory=dict)
    is_damaged: bool = False


def load(folder: Path, salt: str) -> Memo:
    """The memo stored in `folder` (shards missing, damaged or of another shape are left out), salted with the code
    that renders the site (atlas.render.memo.code_version)."""
    shards = _shards(folder)
    known: dict = {}
    for shard in shards.values():
        known.update(shard.units)
    memo = Memo(known, salt)
    memo.damaged = {name for name, shard in shards.items() if shard.is_damaged}
    return memo


def _shards(folder: Path) -> dict[str, Shard]:
    shards: dict[str, Shard] = {}
    for path in sorted(folder.glob("*.pickle")) if folder.is_dir() else ():
        name = path.name.removesuffix(".pickle")
        try:
            shards[name] = Shard(stored.load(path, VERSION, functools.partial(_is_shard, name=name)))
        except stored.Damaged:
            shards[name] = Shard(is_damaged=True)
    return shards


def _is_shard(units: object, name: str) -> bool:
    """Whether `units` has the shape `dump` writes: key -> (value, keys it was made from), every key a digest
    beginning with the shard's name."""
    return isinstance(units, dict) and all(
        isinstance(key, str)
        and _KEY.match(key) is not None
        and key.startswith(name)
        and isinstance(unit, tuple)
        and len(unit) == 2
        and isinstance(unit[1], tuple)
        and all(isinstance(used, str) and _KEY.match(used) is not None for used in unit[1])
        for key, unit in units.items()
    )


def dump(folder: Path, memo: Memo, top: Path) -> int:
    """Store what `memo` kept into `folder` (inside `top`, the site's folder): the shards whose keys changed or
    that were damaged, and the removal of those left empty; returns how many shards were written."""
    publish.make_room(folder, top, is_folder=True)
    shards: dict[str, dict] = {}
    for key, unit in memo.kept.items():
        shards.setdefault(key[:_DIGITS], {})[key] = unit
    before: dict[str, set] = {}
    for key in memo.known:
        before.setdefault(key[:_DIGITS], set()).add(key)
    num_written = 0
    for name, units in sorted(shards.items()):
        if before.get(name) != units.keys() or name in memo.damaged:
            path = folder / f"{name}.pickle"
            publish.make_room(path, top)
            # in key order: the same units give the same bytes, whatever order the build made them in
            stored.dump(path, dict(sorted(units.items())), VERSION)
            num_written += 1
    for name in sorted((before.keys() | memo.damaged) - shards.keys()):
        publish.discard(folder / f"{name}.pickle")
    return num_written
