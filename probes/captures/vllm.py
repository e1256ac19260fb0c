"""Captures for vLLM v1 (checked against v0.26.0 and v0.32.0): the scheduler's plan (SchedulerOutput), the KV cache
manager's block traffic, the model runner's execute, and the commit of sampled tokens (update_from_output)."""

from __future__ import annotations


def _n_blocks(kv_blocks) -> int:
    """Blocks in a KVCacheBlocks (summed over KV-cache groups); 0 for None."""
    groups = getattr(kv_blocks, "blocks", None) or ()
    return sum(len(g) for g in groups)


def _computed_before(out) -> dict:
    """req id -> computed tokens before this step, from the new and the cached request data of a SchedulerOutput."""
    computed = {r.req_id: r.num_computed_tokens for r in getattr(out, "scheduled_new_reqs", ())}
    cached = getattr(out, "scheduled_cached_reqs", None)
    if cached is not None:
        computed.update(zip(cached.req_ids, cached.num_computed_tokens))
    return computed


def plan_mode(out) -> str:
    """EXTEND (only prefill chunks), DECODE (only one-token steps), MIXED, TARGET_VERIFY (draft tokens verified),
    IDLE, from the SchedulerOutput alone: a new request is prefilling; a running one is still prefilling while it
    has no output token yet (vLLM's num_output_tokens, where this version has it) or when more than one token is
    scheduled for it without drafts (a later chunk, or a recompute after preemption)."""
    if getattr(out, "scheduled_spec_decode_tokens", None):
        return "TARGET_VERIFY"
    scheduled = out.num_scheduled_tokens
    if not scheduled:
        return "IDLE"
    kinds = {"EXTEND"} if getattr(out, "scheduled_new_reqs", None) else set()
    cached = getattr(out, "scheduled_cached_reqs", None)
    ids = getattr(cached, "req_ids", None) or ()
    outputs = getattr(cached, "num_output_tokens", None) or [None] * len(ids)
    for rid, num_out in zip(ids, outputs):
        kinds.add("EXTEND" if num_out == 0 or scheduled.get(rid, 0) > 1 else "DECODE")
    return kinds.pop() if len(kinds) == 1 else "MIXED"


def _plan(call) -> dict:
    """Everything the plan event says, read from the SchedulerOutput by the flusher (the engine never changes a
    SchedulerOutput once schedule() returned it)."""
    out = call.result
    cached = out.scheduled_cached_reqs
    return {"num_scheduled_tokens": out.num_scheduled_tokens, "num_computed_tokens": _computed_before(out),
            "batch_mode": plan_mode(out), "request_ids": list(out.num_scheduled_tokens),
            "preempted": sorted(getattr(out, "preempted_req_ids", None) or ()),
            "draft_tokens": sum(len(v) for v in (out.scheduled_spec_decode_tokens or {}).values()),
            "kv_blocks": sum(len(b) for r in out.scheduled_new_reqs for b in (r.block_ids or ()))
            + sum(len(b) for nb in (cached.new_block_ids or ()) if nb for b in nb)}


def _sampled(call) -> dict:
    """req id -> number of tokens sampled this step, from a ModelRunnerOutput."""
    mro = call.arg(2, "model_runner_output")
    ids = getattr(mro, "req_ids", None) or []
    sampled = getattr(mro, "sampled_token_ids", None) or []
    return {rid: len(tokens) for rid, tokens in zip(ids, sampled)}


def _emitted(call) -> dict:
    """req id -> new tokens handed to the front end by update_from_output, and which requests finished."""
    tokens, finished = {}, []
    for outputs in (call.result or {}).values():
        for out in getattr(outputs, "outputs", ()):
            tokens[out.request_id] = len(out.new_token_ids or ())
            if out.finish_reason is not None:
                finished.append(out.request_id)
    return {"new_tokens": tokens, "finished": finished}


