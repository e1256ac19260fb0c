"""Captures on stand-in objects shaped like the engines' (the real objects are exercised by the engine test): the
engine-thread half (raw plain data) and the offline half (values) of the plan and commit captures together."""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from probes.captures import sglang, vllm
from probes.hooks import Call
from probes.records import encode_frame, read_frames


def _later(module, qualname: str, call: Call) -> dict:
    """values(raw(...)) of a hooked call, the raw bundle through a shard frame and back as the merge reads it."""
    _, raw, values = module.LATER[qualname]
    (bundle,), torn = read_frames(encode_frame([raw(call.args, call.kwargs, call.result, call.before)]))
    assert torn == 0
    return values(bundle)


def _plan(new, cached, spec=None, outputs=None):
    """new/cached: {rid: (computed before, scheduled, prompt len)}; outputs: num_output_tokens of the cached
    requests (vLLM's CachedRequestData field; None: a version without it)."""
    out = NS(
        scheduled_new_reqs=[NS(req_id=r, num_computed_tokens=c, block_ids=([0] * 4,)) for r, (c, _, _) in new.items()],
        scheduled_cached_reqs=NS(
            req_ids=list(cached),
            num_computed_tokens=[c for c, _, _ in cached.values()],
            **({} if outputs is None else {"num_output_tokens": outputs}),
        ),
        num_scheduled_tokens={r: s for r, (_, s, _) in {**new, **cached}.items()},
        scheduled_spec_decode_tokens=spec or {},
    )
    return out


@pytest.mark.parametrize(
    "new, cached, spec, outputs, mode",
    [
        ({"a": (0, 64, 64)}, {}, None, None, "EXTEND"),
        ({}, {"a": (64, 1, 64), "b": (70, 1, 64)}, None, None, "DECODE"),
        ({}, {"a": (64, 1, 64), "b": (70, 1, 64)}, None, [1, 7], "DECODE"),
        ({"c": (0, 32, 200)}, {"a": (64, 1, 64)}, None, None, "MIXED"),
        ({}, {"a": (128, 64, 400)}, None, None, "EXTEND"),  # a later chunk of a chunked prefill
        ({}, {"a": (128, 64, 400)}, None, [0], "EXTEND"),
        ({}, {"a": (199, 1, 200)}, None, [0], "EXTEND"),  # a last chunk of one token: no output token yet
        ({}, {"a": (199, 1, 200), "b": (300, 1, 64)}, None, [0, 5], "MIXED"),
        ({}, {"a": (64, 3, 64)}, {"a": [5, 6]}, None, "TARGET_VERIFY"),
        ({}, {}, None, None, "IDLE"),
    ],
)
def test_vllm_batch_mode(new, cached, spec, outputs, mode):
    assert (
        _later(vllm, "Scheduler.schedule", Call((NS(),), {}, _plan(new, cached, spec, outputs), None))["batch_mode"]
        == mode
    )


class _Range(tuple):  # stands in for sglang.srt.utils.common.Range (a NamedTuple start, end)
    start = property(lambda self: self[0])
    end = property(lambda self: self[1])


def _sglang_req(rid, shape, prompt=100, outputs=0, prefix=0):
    req = NS(rid=rid, origin_input_ids=[0] * prompt, output_ids=[0] * outputs, prefix_indices=[0] * prefix)
    if shape == "v0.5.17":  # Req.extend_range, set by the scheduler before the batch is returned
        req.extend_range = _Range((prefix, prompt))
    elif shape == "older":
        req.extend_input_len = prompt - prefix
    return req


@pytest.mark.parametrize(
    "mode, shape, scheduled, computed, prefix_hits",
    [
        ("EXTEND", "v0.5.17", {"a": 60, "b": 100}, {"a": 40, "b": 0}, 40),
        ("EXTEND", "older", {"a": 60, "b": 100}, {"a": 40, "b": 0}, 40),
        ("EXTEND", "neither", {"a": 0, "b": 0}, {"a": 40, "b": 0}, 40),  # a Req without either: 0, never a raise
        ("DECODE", "v0.5.17", {"a": 1, "b": 1}, {"a": 99, "b": 99}, 0),
    ],
)
def test_sglang_plan_snapshot(mode, shape, scheduled, computed, prefix_hits):
    reqs = [_sglang_req("a", shape, prefix=40), _sglang_req("b", shape)]
    batch = NS(reqs=reqs, forward_mode=NS(name=mode))
    plan = _later(
        sglang, "Scheduler.get_next_batch_to_run", Call((NS(new_token_ratio=0.5),), {}, NS(batch_to_run=batch), None)
    )
    assert (
        plan["batch_mode"],
        plan["num_scheduled_tokens"],
        plan["num_computed_tokens"],
        plan["prefix_hit_tokens"],
        plan["request_ids"],
    ) == (mode, scheduled, computed, prefix_hits, ["a", "b"])


