"""Shard writer: bounded buffer (drop and count), frames (chunking, torn ends, values marshal cannot take), stats
only when something changed; guard: git blob ids."""

from __future__ import annotations

import enum
import subprocess
import time

import pytest

from probes.guard import FileGuard, base_version, blob_id
from probes.records import LENGTH, encode_frame, frame, read_frames
from probes.schema import SCHEMA_VERSION
from probes.shard import Shard


def _mark(i: int) -> dict:
    return {"kind": "mark", "v": SCHEMA_VERSION, "i": i}


@pytest.mark.parametrize("capacity, added, kept, dropped", [(3, 5, 3, 2), (10, 4, 4, 0), (0, 2, 0, 2)])
def test_buffer_is_bounded_and_counts_drops(tmp_path, capacity, added, kept, dropped):
    shard = Shard(str(tmp_path / "s.shard"), capacity=capacity)
    for i in range(added):
        shard.add(_mark(i))
    shard.flush()
    rows, torn = read_frames((tmp_path / "s.shard").read_bytes())
    assert torn == 0 and [r["i"] for r in rows if r["kind"] == "mark"] == list(range(kept))
    assert rows[-1]["kind"] == "stats" and rows[-1]["num_dropped"] == dropped and rows[-1]["num_events"] == kept
    assert all(r["v"] == SCHEMA_VERSION for r in rows)


@pytest.mark.parametrize("records, per_frame, frames", [(0, 4, 1), (3, 4, 2), (8, 4, 3), (9, 4, 4)])
def test_a_flush_writes_frames_of_bounded_size_and_stats_last(tmp_path, records, per_frame, frames):
    shard = Shard(str(tmp_path / "s.shard"))
    shard.frame_records = per_frame
    for i in range(records):
        shard.add(_mark(i))
    shard.flush()
    data, at, sizes = (tmp_path / "s.shard").read_bytes(), 0, []
    while at < len(data):
        (size,) = LENGTH.unpack_from(data, at)
        sizes.append(read_frames(data[at : at + LENGTH.size + size])[0])
        at += LENGTH.size + size
    assert len(sizes) == frames and [len(f) for f in sizes[:-1]] == [
        min(per_frame, records - i) for i in range(0, records, per_frame)
    ]
    assert [r["kind"] for r in sizes[-1]] == ["stats"]


def test_stats_are_written_again_only_when_they_change(tmp_path):
    shard = Shard(str(tmp_path / "s.shard"))
    shard.flush()
    size = (tmp_path / "s.shard").stat().st_size
    shard.flush()  # nothing happened: nothing written (an idle or 'off' process costs no writes)
    assert (tmp_path / "s.shard").stat().st_size == size
    shard.add(_mark(0))
    shard.flush()
    rows, _ = read_frames((tmp_path / "s.shard").read_bytes())
    assert [r["kind"] for r in rows] == ["stats", "mark", "stats"] and rows[-1]["num_events"] == 1


def test_enough_waiting_rows_wake_the_flusher_before_its_interval(tmp_path):
    shard = Shard(str(tmp_path / "s.shard"), interval_s=3600)
    shard.flush_rows = 4
    shard.start()
    for i in range(6):
        shard.add(_mark(i))
    deadline, rows = time.monotonic() + 10, []
    while time.monotonic() < deadline and len(rows) < 5:
        time.sleep(0.01)
        rows = read_frames((tmp_path / "s.shard").read_bytes())[0] if (tmp_path / "s.shard").exists() else []
    shard.close()
    assert [r["i"] for r in rows if r["kind"] == "mark"][:5] == [0, 1, 2, 3, 4]
    assert all(r["kind"] == "mark" for r in rows)  # no stats: not a full flush


@pytest.mark.parametrize("cut", [1, 3, 4, 10, -1])
def test_a_torn_last_frame_is_skipped_and_counted(cut):
    whole = encode_frame([_mark(0), ("c", 1, 2)]) + encode_frame([_mark(1)])
    first = len(encode_frame([_mark(0), ("c", 1, 2)]))
    rows, torn = read_frames(whole[: first + cut] if cut > 0 else whole[:cut])
    assert torn == 1 and rows == [_mark(0), ("c", 1, 2)]


class _Mode(enum.IntEnum):
    FULL = 2


class _Name(str):
    pass


@pytest.mark.parametrize(
    "value, written",
    [
        (_Mode.FULL, 2),  # as JSON writes an int subclass: its value
        (_Name("req-1"), "req-1"),
        ({"a": [_Mode.FULL, (1, "x")]}, {"a": [2, (1, "x")]}),
        ({_Mode.FULL: _Name("v")}, {"2": "v"}),
        (enum.Enum("E", "A").A, "E.A"),  # anything else: str(), as JSON's default=str
    ],
)
def test_values_marshal_cannot_take_are_written_as_json_would(value, written):
    data, converted = frame([("c", 1), [1, value], {"x": 2}])
    records, torn = read_frames(data)
    assert torn == 0 and converted == 1 and records == [("c", 1), [1, written], {"x": 2}]


def test_converted_records_are_counted_in_the_stats(tmp_path):
    shard = Shard(str(tmp_path / "s.shard"))
    shard.add({"kind": "mark", "v": SCHEMA_VERSION, "mode": _Mode.FULL})
    shard.add(_mark(1))
    shard.flush()
    rows, _ = read_frames((tmp_path / "s.shard").read_bytes())
    assert rows[0]["mode"] == 2 and rows[-1]["converted_records"] == 1


def test_blob_id_is_gits(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("print('hi')\n")
    expected = subprocess.run(["git", "hash-object", str(f)], capture_output=True, text=True).stdout.strip()
    assert blob_id(str(f)) == expected


@pytest.mark.parametrize(
    "package, root, filename, path",
    [
        ("vllm", "", "/venv/lib/site-packages/vllm/v1/core/x.py", "vllm/v1/core/x.py"),
        ("sglang", "python", "/s/site_sgl/sglang/srt/managers/scheduler.py", "python/sglang/srt/managers/scheduler.py"),
        ("vllm", "", "/usr/lib/python3.11/threading.py", "/usr/lib/python3.11/threading.py"),
    ],
)
def test_guard_maps_running_files_to_repository_paths(package, root, filename, path):
    assert FileGuard(package, root, {}).locate(filename) == (path, False)


@pytest.mark.parametrize("version, base", [("0.32.0+cpu", "0.32.0"), ("v0.5.17", "0.5.17"), ("0.26.0", "0.26.0")])
def test_base_version(version, base):
    assert base_version(version) == base
