"""Captures for SGLang (checked against v0.5.17 and v0.5.23): the scheduler's next batch (ScheduleBatch and its
ForwardMode), KV slot allocation in prepare_for_extend/decode, the radix cache's prefix matches and releases,
retraction under memory pressure, run_batch (CUDA graph or not) and the commit in process_batch_result."""

from __future__ import annotations

from probes.hooks import arg


def _len(x) -> int:
    """len() of a list or tensor, 0 for None (a tensor must not meet `or`: its truth value is ambiguous)."""
    return 0 if x is None else len(x)


def _num_reqs(batch) -> int:
    return len(getattr(batch, "reqs", None) or ())


def _mode(batch) -> str:
    """The ForwardMode's member name (`_name_`: Enum's `.name` is a Python-level property), else its `name`."""
    mode = getattr(batch, "forward_mode", None)
    return getattr(mode, "_name_", None) or getattr(mode, "name", str(mode))


def _next(result):
    """The batch get_next_batch_to_run chose: v0.5.17 wraps it in a NextBatchPlan (batch_to_run), older returns it."""
    return getattr(result, "batch_to_run", result)


def _is_idle(result) -> bool:
    batch = _next(result)
    return batch is None or not getattr(batch, "reqs", None)


IDLE = {"Scheduler.get_next_batch_to_run": _is_idle}

CAPTURES = {
    "Scheduler.handle_generate_request": {
        "request_ids": lambda c: [c.arg(1, "recv_req").rid],
        "num_computed_tokens": lambda c: _len(getattr(c.arg(1, "recv_req"), "input_ids", None)),
    },
    "ScheduleBatch.prepare_for_extend": {
        "kv_blocks": lambda c: int(getattr(c.self, "extend_num_tokens", 0) or 0),  # token slots (page size 1)
        "batch_size": lambda c: _num_reqs(c.self),
    },
    "ScheduleBatch.retract_decode": {
        "retracted": lambda c: [r.rid for r in c.result[0]],
        "new_token_ratio": lambda c: float(c.result[1]),
    },
    "RadixCache.match_prefix": {
        "prefix_hit_tokens": lambda c: _len(getattr(c.result, "device_indices", None)),
    },
    "RadixCache.cache_finished_req": {
        "request_ids": lambda c: [c.arg(1, "req").rid],
        "kv_blocks": lambda c: _released_slots(c),
    },
}


def _released_slots(call) -> int:
    """KV token slots a finished request hands back: v0.5.17's keyword kv_len_to_handle, else (older) the request's
    fill_ids (Req has no fill_ids at v0.5.17: the old capture read 0 there)."""
    handled = call.kwargs.get("kv_len_to_handle")
    if handled is not None:
        return int(handled)
    return _len(getattr(call.arg(1, "req"), "fill_ids", None))


def _extend_len(req) -> int:
    """Tokens a prefill chunk computes: Req.extend_range (a Range, v0.5.17 on), else Req.extend_input_len (older)."""
    extend = getattr(req, "extend_range", None)
    if extend is not None:
        return int(extend.end - extend.start)
    return int(getattr(req, "extend_input_len", 0) or 0)


def _plan_raw(args, kwargs, result, before) -> tuple:
    """The chosen batch as it is now (SGLang reuses and filters its batches in place, and output_ids grow), in one
    pass: mode, (rid, tokens this step, computed tokens) per request, the ratio and drafts."""
    batch = _next(result)
    mode = _mode(batch)
    if mode == "EXTEND":
        rows = [(r.rid, _extend_len(r), _len(getattr(r, "prefix_indices", None))) for r in batch.reqs]
    elif mode == "MIXED":
        rows = [(r.rid, _extend_len(r), len(r.origin_input_ids) + len(r.output_ids) - 1) for r in batch.reqs]
    else:
        rows = [(r.rid, 1, len(r.origin_input_ids) + len(r.output_ids) - 1) for r in batch.reqs]
    drafts = int(getattr(batch, "spec_num_draft_tokens", 0) or 0) if mode == "TARGET_VERIFY" else 0
    scheduler = args[0]
    try:  # the state after the plan (PLAN_STATE), in token slots; None for a scheduler without it
        cache = scheduler.tree_cache
        state: tuple | None = (
            len(scheduler.running_batch.reqs),
            len(scheduler.waiting_queue),
            int(scheduler.token_to_kv_pool_allocator.available_size()),
            int(cache.evictable_size()) + int(cache.protected_size()),
            int(scheduler.max_total_num_tokens),
            1,
        )
    except Exception:  # a hybrid cache answers with tuples; a version without the attributes: no state
        state = None
    return mode, rows, _ratio(scheduler), drafts, state


