from hand import anchor, ev, verdict, save
S = "vllm.v1.core.sched.scheduler.Scheduler"
B = ("cpu", "latest")
# V1 renamed local (token_budget -> request_token_budget), fewer occurrences: the relaxed rule found it at cpu only
anchor("vllm/chunked-prefill.yaml", "vllm.chunked-prefill.chunk-to-budget", ["latest"],
       pattern="num_new_tokens = min(num_new_tokens, request_token_budget)")
ev("vllm/chunked-prefill.yaml", "vllm.chunked-prefill.chunk-to-budget", "budget-chunks-prefill", 1, ["latest"],
   pattern="num_new_tokens = min(num_new_tokens, request_token_budget)", occurrence=1)
# V2 the 4%-of-max_model_len default was removed (the relaxed rule had picked an unrelated encoder-decoder line)
anchor("vllm/chunked-prefill.yaml", "vllm.chunked-prefill.long-prefill-threshold", B,
       symbol="vllm.config.scheduler.SchedulerConfig", pattern="long_prefill_token_threshold: int = Field(default=0, ge=0)")
ev("vllm/chunked-prefill.yaml", "vllm.chunked-prefill.long-prefill-threshold", "per-request-chunk-cap", 1, B,
   expect="absent", note="the 4% default with concurrent partial prefills is gone")
verdict("vllm/chunked-prefill.yaml", "vllm.chunked-prefill.long-prefill-threshold", "per-request-chunk-cap", B,
        "holds", "The cap still exists and still bounds each prefill chunk, but its 4%-of-max_model_len default is gone: "
        "it is 0 (off) unless set, and Scheduler.schedule applies it only when more than one request is eligible.")
# V3 the req_ids-ordered offset map left update_from_output; outputs are looked up by request id
ev("vllm/overlap-scheduling.yaml", "vllm.overlap-scheduling.update-from-output", "snapshot-identity", 1, B,
   pattern="req_index = model_runner_output.req_id_to_index[req_id]")
verdict("vllm/overlap-scheduling.yaml", "vllm.overlap-scheduling.update-from-output", "snapshot-identity", B,
        "changed", "The offset map rebuilt from model_runner_output.req_ids (routed experts) is no longer built here; "
        "each request's sampled tokens are looked up by its id through model_runner_output.req_id_to_index, so "
        "results still follow the launch snapshot's identity, not the scheduler's dict order.")
# V4 AsyncScheduler's override folded into Scheduler (method merged into the base class)
A = "vllm.overlap-scheduling.async-commit"
anchor("vllm/overlap-scheduling.yaml", A, ["latest"], symbol=f"{S}._update_request_with_output",
       pattern="request.num_output_placeholders -= num_new_tokens")
ev("vllm/overlap-scheduling.yaml", A, "committed-boundary", 1, ["latest"], symbol=f"{S}._update_request_with_output",
   pattern="request.num_output_placeholders -= num_new_tokens")
ev("vllm/overlap-scheduling.yaml", A, "committed-boundary", 2, ["latest"], symbol=f"{S}.update_from_output",
   pattern="self.kv_cache_manager.cache_blocks(request, request.num_computed_tokens - request.num_in_flight_tokens)")
ev("vllm/overlap-scheduling.yaml", A, "committed-boundary", 3, ["cpu"], pattern="if not is_stale: ...")
ev("vllm/overlap-scheduling.yaml", A, "committed-boundary", 3, ["latest"], symbol=f"{S}.update_from_output",
   pattern="if output_is_stale and request.drop_stale_output: ...")
verdict("vllm/overlap-scheduling.yaml", A, "committed-boundary", ["latest"], "holds",
        "AsyncScheduler._update_request_with_output is folded into Scheduler: placeholders are resolved there, and "
        "update_from_output caches KV up to num_computed_tokens - num_in_flight_tokens for running requests; stale "
        "outputs of a re-scheduled request are dropped (drop_stale_output) or not cached.")
# V5 cpu NGRAM disables async scheduling only on the V1 model runner
N = "vllm.overlap-scheduling.async-default"
ev("vllm/overlap-scheduling.yaml", N, "cpu-ngram-disables-async", 1, ["latest"],
   pattern="if spec_config is not None and (spec_config.method not in get_args(EagleModelTypes) and ...): ...")
verdict("vllm/overlap-scheduling.yaml", N, "cpu-ngram-disables-async", ["latest"], "changed",
        "The incompatibility is now checked only under `if not self.use_v2_model_runner:`: with Model Runner V2 (the "
        "default) CPU NGRAM keeps async scheduling; on the V1 runner it still turns it off.")
# V6 the V2-runner default: _is_default_v2_model_runner_model removed, V2 is the default for every model
P = "vllm.prefill-attention.prepare-inputs"
ev("vllm/prefill-attention.yaml", P, "v1-runner-for-the-article-model", 1, B,
   symbol="vllm.config.vllm.VllmConfig.use_v2_model_runner",
   pattern="unsupported = self._get_v2_model_runner_unsupported_features()",
   note="no architecture or MoE test is left: V2 unless a feature it lacks is asked for")
ev("vllm/prefill-attention.yaml", P, "v1-runner-for-the-article-model", 3, B, pattern="if unsupported: ...")
verdict("vllm/prefill-attention.yaml", P, "v1-runner-for-the-article-model", B, "changed",
        "Model Runner V2 (vllm/v1/worker/gpu/model_runner.py) is the default for every model here, dense or MoE; "
        "the V1 runner of gpu_model_runner.py runs only when V2 lacks a feature asked for, without Triton, or with "
        "VLLM_USE_V2_MODEL_RUNNER=0.")
# V7 condition extracted into a helper method (KVCacheManager.prefix_cache_lookup_enabled)
ev("vllm/prefix-cache.yaml", "vllm.prefix-cache.get-computed-blocks", "skip-reading-cache", 1, B,
   pattern="if not self.prefix_cache_lookup_enabled(request): ...",
   note="the condition moved into prefix_cache_lookup_enabled: enable_caching and not skip_reading_prefix_cache")
save()
