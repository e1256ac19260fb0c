"""What the records say, end to end: stand-in engines shaped like vLLM's and SGLang's run under the probe with the
built-in hooks, their shards are merged as `atlas trace` merges them, and every event matches values worked out by
hand from the stand-ins (tests/probes/engines.py)."""

from __future__ import annotations

import pytest

from atlas.runtime.merge import merge
from tests.probes.engines import run

VLLM = {  # (hook, step) -> [(count for aggregates else None, values, request ids)], in call order
    ("Scheduler.add_request", 0): [
        (None, {"num_computed_tokens": 24}, ["a"]),
        (None, {"num_computed_tokens": 20}, ["b"]),
    ],
    ("KVCacheManager.get_computed_blocks", 0): [(2, {"prefix_hit_tokens": 16, "kv_blocks": 1}, ["a"])],
    ("Scheduler.schedule", 1): [
        (
            None,
            {
                "batch_size": 2,
                "num_scheduled_tokens": {"a": 8, "b": 4},
                "num_computed_tokens": {"a": 0, "b": 16},
                "batch_mode": "EXTEND",
                "preempted": [],
                "draft_tokens": 0,
                "kv_blocks": 3,
                "new_blocks": {"a": 2, "b": 1},
            },
            ["a", "b"],
        )
    ],
    ("BlockPool.get_new_blocks", 1): [(1, {"kv_blocks": 2}, None)],  # b found no room: no blocks
    ("GPUModelRunner.execute_model", 1): [(None, {"num_scheduled_tokens": 12, "batch_size": 2}, None)],
    ("GPUModelRunner._determine_batch_execution_and_padding", 1): [
        (None, {"cuda_graph": "FULL", "num_scheduled_tokens": 12, "padded_tokens": 16}, None)
    ],
    ("GPUModelRunner.sample_tokens", 1): [(None, {}, None)],
    ("Scheduler.update_from_output", 1): [
        (
            None,
            {
                "batch_size": 2,
                "new_tokens": {"a": 1, "b": 1},
                "finished": [],
                "num_computed_tokens": {"a": 8, "b": 20},
                "draft_tokens": 0,
                "accepted_tokens": 0,
            },
            ["a", "b"],
        )
    ],
    ("Scheduler.schedule", 2): [
        (
            None,
            {
                "batch_size": 2,
                "num_scheduled_tokens": {"a": 3, "b": 1},
                "num_computed_tokens": {"a": 8, "b": 20},
                "batch_mode": "TARGET_VERIFY",
                "preempted": ["b"],
                "draft_tokens": 2,
                "kv_blocks": 1,
                "new_blocks": {"b": 1},
            },
            ["a", "b"],
        )
    ],
    ("BlockPool.get_new_blocks", 2): [(1, {"kv_blocks": 1}, None)],
    ("GPUModelRunner.execute_model", 2): [(None, {"num_scheduled_tokens": 4, "batch_size": 2}, None)],
    ("GPUModelRunner._determine_batch_execution_and_padding", 2): [
        (None, {"cuda_graph": "FULL", "num_scheduled_tokens": 4, "padded_tokens": 16}, None)
    ],
    ("GPUModelRunner.sample_tokens", 2): [(None, {}, None)],
    # a's two drafts: 2 tokens sampled, 1 draft accepted, 1 rejected; b finished (an IntEnum finish reason)
    ("Scheduler.update_from_output", 2): [
        (
            None,
            {
                "batch_size": 2,
                "new_tokens": {"a": 2, "b": 1},
                "finished": ["b"],
                "num_computed_tokens": {"a": 10, "b": 21},
                "draft_tokens": 2,
                "accepted_tokens": 1,
            },
            ["a", "b"],
        )
    ],
    ("Scheduler.schedule", 3): [
        (
            None,
            {
                "batch_size": 1,
                "num_scheduled_tokens": {"a": 1},
                "num_computed_tokens": {"a": 10},
                "batch_mode": "DECODE",
                "preempted": [],
                "draft_tokens": 0,
                "kv_blocks": 0,
                "new_blocks": {},
            },
            ["a"],
        )
    ],
    ("GPUModelRunner.execute_model", 3): [(None, {"num_scheduled_tokens": 1, "batch_size": 1}, None)],
    ("GPUModelRunner._determine_batch_execution_and_padding", 3): [
        (None, {"cuda_graph": "FULL", "num_scheduled_tokens": 1, "padded_tokens": 16}, None)
    ],
    ("GPUModelRunner.sample_tokens", 3): [(None, {}, None)],
    ("Scheduler.update_from_output", 3): [
        (
            None,
            {
                "batch_size": 1,
                "new_tokens": {"a": 1},
                "finished": [],
                "num_computed_tokens": {"a": 11},
                "draft_tokens": 0,
                "accepted_tokens": 0,
            },
            ["a"],
        )
    ],
    ("KVCacheManager.free", 3): [(1, {"kv_blocks": 3}, ["b"])],
}

