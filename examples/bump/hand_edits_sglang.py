from hand import anchor, ev, verdict, save
L = ["latest"]
SP = "sglang.srt.managers.schedule_policy"
SB = "sglang.srt.managers.schedule_batch"
# beam search arrived in SGLang
ev("sglang/beam-search.yaml", "sglang.beam-search.absent", "no-beam-search", 2, L, expect="present",
   note="beam_width > 1 turns a request into a beam search request")
verdict("sglang/beam-search.yaml", "sglang.beam-search.absent", "no-beam-search", L, "changed",
        "SGLang v0.5.23 has beam search: SamplingParams.beam_width (> 1 makes a beam search request, n then counts "
        "returned sequences) and the sglang.srt.beam_search package (coordinator, beam groups, joint selection).")
# chunk admission moved into _select_prefill_admission / _commit_prefill_admission
ev("sglang/chunked-prefill.yaml", "sglang.chunked-prefill.truncate-to-chunk", "chunk-page-aligned", 2, L,
   symbol=f"{SP}.PrefillAdder._commit_prefill_admission",
   pattern="req.extend_end = admission.prefix_len + admission.extend_len")
# mix_with_running: extend ranges set directly; the overlap delta is gone
M = "sglang.chunked-prefill.mix-with-running"
ev("sglang/chunked-prefill.yaml", M, "mixed-mode", 2, L, pattern="req.extend_end = prefix_len + 1")
ev("sglang/chunked-prefill.yaml", M, "mixed-mode", 4, L, expect="absent",
   note="no overlap delta: a tail's prefix is always its row length - 1")
verdict("sglang/chunked-prefill.yaml", M, "mixed-mode", L, "holds",
        "Each decode still becomes a 1-token extend (req.extend_end = prefix_len + 1), but the overlap-dependent "
        "delta is gone: the caller ran prepare_for_decode, so a tail's prefix is always its row length - 1.")
C = "sglang/continuous-batching.yaml"
ev(C, "sglang.continuous-batching.get-next-batch", "merge-last-prefill", 1, L,
   pattern="last_batch.filter_batch(reqs_to_exclude=list(reqs_to_exclude))")
ev(C, "sglang.continuous-batching.schedule-policy", "policy-sorts-first", 2, L,
   pattern="if self.policy in (CacheAwarePolicy.LPM, CacheAwarePolicy.HRRN) and len(waiting_queue) > WAITING_QUEUE_PREFIX_MATCH_MAX: ...",
   note="WAITING_QUEUE_PREFIX_MATCH_MAX = 128; HRRN is demoted too")
ev(C, "sglang.continuous-batching.prefill-adder-budgets", "future-decode-reservation", 1, L,
   pattern="self.memory_budget.total_offset += sum([self._get_running_request_total_token_offset(r) for r in running_batch.reqs])")
ev(C, "sglang.continuous-batching.update-prefill-budget", "reserve-extend-plus-output", 1, L,
   pattern="self.memory_budget.reserve(extend_input_len, max_new_tokens, ...)",
   note="the KV budget moved into a MemoryBudget object (mem_cache/prefill_budget.py); reserve() charges one page")
ev(C, "sglang.continuous-batching.prepare-for-decode", "one-token-per-request", 2, L,
   symbol="sglang.srt.mem_cache.allocation.alloc_for_decode_default",
   pattern="req.kv.kv_committed_len += token_per_req")
from hand import anchor, ev, verdict, save
L = ["latest"]
RC = "sglang.srt.mem_cache.radix_cache.RadixCache"
REL = "sglang.srt.mem_cache.common.release_kv_cache"
# cuda graphs: a keyword argument dropped from the call
ev("sglang/cuda-graphs.yaml", "sglang.cuda-graphs.verify-width", "ngram-tokens-per-req-8", 1, L,
   pattern="return resolve_num_tokens_per_req(phase='target_verify', spec_algorithm=self.spec_algorithm, is_draft_worker=self.is_draft_worker, num_draft_tokens=num_draft_tokens)")
# overlap: the read-done event renamed and published from a helper
ev("sglang/overlap-scheduling.yaml", "sglang.overlap-scheduling.war-barrier", "war-hazard", 3, L,
   symbol="sglang.srt.model_executor.runner.decode_cuda_graph_runner.DecodeCudaGraphRunner._publish_read_done",
   pattern="self.model_runner.shared_read_done_event = read_done")
# retraction
P = "sglang/preemption-retraction.yaml"
ev(P, "sglang.preemption-retraction.update-running-batch", "retract-on-decode-oom", 1, L,
   pattern="kv_full_retract_flag = not batch.check_decode_mem()")
CAP = "sglang.srt.mem_cache.allocator.base.BaseTokenToKVPoolAllocator.check_decode_capacity"
ev(P, "sglang.preemption-retraction.check-decode-mem", "evict-then-check", 2, L, symbol=CAP,
   pattern="self.evict_to_free_tokens(tree_cache, num_tokens)")
ev(P, "sglang.preemption-retraction.check-decode-mem", "evict-then-check", 3, L, symbol=CAP,
   pattern="return self.available_size() >= num_tokens")
verdict(P, "sglang.preemption-retraction.check-decode-mem", "evict-then-check", L, "holds",
        "The evict-then-compare moved into the allocator: check_decode_mem asks "
        "token_to_kv_pool_allocator.check_decode_capacity, which evicts reclaimable cache, then compares.")
