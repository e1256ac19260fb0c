"""The parse cache of a build folder: each parsed file's facts (marshal bytes, atlas.graph.parsing) under its key (git
blob and module: the content it was parsed from), kept in pack files, one per tree parse that made new entries:
creating a file per entry cost more than parsing it. A pack is a header (key -> offset, size, SHA-1 of the entry) and
the entries after it. What is read is checked: a pack whose header is not of that shape, or whose entries lie
outside it, is passed over, and an entry whose digest differs is left out, so its file is parsed again."""

from __future__ import annotations

import hashlib
import marshal
import struct
from pathlib import Path

from atlas import publish

MAGIC = b"atlas-pack\x02"
MAX_PACKS = 24  # more than this and the store is merged into one pack
_Entry = tuple[Path, int, int, bytes]  # pack, offset, size, SHA-1 of the entry


class Packs:
    """The packs of one folder; `index()` reads their headers once. `top`: the build folder holding it (what stands
    in the way of the folder inside it is cleared before a write)."""

    def __init__(self, folder: Path, top: Path | None = None):
        self.folder = folder
        self.top = top if top is not None else folder.parent
        self._index: dict[str, _Entry] | None = None

    def index(self) -> dict[str, _Entry]:
        """key -> (pack, offset, size, digest) over every readable pack."""
        if self._index is None:
            self._index = {}
            for path in sorted(self.folder.glob("*.pack")) if self.folder.is_dir() else ():
                try:
                    self._index.update(_read_header(path))
                except (OSError, ValueError, EOFError, TypeError, struct.error):
                    continue
        return self._index

    def read(self, keys: list[str]) -> dict[str, bytes]:
        """The entries of `keys` that some pack holds whole (a damaged entry is left out)."""
        index = self.index()
        by_pack: dict[Path, list[tuple[str, int, int, bytes]]] = {}
        for key in keys:
            found = index.get(key)
            if found is not None:
                by_pack.setdefault(found[0], []).append((key, *found[1:]))
        out: dict[str, bytes] = {}
        for path, entries in by_pack.items():
            try:
                with open(path, "rb") as f:
                    for key, offset, size, digest in sorted(entries, key=lambda e: e[1]):
                        f.seek(offset)
                        data = f.read(size)
                        if len(data) == size and hashlib.sha1(data).digest() == digest:
                            out[key] = data
            except OSError:
                continue
        return out

    def write(self, entries: dict[str, bytes]) -> None:
        """Add `entries` as one new pack (written aside, then renamed into place); merge the store when it holds
        more than MAX_PACKS packs."""
        if not entries:
            return
        publish.make_room(self.folder, self.top, is_folder=True)
        self.folder.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha1("\n".join(sorted(entries)).encode()).hexdigest()[:20]
        path = self.folder / f"{name}.pack"
        publish.make_room(path, self.top)
        _write_pack(path, entries)
        self._index = None
        packs = sorted(self.folder.glob("*.pack"))
        if len(packs) > MAX_PACKS:
            self.merge(packs)

    def merge(self, packs: list[Path]) -> None:
        """Rewrite `packs` as one (another process merging at the same time only repeats the work)."""
        index = self.index()
        merged = self.read(list(index))
        path = self.folder / "merged.pack"
        publish.make_room(path, self.top)
        _write_pack(path, merged)
        for pack in packs:
            if pack.name != "merged.pack":
                publish.discard(pack)
        self._index = None


def _read_header(path: Path) -> dict[str, _Entry]:
    """The entries a pack's header lists; ValueError when the header is not a mapping of keys to entries that lie
    within the file."""
    with open(path, "rb") as f:
        if f.read(len(MAGIC)) != MAGIC:
            raise ValueError(f"{path} is not a pack")
        (size,) = struct.unpack("<Q", f.read(8))
        header = marshal.loads(f.read(size))
        end = f.seek(0, 2)
    base = len(MAGIC) + 8 + size
    if not isinstance(header, dict):
        raise ValueError(f"{path} has no header")
    out = {}
    for key, entry in header.items():
        if not (
            isinstance(key, str)
            and isinstance(entry, tuple)
            and len(entry) == 3
            and all(isinstance(n, int) and n >= 0 for n in entry[:2])
            and isinstance(entry[2], bytes)
            and base + entry[0] + entry[1] <= end
        ):
            raise ValueError(f"{path} lists an entry it does not hold")
        out[key] = (path, base + entry[0], entry[1], entry[2])
    return out


def _write_pack(path: Path, entries: dict[str, bytes]) -> None:
    offsets, position = {}, 0
    for key, data in entries.items():
        offsets[key] = (position, len(data), hashlib.sha1(data).digest())
        position += len(data)
    header = marshal.dumps(offsets)
    publish.write_bytes(path, MAGIC + struct.pack("<Q", len(header)) + header + b"".join(entries.values()))
