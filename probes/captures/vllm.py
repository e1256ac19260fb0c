"""Captures for vLLM v1 (checked against v0.26.0 and v0.32.0): the scheduler's plan (SchedulerOutput), the KV cache
manager's block traffic, the model runner's execute, and the commit of sampled tokens (update_from_output).
The hooks of every step take their values in LATER form (one raw call on the engine thread, values offline)."""

from __future__ import annotations

from itertools import chain, repeat
from operator import attrgetter, is_not

from probes.hooks import arg

_request_id, _finish_reason = attrgetter("request_id"), attrgetter("finish_reason")
_new_token_ids = attrgetter("new_token_ids")  # EngineCoreOutput's list (a None would disable the hook, counted)


def _outputs(client_outputs) -> list:
    """An EngineCoreOutputs' outputs (one call per front end, not per request)."""
    return getattr(client_outputs, "outputs", ())


def _n_blocks(kv_blocks) -> int:
    """Blocks in a KVCacheBlocks (summed over KV-cache groups); 0 for None."""
    return sum(map(len, getattr(kv_blocks, "blocks", None) or ()))


def computed_before(new: list, cached_ids, cached_computed) -> dict:
    """req id -> computed tokens before a step, from the new requests' (id, computed, ...) rows and the cached
    requests' ids and computed tokens of its SchedulerOutput."""
    computed = {r[0]: r[1] for r in new}
    if cached_ids is not None:
        computed.update(zip(cached_ids, cached_computed))
    return computed


def plan_mode(scheduled: dict, has_new: bool, cached_ids, num_output_tokens, has_drafts: bool) -> str:
    """EXTEND (only prefill chunks), DECODE (only one-token steps), MIXED, TARGET_VERIFY (draft tokens verified),
    IDLE, from the SchedulerOutput alone: a new request is prefilling; a running one is still prefilling while it
    has no output token yet (vLLM's num_output_tokens, where this version has it) or when more than one token is
    scheduled for it without drafts (a later chunk, or a recompute after preemption)."""
    if has_drafts:
        return "TARGET_VERIFY"
    if not scheduled:
        return "IDLE"
    kinds = {"EXTEND"} if has_new else set()
    ids = cached_ids or ()
    outputs = num_output_tokens or [None] * len(ids)
    for rid, num_out in zip(ids, outputs):
        kinds.add("EXTEND" if num_out == 0 or scheduled.get(rid, 0) > 1 else "DECODE")
    return kinds.pop() if len(kinds) == 1 else "MIXED"


def _plan_raw(args, kwargs, out, before) -> tuple:
    """References to the SchedulerOutput's own lists and dicts (the engine never changes a SchedulerOutput once
    schedule() returned it); per-request work only for new requests (a prefill)."""
    cached = getattr(out, "scheduled_cached_reqs", None)
    drafts = out.scheduled_spec_decode_tokens or {}
    new = [(r.req_id, r.num_computed_tokens, sum(map(len, r.block_ids or ())))
           for r in getattr(out, "scheduled_new_reqs", None) or ()]
    return (out.num_scheduled_tokens, new, getattr(cached, "req_ids", None),
            getattr(cached, "num_computed_tokens", None), getattr(cached, "num_output_tokens", None),
            getattr(cached, "new_block_ids", None), bool(drafts), sum(map(len, drafts.values())),
            sorted(getattr(out, "preempted_req_ids", None) or ()))


def plan_values(raw: tuple) -> dict:
    scheduled, new, cached_ids, cached_computed, outputs, new_block_ids, has_drafts, drafts, preempted = raw
    return {"batch_size": len(scheduled), "num_scheduled_tokens": scheduled,
            "num_computed_tokens": computed_before(new, cached_ids, cached_computed),
            "batch_mode": plan_mode(scheduled, bool(new), cached_ids, outputs, has_drafts),
            "request_ids": list(scheduled), "preempted": preempted, "draft_tokens": drafts,
            "kv_blocks": sum(r[2] for r in new) + sum(len(b) for nb in (new_block_ids or ()) if nb for b in nb)}


def _commit_raw(args, kwargs, result, before) -> tuple:
    """One pass over the EngineCoreOutputs handed to the front end, and references to the step's SchedulerOutput
    and ModelRunnerOutput lists (none changes after the call)."""
    so = arg(args, kwargs, 1, "scheduler_output")
    mro = arg(args, kwargs, 2, "model_runner_output")
    cached = getattr(so, "scheduled_cached_reqs", None)
    drafts = getattr(so, "scheduled_spec_decode_tokens", None) or {}
    outs = list(chain.from_iterable(map(_outputs, (result or {}).values())))  # every client's outputs, C-level
    emitted = (list(map(_request_id, outs)), list(map(len, map(_new_token_ids, outs))),  # C-level passes
               list(map(is_not, map(_finish_reason, outs), repeat(None))))
    new = [(r.req_id, r.num_computed_tokens) for r in getattr(so, "scheduled_new_reqs", None) or ()]
    sampled = getattr(mro, "sampled_token_ids", None) or []  # tokens per request matter only with drafts
    return (so.num_scheduled_tokens, new, getattr(cached, "req_ids", None),
            getattr(cached, "num_computed_tokens", None), dict(zip(drafts, map(len, drafts.values()))),
            getattr(mro, "req_ids", None) or [], list(map(len, sampled)) if drafts else len(sampled), emitted)