def _commit(call) -> dict:
    """The commit event's values, from the step's SchedulerOutput, ModelRunnerOutput and the EngineCoreOutputs
    handed to the front end (none changes after the call). Computed tokens after the commit are the plan's
    computed + scheduled, less the drafts the sampler rejected: what vLLM sets on each request."""
    so = call.arg(1, "scheduler_output")
    sampled = _sampled(call)
    emitted = _emitted(call)
    drafts = getattr(so, "scheduled_spec_decode_tokens", None) or {}
    rejected = {rid: len(d) - max(sampled.get(rid, 0) - 1, 0) for rid, d in drafts.items()}
    before, scheduled = _computed_before(so), so.num_scheduled_tokens
    ids = sorted(emitted["new_tokens"])
    return {"request_ids": ids, "batch_size": len(sampled), "new_tokens": emitted["new_tokens"],
            "finished": emitted["finished"],
            "num_computed_tokens": {rid: before.get(rid, 0) + scheduled.get(rid, 0) - rejected.get(rid, 0)
                                    for rid in ids},
            "draft_tokens": sum(len(d) for d in drafts.values()),
            "accepted_tokens": sum(max(sampled.get(rid, 0) - 1, 0) for rid in drafts)}


def _execute(call) -> dict:
    so = call.arg(1, "scheduler_output")
    return {"num_scheduled_tokens": int(so.total_num_scheduled_tokens), "batch_size": len(so.num_scheduled_tokens)}


def _padding(call) -> dict:
    return {"cuda_graph": getattr(call.result[0], "name", str(call.result[0])),
            "num_scheduled_tokens": int(call.arg(1, "num_tokens") or 0)}


SCHEDULER = "Scheduler."
CAPTURES = {
    "Scheduler.add_request": {
        "request_ids": lambda c: [c.arg(1, "request").request_id],
        "num_computed_tokens": lambda c: getattr(c.arg(1, "request"), "num_prompt_tokens", 0),
    },
    "KVCacheManager.get_computed_blocks": {
        "prefix_hit_tokens": lambda c: int(c.result[1]),
        "kv_blocks": lambda c: _n_blocks(c.result[0]),
        "request_ids": lambda c: [c.arg(1, "request").request_id] if c.result[1] else [],
    },
    "KVCacheManager.allocate_slots": {
        "kv_blocks": lambda c: _n_blocks(c.result),
        "preempted": lambda c: int(c.result is None),  # no room: the scheduler preempts or waits
    },
    "KVCacheManager.free": {
        "kv_blocks": lambda c: c.before.get("kv_blocks", 0),
        "request_ids": lambda c: [c.arg(1, "request").request_id],
    },
    "GPUModelRunner.sample_tokens": {},
    "CudaGraphManager.dispatch": {  # model runner V2 (vllm/v1/worker/gpu/)
        "cuda_graph": lambda c: getattr(c.result.cg_mode, "name", str(c.result.cg_mode)),
        "num_scheduled_tokens": lambda c: int(getattr(c.result, "num_tokens", 0) or 0),
    },
}

# qualname -> (capture names, snapshot(call) on the engine thread, values(snapshot) -> dict in the flusher): the
# identity snapshot is right where the call's objects are not changed by the engine afterwards.
LATER = {
    "Scheduler.schedule": (("num_scheduled_tokens", "num_computed_tokens", "batch_mode", "request_ids", "preempted",
                            "draft_tokens", "kv_blocks"), None, _plan),
    "Scheduler.update_from_output": (("request_ids", "num_computed_tokens", "draft_tokens", "accepted_tokens",
                                      "batch_size", "new_tokens", "finished"), None, _commit),
    "GPUModelRunner.execute_model": (("num_scheduled_tokens", "batch_size"), None, _execute),
    "GPUModelRunner._determine_batch_execution_and_padding": (("cuda_graph", "num_scheduled_tokens"), None, _padding),
}
CAPTURES["Scheduler.schedule"] = {"batch_size": lambda c: len(c.result.num_scheduled_tokens)}

BEFORES = {
    "KVCacheManager.free": {
        "kv_blocks": lambda c: _n_blocks(c.self.get_blocks(c.arg(1, "request").request_id)),
    },
}


def tensor_bytes(tensor) -> int:
    """Bytes of a tensor from its metadata (numel, element size): no device access, no sync."""
    return int(tensor.numel()) * int(tensor.element_size()) if tensor is not None else 0


CAPTURES["GroupCoordinator.all_reduce"] = {
    "bytes": lambda c: tensor_bytes(c.arg(1, "input_")),
    "collective": lambda c: f"all_reduce:{getattr(c.self, 'unique_name', '?')}",
}
CAPTURES["CustomAllreduce.custom_all_reduce"] = {
    "bytes": lambda c: tensor_bytes(c.arg(1, "input")),
    "collective": lambda c: "custom_all_reduce",
}
