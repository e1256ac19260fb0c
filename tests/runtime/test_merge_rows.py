"""Merge of schema-3 shards (marshal frames of compact rows): rows expanded with their hook and file records and the
offline halves of the captures, aggregated calls folded, torn frames and unreadable rows counted, schema-2 JSON
shards read beside them."""

from __future__ import annotations

import json

import pytest

from atlas.runtime.merge import merge
from probes.records import encode_frame
from probes.schema import SCHEMA_VERSION

PID, OFFSET = 7, 1_000_000  # wall clock = monotonic + OFFSET
PROCESS = {
    "kind": "process",
    "v": SCHEMA_VERSION,
    "pid": PID,
    "proc": "EngineCore",
    "framework": "vllm",
    "commit": "c" * 40,
    "engine_version": "0.26.0",
    "version_at_pin": True,
    "hooks": [],
    "ts_ns": 5 + OFFSET,
    "mono_ns": 5,
}
FILE = {
    "kind": "file",
    "v": SCHEMA_VERSION,
    "pid": PID,
    "file": "/site/vllm/v1/engine/core.py",
    "path": "vllm/v1/engine/core.py",
    "at_pin": True,
}


def _hook(index: int, qualname: str, fields=(), later=None, aggregate=False) -> dict:
    return {
        "kind": "hook",
        "v": SCHEMA_VERSION,
        "pid": PID,
        "index": index,
        "symbol": f"vllm.x.{qualname}",
        "role": "plan",
        "path": "vllm/x.py",
        "line": 10 + index,
        "end_line": 20,
        "run_line": 10 + index,
        "at_pin": True,
        "fields": list(fields),
        "later": later,
        "aggregate": aggregate,
    }


def _call(index: int, values, seq: int = 1, mono: int = 100, file: str = FILE["file"]) -> tuple:
    return ("c", index, seq, 42, mono, 9, 3, file, 77, values)


PLAN_RAW = ({"a": 1, "b": 1}, [], ["a", "b"], [40, 50], [3, 4], [None, ([7, 8],)], False, 0, [])

CALLS = [  # (hook record, row, expected values, expected request ids)
    (
        _hook(0, "Scheduler.add_request", fields=("request_ids", "num_computed_tokens")),
        _call(0, [["a"], 64]),
        {"num_computed_tokens": 64},
        ["a"],
    ),
    (_hook(0, "GPUModelRunner.sample_tokens"), _call(0, None), {}, None),
    (
        _hook(0, "Scheduler.schedule", later=["Scheduler.schedule", ["batch_mode", "kv_blocks", "request_ids"]]),
        _call(0, PLAN_RAW),
        {"batch_mode": "DECODE", "kv_blocks": 2},
        ["a", "b"],
    ),
    (
        _hook(0, "Scheduler.schedule", fields=("fail",), later=["Scheduler.schedule", ["num_computed_tokens"]]),
        _call(0, [None, PLAN_RAW]),
        {"fail": None, "num_computed_tokens": {"a": 40, "b": 50}},
        None,
    ),
    (
        _hook(
            0,
            "GPUModelRunner._determine_batch_execution_and_padding",
            later=["GPUModelRunner._determine_batch_execution_and_padding", ["cuda_graph"]],
        ),
        _call(0, ("FULL", 16)),
        {"cuda_graph": "FULL"},
        None,
    ),
]


def _write(folder, *frames: list, tail: bytes = b""):
    shards = folder / "shards"
    shards.mkdir(parents=True, exist_ok=True)
    (shards / f"EngineCore-{PID}.shard").write_bytes(b"".join(encode_frame(f) for f in frames) + tail)
    return shards


@pytest.mark.parametrize("hook, row, values, request_ids", CALLS)
def test_a_call_row_expands_to_the_call_record(tmp_path, hook, row, values, request_ids):
    merged = merge(_write(tmp_path, [hook, FILE, PROCESS], [row]))
    (call,) = merged.events
    assert merged.num_torn == 0 and call["values"] == values and call.get("request_ids") == request_ids
    assert {
        k: call[k]
        for k in (
            "kind",
            "pid",
            "seq",
            "tid",
            "symbol",
            "line",
            "run_line",
            "mono_ns",
            "ts_ns",
            "dur_ns",
            "step",
            "call_path",
            "call_line",
            "call_at_pin",
        )
    } == {
        "kind": "call",
        "pid": PID,
        "seq": 1,
        "tid": 42,
        "symbol": hook["symbol"],
        "line": 10,
        "run_line": 10,
        "mono_ns": 100,
        "ts_ns": 100 + OFFSET,
        "dur_ns": 9,
        "step": 3,
        "call_path": "vllm/v1/engine/core.py",
        "call_line": 77,
        "call_at_pin": True,
    }


