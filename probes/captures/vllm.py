"""Captures for vLLM v1 (checked against v0.26.0 and v0.32.0): the scheduler's plan (SchedulerOutput), the KV cache
manager's block traffic, the model runner's execute, and the commit of sampled tokens (update_from_output).
The hooks of every step take their values in LATER form (one raw call on the engine thread, values offline). The
raw functions read attributes in plain bytecode, loops included: CPython specialises those reads (slots, msgspec
structs, instance dicts), where `operator.attrgetter`, `map` and `getattr` look each one up afresh (3x slower on
vLLM's EngineCoreOutput, results/README.md), and they call no helper on the common path. Attributes
that every pinned version has (0.26, 0.32, 0.33) are read directly; a version without one disables the hook,
counted (probes.runtime.Probe.fail), and leaves the engine alone."""

from __future__ import annotations


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
    """References to the SchedulerOutput's own lists, dicts and sets (the engine never changes a SchedulerOutput once
    schedule() returned it); per-request work only for new requests (a prefill), and for the new blocks of
    requests resumed after a preemption: V1's model runner adopts those lists and extends them in later steps."""
    cached, drafts, new_reqs = out.scheduled_cached_reqs, out.scheduled_spec_decode_tokens, out.scheduled_new_reqs
    new = [(r.req_id, r.num_computed_tokens, sum(map(len, r.block_ids or ()))) for r in new_reqs] if new_reqs else []
    new_blocks = getattr(cached, "new_block_ids", None)
    if new_blocks and getattr(cached, "resumed_req_ids", None):
        new_blocks = [sum(map(len, nb)) if nb else 0 for nb in new_blocks]
    scheduler = args[0]
    try:  # the state after the plan: six reads, no loop (PLAN_STATE); None for a scheduler without them
        pool = scheduler.kv_cache_manager.block_pool
        skipped = getattr(scheduler, "skipped_waiting", None)
        state: tuple | None = (
            len(scheduler.running),
            len(scheduler.waiting) + (len(skipped) if skipped is not None else 0),
            pool.free_block_queue.num_free_blocks,
            len(pool.cached_block_hash_to_block),
            pool.num_gpu_blocks - 1,  # block 0 is the null block
            scheduler.block_size,
        )
    except (AttributeError, TypeError):
        state = None
    return (
        out.num_scheduled_tokens,
        new,
        cached.req_ids,
        cached.num_computed_tokens,
        getattr(cached, "num_output_tokens", None),
        new_blocks,
        bool(drafts),
        sum(map(len, drafts.values())) if drafts else 0,
        getattr(out, "preempted_req_ids", None),
        state,
    )


# After the plan: requests running and waiting, free blocks (evictable cached ones included), blocks with a
# prefix-cache hash, usable blocks, tokens per block.
PLAN_STATE = ("running", "waiting", "kv_free", "kv_cached", "kv_total", "block_size")


def plan_values(raw: tuple) -> dict:
    scheduled, new, cached_ids, cached_computed, outputs, new_block_ids, has_drafts, drafts, preempted, *state = raw
    new_blocks = {r[0]: r[2] for r in new if r[2]}
    new_blocks.update(_new_blocks(cached_ids, new_block_ids))
    values = {
        "batch_size": len(scheduled),
        "num_scheduled_tokens": scheduled,
        "num_computed_tokens": computed_before(new, cached_ids, cached_computed),
        "batch_mode": plan_mode(scheduled, bool(new), cached_ids, outputs, has_drafts),
        "request_ids": list(scheduled),
        "preempted": sorted(preempted or ()),
        "draft_tokens": drafts,
        "kv_blocks": sum(new_blocks.values()) if not isinstance(new_block_ids, int) else new_block_ids,
        "new_blocks": new_blocks,
    }
    if state and state[0] is not None:
        values.update(zip(PLAN_STATE, state[0]))
    return values


def _new_blocks(cached_ids, new_block_ids) -> dict:
    """req id -> blocks handed to a running request in this step: from the block id lists of the SchedulerOutput,
    or the counts taken on the engine thread where some requests were resumed (shards of an older probe hold one
    int for the step: no per-request counts)."""
    if not new_block_ids or isinstance(new_block_ids, int):
        return {}
    if type(new_block_ids[0]) is int:
        return {rid: n for rid, n in zip(cached_ids, new_block_ids) if n}
    counts = {rid: sum(map(len, nb)) for rid, nb in zip(cached_ids, new_block_ids) if nb}
    return {rid: n for rid, n in counts.items() if n}


def _commit_raw(args, kwargs, result, before) -> tuple:
    """One loop over the EngineCoreOutputs handed to the front end (id, tokens, finished), and references to the
    step's SchedulerOutput and ModelRunnerOutput lists (none changes after the call)."""
    so = args[1] if len(args) > 1 else kwargs.get("scheduler_output")
    mro = args[2] if len(args) > 2 else kwargs.get("model_runner_output")
    cached, drafts, new_reqs = so.scheduled_cached_reqs, so.scheduled_spec_decode_tokens, so.scheduled_new_reqs
    ids, counts, finished = [], [], []
    for client in (result or {}).values():  # one EngineCoreOutputs per front end
        for o in client.outputs:
            ids.append(o.request_id)
            counts.append(len(o.new_token_ids))
            if o.finish_reason is not None:  # an IntEnum, which marshal cannot take: only its request id is kept
                finished.append(o.request_id)
    new = [(r.req_id, r.num_computed_tokens) for r in new_reqs] if new_reqs else []
    sampled = mro.sampled_token_ids or []  # tokens per request matter only with drafts
    return (
        so.num_scheduled_tokens,
        new,
        cached.req_ids,
        cached.num_computed_tokens,
        {r: len(t) for r, t in drafts.items()} if drafts else {},
        mro.req_ids or [],
        [len(t) for t in sampled] if drafts else len(sampled),
        (ids, counts, finished),
    )


