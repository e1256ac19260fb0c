"""Stored state with a checked header: magic, format version, payload length and SHA-256, then the payload. Every
pickle atlas keeps between runs (graphs, indexes, caches) is written and read through here, atomically (atlas.publish),
so a truncated, overwritten or foreign file is refused as `Damaged` instead of unpickled, and so is one whose object
is not of the shape its reader expects."""

from __future__ import annotations

import hashlib
import os
import pickle
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

from atlas import publish

MAGIC = b"ATLAS-STORED\n"
_HEAD = struct.Struct("<16sQ32s")  # version (padded), payload length, sha256 of the payload


class Damaged(Exception):
    """A stored file is missing, truncated, corrupt or of another version; the caller rebuilds it or names the
    command that does."""


def frame(payload: bytes, version: str) -> bytes:
    return MAGIC + _HEAD.pack(version.encode()[:16], len(payload), hashlib.sha256(payload).digest()) + payload


def unframe(data: bytes, version: str, where: object = "stored file") -> bytes:
    """The payload of a framed blob, after checking magic, version, length and checksum."""
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + _HEAD.size:
        raise Damaged(f"{where} has no atlas header (truncated or not written by atlas)")
    raw_version, length, digest = _HEAD.unpack_from(data, len(MAGIC))
    if raw_version.rstrip(b"\0").decode(errors="replace") != version:
        raise Damaged(f"{where} was written by another version of atlas")
    payload = data[len(MAGIC) + _HEAD.size :]
    if len(payload) != length:
        raise Damaged(f"{where} is truncated ({len(payload)} of {length} bytes)")
    if hashlib.sha256(payload).digest() != digest:
        raise Damaged(f"{where} is corrupt (checksum mismatch)")
    return payload


def is_whole(path: Path, version: str) -> bool:
    """A cheap check (header and file length, no checksum): whether `path` looks like a whole file of `version`."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(MAGIC) + _HEAD.size)
            size = os.fstat(handle.fileno()).st_size
    except OSError:
        return False
    if not head.startswith(MAGIC) or len(head) < len(MAGIC) + _HEAD.size:
        return False
    raw_version, length, _ = _HEAD.unpack_from(head, len(MAGIC))
    return raw_version.rstrip(b"\0").decode(errors="replace") == version and size == len(head) + length


def dump(path: Path, obj: Any, version: str) -> None:
    """Pickle `obj` into `path` with a header, atomically."""
    publish.write_bytes(path, frame(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), version))


def load(path: Path, version: str, shape: Callable[[Any], bool] | None = None) -> Any:
    """The object `dump` stored at `path`; Damaged when the file is missing, truncated, corrupt or foreign, or when
    the object is not of the `shape` its reader expects (a predicate over it)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise Damaged(f"{path} is missing") from None
    except OSError as exc:
        raise Damaged(f"{path} cannot be read ({exc.strerror})") from None
    payload = unframe(data, version, path)
    try:
        obj = pickle.loads(payload)
    except Exception as exc:  # a checksum-valid payload pickled by other code: treat as foreign
        raise Damaged(f"{path} cannot be unpickled ({type(exc).__name__})") from None
    if shape is not None and not shape(obj):
        raise Damaged(f"{path} does not hold what atlas stores there")
    return obj