AGGREGATES = [  # (hook record, calls of one row, expected values, request ids)
    (
        _hook(
            1,
            "KVCacheManager.allocate_slots",
            later=["KVCacheManager.allocate_slots", ["kv_blocks", "preempted"]],
            aggregate=True,
        ),
        [(100, 5, 2), (110, 5, -1), (120, 6, 3)],
        {"kv_blocks": 5, "preempted": 1},
        None,
    ),
    (
        _hook(1, "KVCacheManager.free", fields=("kv_blocks", "request_ids"), aggregate=True),
        [(100, 5, [4, ["a"]]), (110, 5, [6, ["b"]]), (120, 6, [0, []])],
        {"kv_blocks": 10},
        ["a", "b"],
    ),
    (
        _hook(1, "GroupCoordinator.all_reduce", fields=("bytes", "collective"), aggregate=True),
        [(100, 5, [64, "all_reduce:tp"]), (110, 5, [64, "all_reduce:tp"]), (120, 6, [32, "all_reduce:tp"])],
        {"bytes": 160, "collective": "all_reduce:tp"},
        None,
    ),
    (
        _hook(1, "GPUModelRunner.sample_tokens", aggregate=True),
        [(100, 5, None), (110, 5, None), (120, 6, None)],
        {},
        None,
    ),
]


@pytest.mark.parametrize("hook, calls, values, request_ids", AGGREGATES)
def test_an_aggregated_row_folds_its_calls(tmp_path, hook, calls, values, request_ids):
    merged = merge(_write(tmp_path, [hook, PROCESS], [("a", 1, 4, calls)]))
    (agg,) = merged.events
    assert agg["values"] == values and agg.get("request_ids") == request_ids
    assert {k: agg[k] for k in ("kind", "pid", "symbol", "step", "count", "dur_ns", "mono_ns", "ts_ns", "end_ns")} == {
        "kind": "agg",
        "pid": PID,
        "symbol": hook["symbol"],
        "step": 4,
        "count": 3,
        "dur_ns": 16,
        "mono_ns": 100,
        "ts_ns": 100 + OFFSET,
        "end_ns": 126,
    }


def test_rows_of_one_step_in_two_rows_are_joined(tmp_path):
    hook = AGGREGATES[0][0]
    merged = merge(_write(tmp_path, [hook, PROCESS], [("a", 1, 4, [(100, 5, 2)])], [("a", 1, 4, [(200, 5, -1)])]))
    (agg,) = merged.events
    assert (agg["count"], agg["values"], agg["end_ns"]) == (2, {"kv_blocks": 2, "preempted": 1}, 205)


@pytest.mark.parametrize(
    "frames, tail, events, torn",
    [
        ([[CALLS[0][0], PROCESS], [_call(0, [["a"], 1])]], b"\x40\x00\x00\x00\xdb", 1, 1),  # a frame cut by a kill
        ([[CALLS[0][0], PROCESS], [_call(0, [["a"], 1]), _call(5, None, seq=2)]], b"", 1, 1),  # a row of no hook
        ([[PROCESS], [_call(0, None)]], b"", 0, 1),  # its hook record was never written
    ],
)
def test_what_cannot_be_read_is_counted_not_raised(tmp_path, frames, tail, events, torn):
    merged = merge(_write(tmp_path, *frames, tail=tail))
    assert (len(merged.events), merged.num_torn) == (events, torn)


def test_values_read_as_a_json_shard_would_give_them(tmp_path):
    """Tuples come back as lists and non-string keys as strings: the records are the same whatever the format."""
    hook = _hook(0, "X.y", fields=("pair", "by_id"))
    merged = merge(_write(tmp_path, [hook, PROCESS], [_call(0, [(1, 2), {3: "x"}])]))
    assert merged.events[0]["values"] == {"pair": [1, 2], "by_id": {"3": "x"}}


def test_schema_2_json_shards_merge_beside_schema_3(tmp_path):
    shards = _write(tmp_path, [CALLS[0][0], FILE, PROCESS], [CALLS[0][1]])
    old = [
        {
            "kind": "process",
            "v": 2,
            "pid": 8,
            "proc": "Worker",
            "framework": "vllm",
            "commit": "c" * 40,
            "engine_version": "0.26.0",
            "version_at_pin": True,
            "hooks": [],
            "ts_ns": 10,
            "mono_ns": 0,
        },
        {
            "kind": "hook",
            "v": 2,
            "pid": 8,
            "index": 0,
            "symbol": "vllm.x.Y.z",
            "role": "execute",
            "path": "x.py",
            "line": 1,
            "end_line": 2,
            "run_line": 1,
            "at_pin": True,
        },
        ["c", 8, 0, 1, 8, 50, 3, 1, "x.py", 9, True, {"n": 1}, None],
    ]
    (shards / "Worker-8.jsonl").write_text("\n".join(json.dumps(r) for r in old) + "\n")
    merged = merge(shards)
    assert [(e["pid"], e["symbol"], e["ts_ns"]) for e in merged.events] == [
        (8, "vllm.x.Y.z", 60),
        (PID, CALLS[0][0]["symbol"], 100 + OFFSET),
    ]
    assert merged.num_torn == 0 and len(merged.processes) == 2