SGLANG = {
    ("Scheduler.handle_generate_request", 0): [
        (None, {"num_computed_tokens": 10}, ["a"]),
        (None, {"num_computed_tokens": 6}, ["b"]),
    ],
    ("RadixCache.match_prefix", 1): [(2, {"prefix_hit_tokens": 4}, None)],
    ("Scheduler.get_next_batch_to_run", 1): [
        (
            None,
            {
                "batch_mode": "EXTEND",
                "batch_size": 2,
                "num_scheduled_tokens": {"a": 6, "b": 6},
                "num_computed_tokens": {"a": 4, "b": 0},
                "prefix_hit_tokens": 4,
                "new_token_ratio": 0.7,
                "draft_tokens": 0,
            },
            ["a", "b"],
        )
    ],
    ("ScheduleBatch.prepare_for_extend", 1): [(None, {"kv_blocks": 12, "batch_size": 2}, None)],
    ("Scheduler.run_batch", 1): [(None, {"batch_mode": "EXTEND", "batch_size": 2, "cuda_graph": "EAGER"}, None)],
    ("Scheduler.process_batch_result", 1): [
        (None, {"accepted_tokens": 0, "output_tokens": {"a": 1, "b": 1}, "finished": []}, ["a", "b"])
    ],
    # the idle poll in between leaves no record and no step
    ("Scheduler.get_next_batch_to_run", 2): [
        (
            None,
            {
                "batch_mode": "DECODE",
                "batch_size": 2,
                "num_scheduled_tokens": {"a": 1, "b": 1},
                "num_computed_tokens": {"a": 10, "b": 6},
                "prefix_hit_tokens": 0,
                "new_token_ratio": 0.7,
                "draft_tokens": 0,
            },
            ["a", "b"],
        )
    ],
    ("ScheduleBatch.prepare_for_decode", 2): [(None, {"kv_blocks": 2, "batch_size": 2}, None)],
    ("Scheduler.run_batch", 2): [(None, {"batch_mode": "DECODE", "batch_size": 2, "cuda_graph": "REPLAY"}, None)],
    ("Scheduler.process_batch_result", 2): [
        (None, {"accepted_tokens": 0, "output_tokens": {"a": 2, "b": 2}, "finished": ["a"]}, ["a", "b"])
    ],
    ("RadixCache.cache_finished_req", 2): [(1, {"kv_blocks": 12}, ["a"])],
}


@pytest.mark.parametrize("framework, expected", [("vllm", VLLM), ("sglang", SGLANG)])
def test_every_event_says_what_the_engine_did(tmp_path, framework, expected):
    merged = merge(run(tmp_path, framework) / "shards")
    found: dict = {}
    for e in sorted(merged.events, key=lambda e: (e["step"], e.get("seq", 0))):
        found.setdefault((e["symbol"].split(".", 1)[1], e["step"]), []).append(
            (e.get("count"), e["values"], e.get("request_ids"))
        )
    assert found == expected
    assert merged.num_torn == 0 and all(e["kind"] == ("agg" if e.get("count") else "call") for e in merged.events)
    (stats,) = merged.stats.values()
    assert stats["num_dropped"] == 0 and stats["capture_errors"] == {} and stats["num_events"] == len(merged.events) + 1
    assert stats["converted_records"] == 0  # every value was plain data: no record took the slow path