@pytest.mark.parametrize(
    "kwargs, req, slots",
    [
        ({"kv_len_to_handle": 355}, NS(rid="a"), 355),  # v0.5.17: cache_finished_req(req, kv_len_to_handle=...)
        ({}, NS(rid="a", fill_ids=[0] * 300), 300),  # older versions: Req.fill_ids
        ({}, NS(rid="a"), 0),
    ],
)
def test_sglang_released_slots(kwargs, req, slots):
    kv_blocks = sglang.CAPTURES["RadixCache.cache_finished_req"]["kv_blocks"]
    assert kv_blocks(Call((NS(), req), kwargs, None, None)) == slots


@pytest.mark.parametrize(
    "scheduler, ratio",
    [
        (NS(new_token_ratio_tracker=NS(current=0.098)), 0.098),  # v0.5.17: NewTokenRatioTracker.current
        (NS(new_token_ratio=0.5), 0.5),  # older versions: Scheduler.new_token_ratio
        (NS(), 0.0),
    ],
)
def test_sglang_plan_new_token_ratio(scheduler, ratio):
    batch = NS(reqs=[_sglang_req("a", "v0.5.17")], forward_mode=NS(name="DECODE"))
    plan = _later(sglang, "Scheduler.get_next_batch_to_run", Call((scheduler,), {}, NS(batch_to_run=batch), None))
    assert plan["new_token_ratio"] == ratio


def test_vllm_plan_counts_a_resumed_requests_blocks_when_it_is_taken():
    """V1's model runner adopts a resumed request's new block lists and extends them in later steps, before the
    flusher writes the plan: they are counted on the engine thread (other requests' lists are only read)."""
    lists = ([1, 2, 3],)
    out = NS(
        num_scheduled_tokens={"a": 1},
        scheduled_new_reqs=[],
        scheduled_spec_decode_tokens={},
        scheduled_cached_reqs=NS(req_ids=["a"], num_computed_tokens=[64], new_block_ids=[lists], resumed_req_ids={"a"}),
    )
    raw = vllm.LATER["Scheduler.schedule"][1]((NS(),), {}, out, None)
    lists[0].extend([4, 5])  # a later step's blocks
    assert vllm.plan_values(read_frames(encode_frame([raw]))[0][0])["kv_blocks"] == 3


@pytest.mark.parametrize(
    "emitted",
    [
        (["a", "b"], [2, 1], ["b"]),  # as taken now: the finished requests' ids
        (["a", "b"], [2, 1], [False, True]),  # older shards: a flag per request
        [("a", 2, False), ("b", 1, True)],  # older still: rows
    ],
)
def test_vllm_commit_reads_every_shape_of_emitted_outputs(emitted):
    raw = ({"a": 1, "b": 1}, [], ["a", "b"], [10, 20], {}, ["a", "b"], 2, emitted)
    values = vllm.commit_values(raw)
    assert (values["new_tokens"], values["finished"]) == ({"a": 2, "b": 1}, ["b"])


def test_vllm_plan_takes_the_scheduler_state_after_the_plan():
    pool = NS(free_block_queue=NS(num_free_blocks=90), cached_block_hash_to_block={1: 0, 2: 0}, num_gpu_blocks=101)
    scheduler = NS(running=[1, 2], waiting=[3], block_size=16, kv_cache_manager=NS(block_pool=pool))
    plan = _plan({"c": (0, 32, 200)}, {"a": (64, 1, 64)})
    plan.scheduled_cached_reqs.new_block_ids = [([7],)]
    values = _later(vllm, "Scheduler.schedule", Call((scheduler,), {}, plan, None))
    assert (values["running"], values["waiting"], values["kv_free"], values["kv_cached"]) == (2, 1, 90, 2)
    assert (values["kv_total"], values["block_size"]) == (100, 16)  # block 0 is vLLM's null block
    assert values["new_blocks"] == {"c": 4, "a": 1} and values["kv_blocks"] == 5


def test_vllm_plan_without_the_state_still_records_the_plan():
    values = _later(vllm, "Scheduler.schedule", Call((NS(),), {}, _plan({"a": (0, 64, 64)}, {}), None))
    assert values["batch_mode"] == "EXTEND" and "running" not in values


def test_sglang_plan_takes_the_scheduler_state_after_the_plan():
    req = NS(rid="r", extend_range=NS(start=0, end=8), prefix_indices=[0, 1], origin_input_ids=[1] * 10, output_ids=[])
    scheduler = NS(
        running_batch=NS(reqs=[1, 2, 3]),
        waiting_queue=[1],
        token_to_kv_pool_allocator=NS(available_size=lambda: 500),
        tree_cache=NS(evictable_size=lambda: 20, protected_size=lambda: 4),
        max_total_num_tokens=1000,
        new_token_token_ratio=0.5,
    )
    batch = NS(forward_mode=NS(_name_="EXTEND"), reqs=[req])
    values = _later(sglang, "Scheduler.get_next_batch_to_run", Call((scheduler,), {}, batch, None))
    assert [values[k] for k in ("running", "waiting", "kv_free", "kv_cached", "kv_total")] == [3, 1, 500, 24, 1000]
    hybrid = NS(**{**vars(scheduler), "tree_cache": NS(evictable_size=lambda: (1, 2), protected_size=lambda: 0)})
    assert "running" not in _later(sglang, "Scheduler.get_next_batch_to_run", Call((hybrid,), {}, batch, None))
