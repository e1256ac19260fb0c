"""Captures for SGLang (checked against v0.5.17 and v0.5.23): the scheduler's next batch (ScheduleBatch and its
ForwardMode), KV slot allocation in prepare_for_extend/decode, the radix cache's prefix matches and releases,
retraction under memory pressure, run_batch (CUDA graph or not) and the commit in process_batch_result."""

from __future__ import annotations


def _len(x) -> int:
    """len() of a list or tensor, 0 for None (a tensor must not meet `or`: its truth value is ambiguous)."""
    return 0 if x is None else len(x)


def _reqs(batch) -> list:
    return list(getattr(batch, "reqs", None) or ())


def _mode(batch) -> str:
    mode = getattr(batch, "forward_mode", None)
    return getattr(mode, "name", str(mode))


def _accepted(call) -> int:
    result = call.arg(2, "result")
    return int(getattr(result, "num_correct_drafts", 0) or 0)


def _new_tokens(call) -> dict:
    """rid -> output tokens so far, for every request of the processed batch (the summary diffs them by step)."""
    batch = call.arg(1, "batch")
    return {r.rid: len(r.output_ids) for r in _reqs(batch)}


def _next(result):
    """The batch get_next_batch_to_run chose: v0.5.17 wraps it in a NextBatchPlan (batch_to_run), older returns it."""
    return getattr(result, "batch_to_run", result)


def _is_idle(result) -> bool:
    batch = _next(result)
    return batch is None or not _reqs(batch)


IDLE = {"Scheduler.get_next_batch_to_run": _is_idle}

CAPTURES = {
    "Scheduler.handle_generate_request": {
        "request_ids": lambda c: [c.arg(1, "recv_req").rid],
        "num_computed_tokens": lambda c: _len(getattr(c.arg(1, "recv_req"), "input_ids", None)),
    },
    "ScheduleBatch.prepare_for_extend": {
        "kv_blocks": lambda c: int(getattr(c.self, "extend_num_tokens", 0) or 0),  # token slots (page size 1)
        "batch_size": lambda c: len(_reqs(c.self)),
    },
    "ScheduleBatch.prepare_for_decode": {
        "kv_blocks": lambda c: len(_reqs(c.self)),
        "batch_size": lambda c: len(_reqs(c.self)),
    },
    "ScheduleBatch.retract_decode": {
        "retracted": lambda c: [r.rid for r in c.result[0]],
        "new_token_ratio": lambda c: float(c.result[1]),
    },
    "Scheduler.run_batch": {
        "batch_mode": lambda c: _mode(c.arg(1, "batch")),
        "batch_size": lambda c: len(_reqs(c.arg(1, "batch"))),
        "cuda_graph": lambda c: "REPLAY" if getattr(c.result, "can_run_cuda_graph", False) else "EAGER",
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


def _plan_snapshot(call) -> tuple:
    """On the engine thread, one pass over the chosen batch (SGLang reuses and filters its batches in place, and
    output_ids grow): (mode, rid, tokens this step, computed tokens) per request, the ratio and drafts."""
    batch = _next(call.result)
    mode = _mode(batch)
    if mode == "EXTEND":
        rows = [(r.rid, _extend_len(r), _len(getattr(r, "prefix_indices", None))) for r in batch.reqs]
    elif mode == "MIXED":
        rows = [(r.rid, _extend_len(r), len(r.origin_input_ids) + len(r.output_ids) - 1) for r in batch.reqs]
    else:
        rows = [(r.rid, 1, len(r.origin_input_ids) + len(r.output_ids) - 1) for r in batch.reqs]
    drafts = int(getattr(batch, "spec_num_draft_tokens", 0) or 0) if mode == "TARGET_VERIFY" else 0
    return mode, rows, _ratio(call.self), drafts


def _ratio(scheduler) -> float:
    """The scheduler's new_token_ratio: on its NewTokenRatioTracker (v0.5.17 on), else its own attribute (older)."""
    tracker = getattr(scheduler, "new_token_ratio_tracker", None)
    return float(getattr(tracker, "current", None) if tracker is not None else getattr(scheduler, "new_token_ratio", 0.0))


def _plan(snapshot) -> dict:
    mode, rows, ratio, drafts = snapshot
    return {"batch_mode": mode, "batch_size": len(rows), "request_ids": [r[0] for r in rows],
            "num_scheduled_tokens": {r[0]: r[1] for r in rows}, "num_computed_tokens": {r[0]: r[2] for r in rows},
            "prefix_hit_tokens": sum(r[2] for r in rows) if mode == "EXTEND" else 0, "new_token_ratio": ratio,
            "draft_tokens": drafts}


def _commit_snapshot(call) -> tuple:
    reqs = call.arg(1, "batch").reqs
    return [(r.rid, len(r.output_ids), r.finished()) for r in reqs], _accepted(call)


def _commit(snapshot) -> dict:
    rows, accepted = snapshot
    return {"accepted_tokens": accepted, "request_ids": [r[0] for r in rows],
            "output_tokens": {r[0]: r[1] for r in rows}, "finished": [r[0] for r in rows if r[2]]}


# qualname -> (capture names, snapshot(call) on the engine thread, values(snapshot) -> dict in the flusher)
LATER = {
    "Scheduler.get_next_batch_to_run": (("batch_mode", "batch_size", "request_ids", "num_scheduled_tokens",
                                         "num_computed_tokens", "prefix_hit_tokens", "new_token_ratio",
                                         "draft_tokens"), _plan_snapshot, _plan),
    "Scheduler.process_batch_result": (("accepted_tokens", "request_ids", "output_tokens", "finished"),
                                       _commit_snapshot, _commit),
}

BEFORES: dict = {}

# Collectives: the same entry points as vLLM's (SGLang's parallel_state and custom all-reduce derive from them).
from probes.captures.vllm import CAPTURES as _VLLM  # noqa: E402

CAPTURES["GroupCoordinator.all_reduce"] = _VLLM["GroupCoordinator.all_reduce"]
CAPTURES["CustomAllreduce.custom_all_reduce"] = _VLLM["CustomAllreduce.custom_all_reduce"]