def commit_values(raw: tuple) -> dict:
    """Computed tokens after the commit are the plan's computed + scheduled, less the drafts the sampler rejected:
    what vLLM sets on each request."""
    scheduled, new, cached_ids, cached_computed, drafts, sampled_ids, sampled_lens, emitted = raw
    if isinstance(sampled_lens, int):  # no drafts: how many requests sampled
        sampled = dict.fromkeys(sampled_ids[:sampled_lens], 0)
    else:
        sampled = dict(zip(sampled_ids, sampled_lens))
    if emitted and isinstance(emitted, tuple):  # (ids, token counts, finished flags); older shards: rows
        emitted = list(zip(*emitted))
    new_tokens = {e[0]: e[1] for e in emitted}
    rejected = {rid: n - max(sampled.get(rid, 0) - 1, 0) for rid, n in drafts.items()}
    before = computed_before(new, cached_ids, cached_computed)
    request_ids = sorted(new_tokens)
    return {"request_ids": request_ids, "batch_size": len(sampled), "new_tokens": new_tokens,
            "finished": [e[0] for e in emitted if e[2]],
            "num_computed_tokens": {rid: before.get(rid, 0) + scheduled.get(rid, 0) - rejected.get(rid, 0)
                                    for rid in request_ids},
            "draft_tokens": sum(drafts.values()),
            "accepted_tokens": sum(max(sampled.get(rid, 0) - 1, 0) for rid in drafts)}


def _allocated_raw(args, kwargs, blocks, before) -> int:
    """Blocks allocated, or -1 when there was no room (the scheduler preempts or waits); one int, as this runs once
    per running request and step (an aggregated hook)."""
    return -1 if blocks is None else sum(map(len, blocks.blocks))


def _allocated_values(raw: int) -> dict:
    return {"kv_blocks": max(raw, 0), "preempted": int(raw < 0)}


def _execute_raw(args, kwargs, result, before) -> tuple:
    so = arg(args, kwargs, 1, "scheduler_output")
    return int(so.total_num_scheduled_tokens), len(so.num_scheduled_tokens)


def _padding_raw(args, kwargs, result, before) -> tuple:
    mode = result[0]
    return getattr(mode, "name", None) or str(mode), int(arg(args, kwargs, 1, "num_tokens") or 0)


def _dispatch_raw(args, kwargs, result, before) -> tuple:  # model runner V2 (vllm/v1/worker/gpu/)
    mode = result.cg_mode
    return getattr(mode, "name", None) or str(mode), int(getattr(result, "num_tokens", 0) or 0)


def _named(*names):
    """values(raw) for a raw tuple holding these names in order."""
    return lambda raw: dict(zip(names, raw))


# qualname -> (capture names, raw(args, kwargs, result, before) -> plain data, values(raw) -> dict offline)
LATER = {
    "Scheduler.schedule": (("batch_size", "num_scheduled_tokens", "num_computed_tokens", "batch_mode", "request_ids",
                            "preempted", "draft_tokens", "kv_blocks"), _plan_raw, plan_values),
    "KVCacheManager.allocate_slots": (("kv_blocks", "preempted"), _allocated_raw, _allocated_values),
    "BlockPool.get_new_blocks": (("kv_blocks",), lambda args, kwargs, blocks, before: len(blocks),
                                 lambda raw: {"kv_blocks": raw}),
    "GPUModelRunner.execute_model": (("num_scheduled_tokens", "batch_size"), _execute_raw,
                                     _named("num_scheduled_tokens", "batch_size")),
    "GPUModelRunner._determine_batch_execution_and_padding": (("cuda_graph", "num_scheduled_tokens"), _padding_raw,
                                                              _named("cuda_graph", "num_scheduled_tokens")),
    "CudaGraphManager.dispatch": (("cuda_graph", "num_scheduled_tokens"), _dispatch_raw,
                                  _named("cuda_graph", "num_scheduled_tokens")),
    "Scheduler.update_from_output": (("request_ids", "num_computed_tokens", "draft_tokens", "accepted_tokens",
                                      "batch_size", "new_tokens", "finished"), _commit_raw, commit_values),
}

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
    "KVCacheManager.free": {
        "kv_blocks": lambda c: c.before.get("kv_blocks", 0),
        "request_ids": lambda c: [c.arg(1, "request").request_id],
    },
}

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