# After the plan: requests of the running (decode) batch, requests waiting, free token slots, slots the radix cache
# holds (evictable and locked), usable slots, tokens per unit (slots are tokens).
PLAN_STATE = ("running", "waiting", "kv_free", "kv_cached", "kv_total", "block_size")


def _ratio(scheduler) -> float:
    """The scheduler's new_token_ratio: on its NewTokenRatioTracker (v0.5.17 on), else its own attribute (older)."""
    tracker = getattr(scheduler, "new_token_ratio_tracker", None)
    return float(
        getattr(tracker, "current", None) if tracker is not None else getattr(scheduler, "new_token_ratio", 0.0)
    )


def plan_values(raw: tuple) -> dict:
    mode, rows, ratio, drafts, *state = raw
    values = {
        "batch_mode": mode,
        "batch_size": len(rows),
        "request_ids": [r[0] for r in rows],
        "num_scheduled_tokens": {r[0]: r[1] for r in rows},
        "num_computed_tokens": {r[0]: r[2] for r in rows},
        "prefix_hit_tokens": sum(r[2] for r in rows) if mode == "EXTEND" else 0,
        "new_token_ratio": ratio,
        "draft_tokens": drafts,
    }
    if state and state[0] is not None:
        values.update(zip(PLAN_STATE, state[0]))
    return values


def _commit_raw(args, kwargs, result, before) -> tuple:
    rows = [(r.rid, len(r.output_ids), r.finished()) for r in arg(args, kwargs, 1, "batch").reqs]
    return rows, int(getattr(arg(args, kwargs, 2, "result"), "num_correct_drafts", 0) or 0)


def commit_values(raw: tuple) -> dict:
    rows, accepted = raw
    return {
        "accepted_tokens": accepted,
        "request_ids": [r[0] for r in rows],
        "output_tokens": {r[0]: r[1] for r in rows},
        "finished": [r[0] for r in rows if r[2]],
    }


def _decode_raw(args, kwargs, result, before) -> int:
    return _num_reqs(args[0])


def _decode_values(num_reqs: int) -> dict:
    return {"kv_blocks": num_reqs, "batch_size": num_reqs}  # a token slot per request (page size 1)


def _run_raw(args, kwargs, result, before) -> tuple:
    batch = arg(args, kwargs, 1, "batch")
    return _mode(batch), _num_reqs(batch), "REPLAY" if getattr(result, "can_run_cuda_graph", False) else "EAGER"


def _run_values(raw: tuple) -> dict:
    return {"batch_mode": raw[0], "batch_size": raw[1], "cuda_graph": raw[2]}


# qualname -> (capture names, raw(args, kwargs, result, before) -> plain data, values(raw) -> dict offline)
LATER = {
    "ScheduleBatch.prepare_for_decode": (("kv_blocks", "batch_size"), _decode_raw, _decode_values),
    "Scheduler.run_batch": (("batch_mode", "batch_size", "cuda_graph"), _run_raw, _run_values),
    "Scheduler.get_next_batch_to_run": (
        (
            "batch_mode",
            "batch_size",
            "request_ids",
            "num_scheduled_tokens",
            "num_computed_tokens",
            "prefix_hit_tokens",
            "new_token_ratio",
            "draft_tokens",
            *PLAN_STATE,
        ),
        _plan_raw,
        plan_values,
    ),
    "Scheduler.process_batch_result": (
        ("accepted_tokens", "request_ids", "output_tokens", "finished"),
        _commit_raw,
        commit_values,
    ),
}

BEFORES: dict = {}

# Collectives: the same entry points as vLLM's (SGLang's parallel_state and custom all-reduce derive from them).
from probes.captures.vllm import CAPTURES as _VLLM  # noqa: E402

CAPTURES["GroupCoordinator.all_reduce"] = _VLLM["GroupCoordinator.all_reduce"]
CAPTURES["CustomAllreduce.custom_all_reduce"] = _VLLM["CustomAllreduce.custom_all_reduce"]
