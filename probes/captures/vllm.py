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


def batch_mode(call) -> str:
    """EXTEND (only prefill chunks), DECODE (only one-token steps), MIXED, TARGET_VERIFY (draft tokens verified)."""
    out, requests = call.result, getattr(call.self, "requests", {})
    if getattr(out, "scheduled_spec_decode_tokens", None):
        return "TARGET_VERIFY"
    computed = call.once("computed", lambda c: _computed_before(c.result))
    kinds = set()
    for rid in out.num_scheduled_tokens:
        req = requests.get(rid)
        prompt = getattr(req, "num_prompt_tokens", 0)
        kinds.add("EXTEND" if computed.get(rid, 0) < prompt else "DECODE")
    if not kinds:
        return "IDLE"
    return kinds.pop() if len(kinds) == 1 else "MIXED"


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


def _drafts(call) -> tuple[int, int]:
    so = call.arg(1, "scheduler_output")
    drafts = getattr(so, "scheduled_spec_decode_tokens", None) or {}
    if not drafts:
        return 0, 0
    sampled = call.once("sampled", _sampled)
    proposed = sum(len(v) for v in drafts.values())
    accepted = sum(max(sampled.get(rid, 0) - 1, 0) for rid in drafts)
    return proposed, accepted


SCHEDULER = "Scheduler."
CAPTURES = {
    "Scheduler.schedule": {
        "num_scheduled_tokens": lambda c: dict(c.result.num_scheduled_tokens),
        "num_computed_tokens": lambda c: c.once("computed", lambda c: _computed_before(c.result)),
        "batch_size": lambda c: len(c.result.num_scheduled_tokens),
        "batch_mode": batch_mode,
        "request_ids": lambda c: list(c.result.num_scheduled_tokens),
        "preempted": lambda c: sorted(getattr(c.result, "preempted_req_ids", None) or ()),
        "draft_tokens": lambda c: sum(len(v) for v in (c.result.scheduled_spec_decode_tokens or {}).values()),
        "kv_blocks": lambda c: sum(len(b) for r in c.result.scheduled_new_reqs for b in (r.block_ids or ()))
        + sum(len(b) for nb in (c.result.scheduled_cached_reqs.new_block_ids or ()) if nb for b in nb),
    },
    "Scheduler.add_request": {
        "request_ids": lambda c: [c.arg(1, "request").request_id],
        "num_computed_tokens": lambda c: getattr(c.arg(1, "request"), "num_prompt_tokens", 0),
    },
    "Scheduler.update_from_output": {
        "request_ids": lambda c: sorted(c.once("emitted", _emitted)["new_tokens"]),
        "num_computed_tokens": lambda c: {rid: getattr(c.self.requests.get(rid), "num_computed_tokens", 0)
                                          for rid in c.once("emitted", _emitted)["new_tokens"]},
        "draft_tokens": lambda c: c.once("drafts", _drafts)[0],
        "accepted_tokens": lambda c: c.once("drafts", _drafts)[1],
        "batch_size": lambda c: len(c.once("sampled", _sampled)),
        "new_tokens": lambda c: c.once("emitted", _emitted)["new_tokens"],
        "finished": lambda c: c.once("emitted", _emitted)["finished"],
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
    "GPUModelRunner.execute_model": {
        "num_scheduled_tokens": lambda c: int(c.arg(1, "scheduler_output").total_num_scheduled_tokens),
        "batch_size": lambda c: len(c.arg(1, "scheduler_output").num_scheduled_tokens),
    },
    "GPUModelRunner._determine_batch_execution_and_padding": {
        "cuda_graph": lambda c: getattr(c.result[0], "name", str(c.result[0])),
        "num_scheduled_tokens": lambda c: int(c.arg(1, "num_tokens") or 0),
    },
    "GPUModelRunner.sample_tokens": {},
    "CudaGraphManager.dispatch": {  # model runner V2 (vllm/v1/worker/gpu/)
        "cuda_graph": lambda c: getattr(c.result.cg_mode, "name", str(c.result.cg_mode)),
        "num_scheduled_tokens": lambda c: int(getattr(c.result, "num_tokens", 0) or 0),
    },
}

BEFORES = {
    "KVCacheManager.free": {
        "kv_blocks": lambda c: _n_blocks(c.self.get_blocks(c.arg(1, "request").request_id)),
    },
}