def commit_values(raw: tuple) -> dict:
    """Computed tokens after the commit are the plan's computed + scheduled, less the drafts the sampler rejected:
    what vLLM sets on each request."""
    scheduled, new, cached_ids, cached_computed, drafts, sampled_ids, sampled_lens, emitted = raw
    if isinstance(sampled_lens, int):  # no drafts: how many requests sampled
        sampled = dict.fromkeys(sampled_ids[:sampled_lens], 0)
    else:
        sampled = dict(zip(sampled_ids, sampled_lens))
    finished = _finished(emitted)
    if emitted and isinstance(emitted, tuple):  # (ids, token counts, ...); older shards: rows (id, count, flag)
        emitted = list(zip(*emitted[:2]))
    new_tokens = {e[0]: e[1] for e in emitted}
    rejected = {rid: n - max(sampled.get(rid, 0) - 1, 0) for rid, n in drafts.items()}
    before = computed_before(new, cached_ids, cached_computed)
    request_ids = sorted(new_tokens)
    return {
        "request_ids": request_ids,
        "batch_size": len(sampled),
        "new_tokens": new_tokens,
        "finished": finished,
        "num_computed_tokens": {
            rid: before.get(rid, 0) + scheduled.get(rid, 0) - rejected.get(rid, 0) for rid in request_ids
        },
        "draft_tokens": sum(drafts.values()),
        "accepted_tokens": sum(max(sampled.get(rid, 0) - 1, 0) for rid in drafts),
    }


def _finished(emitted) -> list:
    """The finished requests of a commit's (ids, token counts, finished ids); older shards hold a flag per request
    in place of the ids, or rows (id, count, flag)."""
    if not isinstance(emitted, tuple):
        return [e[0] for e in emitted or () if e[2]]
    ids, _, finished = emitted
    if finished and type(finished[0]) is bool:
        return [rid for rid, flag in zip(ids, finished) if flag]
    return list(finished)


def _allocated_raw(args, kwargs, blocks, before) -> int:
    """Blocks allocated, or -1 when there was no room (the scheduler preempts or waits); one int, as this runs once
    per running request and step (an aggregated hook)."""
    return -1 if blocks is None else sum(map(len, blocks.blocks))


def _allocated_values(raw: int) -> dict:
    return {"kv_blocks": max(raw, 0), "preempted": int(raw < 0)}


def _execute_raw(args, kwargs, result, before) -> tuple:
    so = args[1] if len(args) > 1 else kwargs.get("scheduler_output")
    return int(so.total_num_scheduled_tokens), len(so.num_scheduled_tokens)


def _padding_raw(args, kwargs, result, before) -> tuple:
    """The CUDA-graph mode by its member name (`_name_`: Enum's `.name` is a Python-level property, ~2x slower), the
    step's tokens and the tokens of the batch it runs as (the captured graph's size when a graph replays)."""
    mode = result[0]
    num_tokens = args[1] if len(args) > 1 else kwargs.get("num_tokens")
    padded = getattr(result[1], "num_tokens", None) if len(result) > 1 else None
    return getattr(mode, "_name_", None) or str(mode), int(num_tokens or 0), int(padded or 0)


def _dispatch_raw(args, kwargs, result, before) -> tuple:  # model runner V2 (vllm/v1/worker/gpu/)
    mode = result.cg_mode
    return getattr(mode, "_name_", None) or str(mode), int(result.num_tokens or 0), int(result.num_tokens or 0)


def _named(*names):
    """values(raw) for a raw tuple holding these names in order."""
    return lambda raw: dict(zip(names, raw))


# qualname -> (capture names, raw(args, kwargs, result, before) -> plain data, values(raw) -> dict offline)
LATER = {
    "Scheduler.schedule": (
        (
            "batch_size",
            "num_scheduled_tokens",
            "num_computed_tokens",
            "batch_mode",
            "request_ids",
            "preempted",
            "draft_tokens",
            "kv_blocks",
            "new_blocks",
            *PLAN_STATE,
        ),
        _plan_raw,
        plan_values,
    ),
    "KVCacheManager.allocate_slots": (("kv_blocks", "preempted"), _allocated_raw, _allocated_values),
    "BlockPool.get_new_blocks": (
        ("kv_blocks",),
        lambda args, kwargs, blocks, before: len(blocks),
        lambda raw: {"kv_blocks": raw},
    ),
    "GPUModelRunner.execute_model": (
        ("num_scheduled_tokens", "batch_size"),
        _execute_raw,
        _named("num_scheduled_tokens", "batch_size"),
    ),
    "GPUModelRunner._determine_batch_execution_and_padding": (
        ("cuda_graph", "num_scheduled_tokens", "padded_tokens"),
        _padding_raw,
        _named("cuda_graph", "num_scheduled_tokens", "padded_tokens"),
    ),
    "CudaGraphManager.dispatch": (
        ("cuda_graph", "num_scheduled_tokens", "padded_tokens"),
        _dispatch_raw,
        _named("cuda_graph", "num_scheduled_tokens", "padded_tokens"),
    ),
    "Scheduler.update_from_output": (
        (
            "request_ids",
            "num_computed_tokens",
            "draft_tokens",
            "accepted_tokens",
            "batch_size",
            "new_tokens",
            "finished",
        ),
        _commit_raw,
        commit_values,
    ),
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
