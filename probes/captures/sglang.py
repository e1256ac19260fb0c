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


def _scheduled(batch) -> dict:
    """rid -> tokens this step: the extend length of a prefill chunk, 1 per decode (plus drafts when verifying)."""
    reqs = _reqs(batch)
    if _mode(batch) in ("EXTEND", "MIXED"):
        return {r.rid: int(getattr(r, "extend_input_len", 0) or 0) for r in reqs}
    return {r.rid: 1 for r in reqs}


def _computed(batch) -> dict:
    return {r.rid: _len(getattr(r, "prefix_indices", None)) if _mode(batch) == "EXTEND"
            else len(r.origin_input_ids) + len(r.output_ids) - 1 for r in _reqs(batch)}


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
    "Scheduler.get_next_batch_to_run": {
        "batch_mode": lambda c: _mode(_next(c.result)),
        "batch_size": lambda c: len(_reqs(_next(c.result))),
        "request_ids": lambda c: [r.rid for r in _reqs(_next(c.result))],
        "num_scheduled_tokens": lambda c: _scheduled(_next(c.result)),
        "num_computed_tokens": lambda c: _computed(_next(c.result)),
        "prefix_hit_tokens": lambda c: sum(_len(getattr(r, "prefix_indices", None)) for r in _reqs(_next(c.result)))
        if _mode(_next(c.result)) == "EXTEND" else 0,
        "new_token_ratio": lambda c: float(getattr(c.self, "new_token_ratio", 0.0)),
        "draft_tokens": lambda c: int(getattr(_next(c.result), "spec_num_draft_tokens", 0) or 0)
        if _mode(_next(c.result)) == "TARGET_VERIFY" else 0,
    },
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
    "Scheduler.process_batch_result": {
        "accepted_tokens": _accepted,
        "request_ids": lambda c: [r.rid for r in _reqs(c.arg(1, "batch"))],
        "output_tokens": _new_tokens,
        "finished": lambda c: [r.rid for r in _reqs(c.arg(1, "batch")) if r.finished()],
    },
    "RadixCache.match_prefix": {
        "prefix_hit_tokens": lambda c: _len(getattr(c.result, "device_indices", None)),
    },
    "RadixCache.cache_finished_req": {
        "request_ids": lambda c: [c.arg(1, "req").rid],
        "kv_blocks": lambda c: _len(getattr(c.arg(1, "req"), "fill_ids", None)),
    },
}

BEFORES: dict = {}
