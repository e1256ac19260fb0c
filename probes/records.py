"""Shard frames, written by the flusher and read back by atlas.runtime.merge: a 4-byte length, then one `marshal` of a
list of records (probes.schema). marshal runs in C over the compact rows the hot path leaves, so writing costs no
Python work per record; it takes only plain data, and anything else is written as JSON would write it."""

from __future__ import annotations

import marshal
import struct

from probes.schema import MARSHAL_VERSION, SCHEMA_VERSION

CALL, AGG = "c", "a"  # the first item of a hot-path row
LENGTH = struct.Struct("<I")
_PLAIN = (str, int, float, bool, type(None))


def frame(records: list) -> tuple[bytes, int]:
    """One frame, and how many of its records held values marshal cannot take (an enum, a numpy number, an engine
    object): those records are written as JSON's default=str would write them (int and str subclasses as their
    value, sequences as lists, others as str()), a slow path the stats count as converted_records."""
    try:
        data, converted = marshal.dumps(records, MARSHAL_VERSION), 0
    except ValueError:
        fine = [_marshals(r) for r in records]
        converted = fine.count(False)
        data = marshal.dumps([r if ok else plain(r) for r, ok in zip(records, fine)], MARSHAL_VERSION)
    return LENGTH.pack(len(data)) + data, converted


def encode_frame(records: list) -> bytes:
    return frame(records)[0]


def _marshals(record) -> bool:
    try:
        marshal.dumps(record, MARSHAL_VERSION)
    except ValueError:
        return False
    return True


def plain(value):
    """`value` with every container and leaf of an exact marshal-able type."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if isinstance(value, dict):
        return {_key(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value] if kind is not tuple else tuple(plain(v) for v in value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str.__str__(value)
    return str(value)


def _key(key):
    return key if type(key) in _PLAIN else str(key)


def read_frames(data: bytes) -> tuple[list, int]:
    """Every record of every complete frame, and how many frames could not be read (a torn last frame after a
    kill mid-write: counted, never raised)."""
    records, at, end = [], 0, len(data)
    while at < end:
        if at + LENGTH.size > end:
            return records, 1
        (size,) = LENGTH.unpack_from(data, at)
        body = data[at + LENGTH.size : at + LENGTH.size + size]
        at += LENGTH.size + size
        if len(body) < size:
            return records, 1
        try:
            chunk = marshal.loads(body)
        except (ValueError, EOFError, TypeError):
            return records, 1
        if not isinstance(chunk, list):
            return records, 1
        try:  # rows packed on the hot path (control option pack=1) are marshal bytes inside the frame
            records.extend(marshal.loads(r) if type(r) is bytes else r for r in chunk)
        except (ValueError, EOFError, TypeError):
            return records, 1
    return records, 0


def record(kind: str, pid: int, **fields: object) -> dict:
    """A record of one of probes.schema.KINDS: its header (kind, schema version, process) and its fields. Every record
    the probes write is made here."""
    return {"kind": kind, "v": SCHEMA_VERSION, "pid": pid, **fields}


def hook_record(pid: int, hook) -> dict:
    """The static fields of an installed hook, once per process, before its first row."""
    later = [hook.entry["qualname"], sorted(hook.later[0])] if hook.later else None
    return record(
        "hook",
        pid,
        index=hook.index,
        symbol=hook.symbol,
        role=hook.role,
        path=hook.path,
        line=hook.line,
        end_line=hook.end_line,
        run_line=hook.run_line,
        at_pin=hook.at_pin,
        fields=list(hook.captures),
        later=later,
        aggregate=hook.is_aggregate,
    )


def file_record(pid: int, filename: str, guard) -> dict:
    path, at_pin = guard.locate(filename)
    return record("file", pid, file=filename, path=path, at_pin=at_pin)