ev(P, "sglang.preemption-retraction.release-req", "free-not-cache", 1, L,
   pattern="release_kv_cache(req, tree_cache, checkpoint=False)", note="is_insert became checkpoint")
# prefix cache
F = "sglang/prefix-cache.yaml"
ev(F, "sglang.prefix-cache.match-prefix", "radix-token-match", 2, L,
   pattern="MatchResult(device_prefix_len=sum((len(v) for v in value)))")
verdict(F, "sglang.prefix-cache.match-prefix", "radix-token-match", L, "changed",
        "match_prefix still walks token-keyed radix edges, but no longer concatenates the matched KV indices: it "
        "returns a MatchResult with the matched length and nodes; indices are read from the path when needed "
        "(path_device_indices).")
ev(F, "sglang.prefix-cache.match-prefix", "extra-key-isolation", 1, L,
   symbol="sglang.srt.mem_cache.common._req_radix_key",
   pattern="RadixKey(token_ids=token_ids, extra_key=req.extra_key, limit=key_limit, cache_salt=req.cache_salt)",
   note="the key is built by mem_cache.common._req_radix_key; cache_salt joins extra_key")
ev(F, "sglang.prefix-cache.page-size-default", "page-size-1-default", 1, L,
   pattern="if not get_platform().is_musa: ...")
ev(F, "sglang.prefix-cache.page-size-default", "page-size-1-default", 3, L,
   symbol="sglang.srt.arg_groups.fields.schedule.Schedule", pattern="page_size: ... = None")
ev(F, "sglang.prefix-cache.insert", "insert-page-aligned", 3, L, symbol=f"{RC}._insert_cache",
   pattern="self.token_to_kv_pool_allocator.free_segment(...)")
# cache_finished_req / cache_unfinished_req became release_kv_cache(checkpoint=True) -> RadixCache.checkpoint
A = "sglang.prefix-cache.cache-finished-req"
anchor(F, A, L, symbol=REL, pattern="tree_cache.checkpoint(req, up_to=owned_kv_len)")
ev(F, A, "release-lock-on-finish", 1, L, symbol=f"{RC}._insert_cache", pattern="result = self.insert(...)")
ev(F, A, "release-lock-on-finish", 2, L, symbol=REL, pattern="tree_cache.unlock(req.lock)")
ev(F, A, "release-lock-on-finish", 3, L, pattern="tree_cache.checkpoint(req, up_to=owned_kv_len)")
verdict(F, A, "release-lock-on-finish", L, "holds",
        "RadixCache.cache_finished_req is gone: release_kv_cache(req, tree_cache, checkpoint=True) calls "
        "RadixCache.checkpoint (insert through _insert_cache, the lock moved to the new last node), frees the "
        "request's row and unlocks, so the KV stays in the tree as evictable cache.")
U = "sglang.prefix-cache.cache-unfinished-req"
anchor(F, U, L, symbol=f"{RC}.checkpoint", pattern="req.kv.cache_protected_len = len(new_indices)")
ev(F, U, "chunk-caches-progress", 1, L, symbol=f"{RC}._insert_cache", pattern="result = self.insert(...)")
ev(F, U, "chunk-caches-progress", 2, L, symbol=f"{RC}.checkpoint", pattern="self.unlock(req.lock)")
ev(F, U, "chunk-caches-progress", 3, L, symbol=f"{RC}.checkpoint", pattern="req.lock = self.lock(new_last_node)")
ev(F, U, "chunk-caches-progress", 4, L, symbol=f"{RC}.checkpoint",
   pattern="req.kv.cache_protected_len = len(new_indices)")
verdict(F, U, "chunk-caches-progress", L, "holds",
        "cache_unfinished_req is gone: RadixCache.checkpoint(req, up_to=...) inserts the progress so far, moves "
        "the lock to the new last node and marks the tree-owned part (cache_protected_len).")
R = "sglang.prefix-cache.adder-recount-after-lock"
ev(F, R, "recount-after-lock", 1, L, expect="absent")
ev(F, R, "recount-after-lock", 3, L, expect="absent")
ev(F, R, "recount-after-lock", 4, L, pattern="return self.memory_budget.remaining_total")
verdict(F, R, "recount-after-lock", L, "changed",
        "add_one_req no longer compares total_tokens with rem_total_tokens itself: inside the temporary lock "
        "(_lock_node) it asks _select_prefill_admission, whose MemoryBudget.check_prefill decides; the KV budget "
        "lives in MemoryBudget (remaining_total).")
# speculative decoding
S = "sglang/speculative-decoding.yaml"
ev(S, "sglang.speculative-decoding.alloc-ahead", "allocated-vs-committed", 3, L, pattern="kv_allocated_len: int = 0")
ev(S, "sglang.speculative-decoding.alloc-ahead", "allocated-vs-committed", 4, L,
   symbol="sglang.srt.managers.schedule_batch.ReqKvInfo", pattern="kv_committed_len: int = 0")
ev(S, "sglang.speculative-decoding.eagle-sample", "stochastic-correction", 1, L,
   pattern="target_probs = sampling_softmax(next_token_logits, temperatures=expanded_temperature)")
O = "sglang.speculative-decoding.release-overallocated"
ev(S, O, "overshoot-freed-once", 1, L, symbol="sglang.srt.mem_cache.common._release_overallocated_kv_indices",
   pattern="assert start_p == end_p or ..., ...")
ev(S, O, "overshoot-freed-once", 3, L,
   pattern="_release_overallocated_kv_indices(req, owned_kv_len, req.kv.kv_allocated_len, tree_cache)")
save()
