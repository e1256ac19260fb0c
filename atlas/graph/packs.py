"""The parse cache of a build folder: each parsed file's facts (marshal bytes, atlas.graph.parsing) under its key (git
blob and module), kept in pack files, one per tree parse that made new entries: creating a file per entry cost more
than parsing it. A pack is a header (key -> offset, size) and the entries after it; a pack that cannot be read is
passed over, so its files are parsed again."""

from __future__ import annotations

import hashlib
import marshal
import struct
from pathlib import Path

from atlas import publish

MAGIC = b"atlas-pack\x01"
MAX_PACKS = 24  # more than this and the store is merged into one pack


class Packs:
    """The packs of one folder; `index()` reads their headers once."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._index: dict[str, tuple[Path, int, int]] | None = None

    def index(self) -> dict[str, tuple[Path, int, int]]:
        """key -> (pack, offset, size) over every readable pack."""
        if self._index is None:
            self._index = {}
            for path in sorted(self.folder.glob("*.pack")):
                try:
                    self._index.update(_read_header(path))
                except (OSError, ValueError, EOFError, TypeError, struct.error):
                    continue
        return self._index

    def read(self, keys: list[str]) -> dict[str, bytes]:
        """The entries of `keys` that some pack holds (an unreadable entry is left out)."""
        index = self.index()
        by_pack: dict[Path, list[tuple[str, int, int]]] = {}
        for key in keys:
            found = index.get(key)
            if found is not None:
                by_pack.setdefault(found[0], []).append((key, found[1], found[2]))
        out: dict[str, bytes] = {}
        for path, entries in by_pack.items():
            try:
                with open(path, "rb") as f:
                    for key, offset, size in sorted(entries, key=lambda e: e[1]):
                        f.seek(offset)
                        data = f.read(size)
                        if len(data) == size:
                            out[key] = data
            except OSError:
                continue
        return out

    def write(self, entries: dict[str, bytes]) -> None:
        """Add `entries` as one new pack (written aside, then renamed into place); merge the store when it holds
        more than MAX_PACKS packs."""
        if not entries:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha1("\n".join(sorted(entries)).encode()).hexdigest()[:20]
        _write_pack(self.folder / f"{name}.pack", entries)
        self._index = None
        packs = sorted(self.folder.glob("*.pack"))
        if len(packs) > MAX_PACKS:
            self.merge(packs)

    def merge(self, packs: list[Path]) -> None:
        """Rewrite `packs` as one (another process merging at the same time only repeats the work)."""
        index = self.index()
        merged = self.read(list(index))
        _write_pack(self.folder / "merged.pack", merged)
        for path in packs:
            if path.name != "merged.pack":
                path.unlink(missing_ok=True)
        self._index = None


def _read_header(path: Path) -> dict[str, tuple[Path, int, int]]:
    with open(path, "rb") as f:
        if f.read(len(MAGIC)) != MAGIC:
            raise ValueError(f"{path} is not a pack")
        (size,) = struct.unpack("<Q", f.read(8))
        header = marshal.loads(f.read(size))
    base = len(MAGIC) + 8 + size
    return {key: (path, base + offset, length) for key, (offset, length) in header.items()}


def _write_pack(path: Path, entries: dict[str, bytes]) -> None:
    offsets, position = {}, 0
    for key, data in entries.items():
        offsets[key] = (position, len(data))
        position += len(data)
    header = marshal.dumps(offsets)
    publish.write_bytes(path, MAGIC + struct.pack("<Q", len(header)) + header + b"".join(entries.values()))
