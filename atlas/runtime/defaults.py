"""Built-in hook lists per framework: the fallback `atlas trace` uses ONLY while no annotations exist for the
framework (spec `source: builtin-default`). Same shape as atlas.annotate.probe_spec's entries, minus the lines,
which `lines.resolve` reads from the pinned tree."""

from __future__ import annotations

PLAN, ALLOCATE, EXECUTE, VALIDATE, COMMIT, RELEASE = "plan", "allocate", "execute", "validate", "commit", "release"

# (module, qualname, role, captures, flags); flags: step (starts an engine step in its process), aggregate (one
# record per step for hot per-request hooks), skip_none (a None result is an idle poll: no record), optional
# (may legitimately not fire: another implementation or a mode the default run does not enter).
_V = "vllm.v1"
VLLM = (
    (f"{_V}.core.sched.scheduler", "Scheduler.add_request", PLAN, ("request_ids", "num_computed_tokens"), ()),
    (
        f"{_V}.core.sched.scheduler",
        "Scheduler.schedule",
        PLAN,
        (
            "num_scheduled_tokens",
            "num_computed_tokens",
            "batch_mode",
            "batch_size",
            "request_ids",
            "preempted",
            "draft_tokens",
            "kv_blocks",
        ),
        ("step",),
    ),
    (
        f"{_V}.core.kv_cache_manager",
        "KVCacheManager.get_computed_blocks",
        ALLOCATE,
        ("prefix_hit_tokens", "kv_blocks", "request_ids"),
        ("aggregate",),
    ),
    # Blocks as the pool hands them out: called only when a request needs new blocks (about one call a step at
    # concurrency 16), where KVCacheManager.allocate_slots runs for every running request every step (16 wrapper
    # calls a step, most of the probes' cost at c16: results/README.md run 7). Preemptions are in the plan.
    (f"{_V}.core.block_pool", "BlockPool.get_new_blocks", ALLOCATE, ("kv_blocks",), ("aggregate",)),
    (
        f"{_V}.worker.gpu_model_runner",
        "GPUModelRunner.execute_model",
        EXECUTE,
        ("num_scheduled_tokens", "batch_size", "gpu_time"),
        ("step",),
    ),
    (
        f"{_V}.worker.gpu_model_runner",
        "GPUModelRunner._determine_batch_execution_and_padding",
        EXECUTE,
        ("cuda_graph", "num_scheduled_tokens"),
        (),
    ),
    (f"{_V}.worker.gpu_model_runner", "GPUModelRunner.sample_tokens", EXECUTE, (), ()),
    (
        f"{_V}.core.sched.scheduler",
        "Scheduler.update_from_output",
        COMMIT,
        ("request_ids", "num_computed_tokens", "draft_tokens", "accepted_tokens", "batch_size"),
        (),
    ),
    (f"{_V}.core.kv_cache_manager", "KVCacheManager.free", RELEASE, ("kv_blocks", "request_ids"), ("aggregate",)),
)
# vLLM's model runner V2 (vllm/v1/worker/gpu/model_runner.py), which GPUs may use instead of V1.
VLLM_CUDA_EXTRA = (
    (
        f"{_V}.worker.gpu.model_runner",
        "GPUModelRunner.execute_model",
        EXECUTE,
        ("num_scheduled_tokens", "batch_size", "gpu_time"),
        ("step", "optional"),
    ),
    (f"{_V}.worker.gpu.model_runner", "GPUModelRunner.sample_tokens", EXECUTE, (), ("optional",)),
    (
        f"{_V}.worker.gpu.cudagraph_utils",
        "CudaGraphManager.dispatch",
        EXECUTE,
        ("cuda_graph", "num_scheduled_tokens"),
        ("optional",),
    ),
)

_S = "sglang.srt"
SGLANG = (
    (f"{_S}.managers.scheduler", "Scheduler.handle_generate_request", PLAN, ("request_ids", "num_computed_tokens"), ()),
    (
        f"{_S}.managers.scheduler",
        "Scheduler.get_next_batch_to_run",
        PLAN,
        (
            "batch_mode",
            "batch_size",
            "request_ids",
            "num_scheduled_tokens",
            "num_computed_tokens",
            "prefix_hit_tokens",
            "new_token_ratio",
            "draft_tokens",
        ),
        ("step", "skip_none"),
    ),
    (f"{_S}.mem_cache.radix_cache", "RadixCache.match_prefix", ALLOCATE, ("prefix_hit_tokens",), ("aggregate",)),
    (f"{_S}.managers.schedule_batch", "ScheduleBatch.prepare_for_extend", ALLOCATE, ("kv_blocks", "batch_size"), ()),
    (f"{_S}.managers.schedule_batch", "ScheduleBatch.prepare_for_decode", ALLOCATE, ("kv_blocks", "batch_size"), ()),
    (
        f"{_S}.managers.schedule_batch",
        "ScheduleBatch.retract_decode",
        VALIDATE,
        ("retracted", "new_token_ratio"),
        ("optional",),
    ),
    (
        f"{_S}.managers.scheduler",
        "Scheduler.run_batch",
        EXECUTE,
        ("batch_mode", "batch_size", "cuda_graph", "gpu_time"),
        (),
    ),
    (f"{_S}.managers.scheduler", "Scheduler.process_batch_result", COMMIT, ("accepted_tokens", "request_ids"), ()),
    (
        f"{_S}.mem_cache.radix_cache",
        "RadixCache.cache_finished_req",
        RELEASE,
        ("request_ids", "kv_blocks"),
        ("aggregate",),
    ),
)


# Collectives (tensor-parallel runs only: at TP=1 these functions return at once but are still called per layer).
# Under CUDA graphs the collectives run inside the replayed graph: these Python entry points fire in eager steps
# (prefill, enforce_eager) only; each record is one step's calls: count, summed launch time, summed bytes.
COLLECTIVES = {
    "vllm": (
        ("vllm.distributed.parallel_state", "GroupCoordinator.all_reduce"),
        ("vllm.distributed.device_communicators.custom_all_reduce", "CustomAllreduce.custom_all_reduce"),
    ),
    "sglang": (
        ("sglang.srt.distributed.parallel_state", "GroupCoordinator.all_reduce"),
        ("sglang.srt.distributed.device_communicators.custom_all_reduce", "CustomAllreduce.custom_all_reduce"),
    ),
}


def collective_hooks(framework: str) -> list[dict]:
    return [
        {
            "annotation": "builtin-collective",
            "framework": framework,
            "symbol": f"{module}.{qualname}",
            "module": module,
            "qualname": qualname,
            "role": EXECUTE,
            "capture": ["bytes"],
            "aggregate": True,
            "optional": True,
            "collective": True,
        }
        for module, qualname in COLLECTIVES[framework]
    ]


def default_hooks(framework: str, device: str) -> list[dict]:
    """The built-in entries for a framework and device, without lines."""
    rows = {"vllm": VLLM + (VLLM_CUDA_EXTRA if device == "cuda" else ()), "sglang": SGLANG}[framework]
    if framework == "vllm" and device == "cuda":  # GPUs run model runner V1 or V2: each set is optional there
        rows = tuple(
            (m, q, r, c, f + ("optional",)) if m == f"{_V}.worker.gpu_model_runner" else (m, q, r, c, f)
            for m, q, r, c, f in rows
        )
    return [
        {
            "annotation": "builtin-default",
            "framework": framework,
            "symbol": f"{module}.{qualname}",
            "module": module,
            "qualname": qualname,
            "role": role,
            "capture": list(captures),
            **{flag: True for flag in flags},
        }
        for module, qualname, role, captures, flags in rows
    ]
