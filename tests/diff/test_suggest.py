"""The suggestion rules of `atlas diff` (atlas/diff/suggest.py), each on a small fixture repo shaped like the real
case of the vLLM/SGLang bump that taught it: one table row per rule, (old files, new files, the item, where the
rule must find it), and an end-to-end apply that writes an `at:` entry both pins then resolve."""

from __future__ import annotations

import networkx as nx
import pytest
from annotate.folder_index import FolderIndex

from atlas.annotate import check, load_annotations
from atlas.annotate.resolve import Resolver
from atlas.diff.apply import apply_suggestions
from atlas.diff.items import broken_items
from atlas.diff.suggest import Finder
from atlas.graph import AtlasGraph
from atlas.graph.resolve import Solver
from atlas.model import Change, ChangeKind, Pin
from atlas.parse.python import extract, module_name

ADDER_OLD = """class PrefillAdder:
    def add_one_req(self, req, chunk_tokens_limit):
        if req.extend_input_len <= chunk_tokens_limit:
            self.can_run_list.append(req)
            return
        trunc_len = chunk_tokens_limit // self.page_size * self.page_size
        req.extend_end = trunc_len
        self.new_chunked_req = req
"""
ADDER_NEW = """class PrefillAdder:
    def add_one_req(self, req, chunk_tokens_limit):
        if req.extend_input_len <= chunk_tokens_limit:
            self.can_run_list.append(req)
            return
        admission = self._select_admission(req, chunk_tokens_limit)
        self._commit(req, admission)

    def _select_admission(self, req, chunk_tokens_limit):
        extend_len = chunk_tokens_limit // self.page_size * self.page_size
        return extend_len

    def _commit(self, req, extend_len):
        req.extend_end = extend_len
        self.new_chunked_req = req
"""
HOOK_OLD = """def _handle_ngram(server_args):
    server_args.enable_mixed_chunk = False
    if server_args.speculative_num_draft_tokens is None:
        server_args.speculative_num_draft_tokens = 12
"""
HOOK_NEW = """def declare_resolution(server_args, who, **values):
    for key, value in values.items():
        setattr(server_args, key, value)


def _handle_ngram(server_args):
    declare_resolution(server_args, "_handle_ngram", enable_mixed_chunk=False)
    if server_args.speculative_num_draft_tokens is None:
        declare_resolution(server_args, "_handle_ngram", speculative_num_draft_tokens=12)
"""
BATCH_OLD = """class ScheduleBatch:
    def prepare_for_extend(self):
        for req, seq_len in zip(self.reqs, self.seq_lens):
            req.kv_committed_len = seq_len
            req.kv_allocated_len = seq_len
        self.forward_mode = 'extend'
"""
BATCH_NEW = """from pkg.allocation import alloc_for_extend


class ScheduleBatch:
    def prepare_for_extend(self):
        self.out_cache_loc = alloc_for_extend(self)
        self.forward_mode = 'extend'
"""
ALLOCATION = """def alloc_for_extend(batch):
    for req, seq_len in zip(batch.reqs, batch.seq_lens):
        req.kv.kv_committed_len = seq_len
        req.kv.kv_allocated_len = seq_len
    return batch.take(sum(batch.seq_lens))
"""
SCHED_OLD = """class Scheduler:
    def schedule(self):
        token_budget = self.max_num_scheduled_tokens
        for request in self.running:
            num_new_tokens = request.num_tokens - request.num_computed_tokens
            num_new_tokens = min(num_new_tokens, token_budget)
            token_budget -= num_new_tokens
"""
SCHED_NEW = """class Scheduler:
    def schedule(self):
        token_budget = self.max_num_scheduled_tokens
        for request in self.running:
            request_token_budget = token_budget - self.reserved(request)
            num_new_tokens = request.num_tokens - request.num_computed_tokens
            num_new_tokens = min(num_new_tokens, request_token_budget)
            token_budget -= num_new_tokens
"""
ASYNC_OLD = """class Scheduler:
    def _update_request_with_output(self, request, new_token_ids):
        request.output_token_ids.extend(new_token_ids)
        return new_token_ids, False


class AsyncScheduler(Scheduler):
    def _update_request_with_output(self, request, new_token_ids):
        new_token_ids, stopped = super()._update_request_with_output(request, new_token_ids)
        request.num_output_placeholders -= len(new_token_ids)
        return new_token_ids, stopped
"""
ASYNC_NEW = """class Scheduler:
    def _update_request_with_output(self, request, new_token_ids, is_stale=False):
        request.output_token_ids.extend(new_token_ids)
        if not is_stale and request.num_output_placeholders > 0:
            request.num_output_placeholders -= len(new_token_ids)
        return new_token_ids, False


class AsyncScheduler(Scheduler):
    pass
"""
SPLIT_OLD = """class BlockPool:
    def free_blocks(self, blocks):
        for block in blocks:
            block.ref_cnt -= 1
        self.free_block_queue.append_n([b for b in blocks if b.ref_cnt == 0])
"""
SPLIT_NEW = """from pkg.free_queue import release


class BlockPool:
    def free_blocks(self, blocks):
        release(self, blocks)
"""
FREE_QUEUE = """def release(pool, blocks):
    for block in blocks:
        block.ref_cnt -= 1
    pool.free_block_queue.append_n([b for b in blocks if b.ref_cnt == 0])
"""

FORWARD_OLD = """class FlashAttentionImpl:
    def forward(self, query, key, value, causal):
        output = flash_attn_varlen_func(q=query, k=key, v=value, causal=causal)
        return output
"""
FORWARD_NEW = """class FlashAttentionImpl:
    def forward(self, query, key, value, causal):
        output = _FA4_DENSE_ATTENTION_KERNEL(q=query, k=key, v=value, causal=causal)
        return output
"""

RELEASE_OLD = """def release_req(req, tree_cache):
    release_kv_cache(req, tree_cache, is_insert=False)
    req.reset_for_retract()
"""
RELEASE_NEW = """def release_req(req, tree_cache):
    release_kv_cache(req, tree_cache, checkpoint=False)
    req.reset_for_retract()
"""

RUNNING_OLD = """class Scheduler:
    def update_running_batch(self, batch):
        if (kv_full_retract_flag := not batch.check_decode_mem()) or self.test_retract:
            batch.retract_decode(self.server_args)
"""
RUNNING_NEW = """class Scheduler:
    def update_running_batch(self, batch):
        kv_full_retract_flag = not batch.check_decode_mem()
        if kv_full_retract_flag or self.test_retract:
            batch.retract_decode(self.server_args)
"""

ARGS_OLD = """from dataclasses import dataclass


@dataclass
class ServerArgs:
    model_path: str
    tp_size: int = 1
    page_size: Optional[int] = None
    chunked_prefill_size: Optional[int] = None

    def __post_init__(self):
        if self.page_size is None:
            self.page_size = 1
"""
ARGS_NEW = """from dataclasses import dataclass

from pkg.fields.schedule import Schedule


@dataclass
class ServerArgs(Schedule):
    model_path: str = ""

    def __post_init__(self):
        resolve_page_size(self)
"""
SCHEDULE = """from dataclasses import dataclass


@dataclass
class Schedule:
    \"\"\"Scheduling knobs.\"\"\"

    max_running_requests: Optional[int] = None
    page_size: Optional[int] = None
    schedule_policy: str = "fcfs"
"""
REQ_OLD = """class ReqKvInfo:
    kv_allocated_len: int


class Req:
    def __init__(self, rid):
        self.rid = rid
        self.kv_committed_len = 0
        self.kv = ReqKvInfo()
"""
REQ_NEW = """class ReqKvInfo:
    kv_allocated_len: int = 0
    kv_committed_len: int = 0
    cache_protected_len: int = 0


class Req:
    def __init__(self, rid):
        self.rid = rid
        self.kv = ReqKvInfo()
"""

# SGLang truncate-to-chunk: the chunk admission moved into _commit_prefill_admission, while the other admission path
# (add_one_req_ignore_eos, which add_one_req also calls) still sets new_chunked_req as it did: the old statement's
# counterpart is not the one that was there before, however alike its lines read
ADMIT_OLD = """class PrefillAdder:
    def add_one_req_ignore_eos(self, req):
        if req.extend_input_len <= self.rem_chunk_tokens:
            self.can_run_list.append(req)
            self._update_prefill_budget(0, req.extend_input_len, 0)
        else:
            trunc_len = self.rem_chunk_tokens // self.page_size * self.page_size
            req.set_extend_range(len(req.prefix_indices), len(req.prefix_indices) + trunc_len)
            self.can_run_list.append(req)
            self.new_chunked_req = req
            self._update_prefill_budget(0, trunc_len, 0)

    def add_one_req(self, req, has_chunked_req):
        if req.sampling_params.ignore_eos:
            return self.add_one_req_ignore_eos(req)
        if req.extend_input_len <= self.rem_chunk_tokens:
            self.can_run_list.append(req)
            self._update_prefill_budget(0, req.extend_input_len, 0)
        else:
            trunc_len = self.rem_chunk_tokens // self.page_size * self.page_size
            req.set_extend_range(len(req.prefix_indices), len(req.prefix_indices) + trunc_len)
            self.can_run_list.append(req)
            self.new_chunked_req = req
            self._update_prefill_budget(0, trunc_len, 0)
        return self.budget_state()
"""
ADMIT_NEW = """class PrefillAdder:
    def add_one_req_ignore_eos(self, req):
        if req.extend_input_len <= self.rem_chunk_tokens:
            self.can_run_list.append(req)
            self._update_prefill_budget(0, req.extend_input_len, 0)
        else:
            trunc_len = self.rem_chunk_tokens // self.page_size * self.page_size
            req.set_extend_range(len(req.prefix_indices), len(req.prefix_indices) + trunc_len)
            self.can_run_list.append(req)
            self.new_chunked_req = req
            self._update_prefill_budget(0, trunc_len, 0)

    def add_one_req(self, req, has_chunked_req):
        if req.sampling_params.ignore_eos:
            return self.add_one_req_ignore_eos(req)
        admission = self._select_prefill_admission(req)
        self._commit_prefill_admission(req, admission)
        return self.budget_state()

    def _select_prefill_admission(self, req):
        extend_len = min(req.extend_input_len, self.rem_chunk_tokens)
        return Admission(len(req.prefix_indices), extend_len, extend_len < req.extend_input_len)

    def _commit_prefill_admission(self, req, admission):
        req.extend_end = admission.prefix_len + admission.extend_len
        self.can_run_list.append(req)
        if admission.truncated:
            self.new_chunked_req = req
        self.memory_budget.reserve(admission.extend_len)
"""
# vLLM long-prefill-threshold: the 4%-of-max_model_len default was removed; the encoder-decoder branch's assignment
# of the same field was there before and is no move of it: the field's definition is what is left to point at
THRESHOLD_OLD = """class SchedulerConfig:
    long_prefill_token_threshold: int = 0
    max_num_partial_prefills: int = 1

    def __post_init__(self, is_encoder_decoder, max_model_len):
        if is_encoder_decoder:
            self.chunked_prefill_enabled = False
            self.long_prefill_token_threshold = 0
        if self.max_num_partial_prefills > 1:
            if self.long_prefill_token_threshold == 0:
                self.long_prefill_token_threshold = int(max_model_len * 0.04)
"""
THRESHOLD_NEW = """class SchedulerConfig:
    long_prefill_token_threshold: int = Field(default=0, ge=0)
    max_num_partial_prefills: int = 1

    def __post_init__(self, is_encoder_decoder, max_model_len):
        if is_encoder_decoder:
            self.chunked_prefill_enabled = False
            self.long_prefill_token_threshold = 0
        if self.long_prefill_token_threshold > max_model_len:
            raise ValueError("long_prefill_token_threshold cannot exceed max_model_len")
"""
# vLLM admit-waiting: the waiting loop lost a term of its condition; the running loop, which also ends in
# `and token_budget > 0`, was there before
WAITING_OLD = """class Scheduler:
    def schedule(self):
        token_budget = self.max_num_scheduled_tokens
        req_index = 0
        while req_index < len(self.running) and token_budget > 0:
            request = self.running[req_index]
            token_budget -= self.schedule_running(request)
            req_index += 1
        while (self.waiting or self.skipped_waiting) and token_budget > 0:
            request = self.waiting.peek_request()
            token_budget -= self.admit(request)
"""
WAITING_NEW = """class Scheduler:
    def schedule(self):
        token_budget = self.max_num_scheduled_tokens
        req_index = 0
        while req_index < len(self.running) and token_budget > 0:
            request = self.running[req_index]
            token_budget -= self.schedule_running(request)
            req_index += 1
        while token_budget > 0:
            request = self.pop_waiting()
            if request is None:
                break
            token_budget -= self.admit(request)
"""
# vLLM skip-reading-cache: the condition was extracted into KVCacheManager.prefix_cache_lookup_enabled
LOOKUP_OLD = """class KVCacheManager:
    def get_computed_blocks(self, request):
        if not self.enable_caching or request.skip_reading_prefix_cache:
            return self.empty_kv_cache_blocks, 0
        max_cache_hit_length = request.num_tokens - 1
        return self.coordinator.find_longest_cache_hit(request.block_hashes, max_cache_hit_length)
"""
LOOKUP_NEW = """class KVCacheManager:
    def prefix_cache_lookup_enabled(self, request):
        return self.enable_caching and not request.skip_reading_prefix_cache

    def record_prefix_cache_stats(self, request, num_hits):
        if not self.log_stats or not self.prefix_cache_lookup_enabled(request):
            return
        self.prefix_cache_stats.record(num_tokens=request.num_tokens, num_hits=num_hits)

    def get_computed_blocks(self, request, max_cache_hit_length=None):
        if not self.prefix_cache_lookup_enabled(request):
            return self.empty_kv_cache_blocks, 0, 0
        if max_cache_hit_length is None:
            max_cache_hit_length = request.num_tokens - 1
        return self.coordinator.find_longest_cache_hit(request.block_hashes, max_cache_hit_length)
"""
# vLLM async-commit: AsyncScheduler's override was folded into its base class, Scheduler, of another module, and the
# statement changed on the way
PLACEHOLDERS_OLD = {
    "pkg/scheduler.py": """class Scheduler:
    def _update_request_with_output(self, request, new_token_ids):
        request.append_output_token_ids(new_token_ids)
        return new_token_ids, False
""",
    "pkg/async_scheduler.py": """from pkg.scheduler import Scheduler


class AsyncScheduler(Scheduler):
    def _update_request_with_output(self, request, new_token_ids):
        status_before_update = request.status
        new_token_ids, stopped = super()._update_request_with_output(request, new_token_ids)
        request.num_output_placeholders -= len(new_token_ids)
        assert request.num_output_placeholders >= 0
        return new_token_ids, stopped
""",
}
PLACEHOLDERS_NEW = {
    "pkg/scheduler.py": """class Scheduler:
    def _update_request_with_output(self, request, new_token_ids, is_stale=False):
        num_new_tokens = len(new_token_ids)
        request.append_output_token_ids(new_token_ids)
        if not is_stale and request.num_output_placeholders > 0:
            request.num_output_placeholders -= num_new_tokens
            assert request.num_output_placeholders >= 0
        return new_token_ids, False
""",
    "pkg/async_scheduler.py": """from pkg.scheduler import Scheduler


class AsyncScheduler(Scheduler):
    pass
""",
}
# SGLang release-overallocated: the non-speculative assert gained an `or` term (a stop before the last committed token)
OVERALLOCATED_OLD = """def _release_overallocated_kv_indices(req, start_p, end_p, tree_cache):
    allocator = tree_cache.token_to_kv_pool_allocator
    if get_spec().speculative_algorithm is None:
        assert start_p == end_p, f"Unexpected overallocated KV cache, {req.kv.kv_allocated_len=}"
    if start_p < end_p:
        allocator.free(req.kv.indices[start_p:end_p])
"""
OVERALLOCATED_NEW = """def _release_overallocated_kv_indices(req, start_p, end_p, tree_cache):
    allocator = tree_cache.token_to_kv_pool_allocator
    if get_spec().speculative_algorithm is None:
        assert start_p == end_p or (
            req.finished_len is not None
            and len(req.origin_input_ids) + req.finished_len < req.kv.kv_committed_len
        ), f"Unexpected overallocated KV cache, {req.kv.kv_committed_len=}, {req.kv.kv_allocated_len=}"
    if start_p < end_p:
        allocator.free(req.kv.indices[start_p:end_p])
"""
# SGLang page-size-default: the platform test became a property of the platform object
PAGE_DEFAULT_OLD = """from pkg.utils import is_musa


def _page_size_default(args):
    if args.page_size is not None:
        return {}
    if not is_musa():
        return {"page_size": 1}
    return {"page_size": 64}
"""
PAGE_DEFAULT_NEW = """from pkg.platforms import get_platform


def _page_size_default(args):
    if args.page_size is not None:
        return {}
    if not get_platform().is_musa:
        return {"page_size": 1}
    return {"page_size": 64}
"""

# (rule, old files, new files, (symbol, pattern), where it must land: (symbol, pattern))
CASES = [
    (
        "renamed variable in a helper",
        {"pkg/adder.py": ADDER_OLD},
        {"pkg/adder.py": ADDER_NEW},
        ("pkg.adder.PrefillAdder.add_one_req", "trunc_len = chunk_tokens_limit // self.page_size * self.page_size"),
        ("pkg.adder.PrefillAdder._select_admission", "chunk_tokens_limit // self.page_size * self.page_size"),
    ),
    (
        "statement moved into a helper",
        {"pkg/adder.py": ADDER_OLD},
        {"pkg/adder.py": ADDER_NEW},
        ("pkg.adder.PrefillAdder.add_one_req", "self.new_chunked_req = req"),
        ("pkg.adder.PrefillAdder._commit", "self.new_chunked_req = req"),
    ),
    (
        "setting written through a setter call",
        {"pkg/hook.py": HOOK_OLD},
        {"pkg/hook.py": HOOK_NEW},
        ("pkg.hook._handle_ngram", "server_args.speculative_num_draft_tokens = 12"),
        ("pkg.hook._handle_ngram", "declare_resolution(server_args, '_handle_ngram', speculative_num_draft_tokens=12)"),
    ),
    (
        "attribute under a sub-object, in an imported helper of another module",
        {"pkg/batch.py": BATCH_OLD},
        {"pkg/batch.py": BATCH_NEW, "pkg/allocation.py": ALLOCATION},
        ("pkg.batch.ScheduleBatch.prepare_for_extend", "req.kv_committed_len = seq_len"),
        ("pkg.allocation.alloc_for_extend", "req.kv.kv_committed_len = seq_len"),
    ),
    (
        "renamed argument",
        {"pkg/sched.py": SCHED_OLD},
        {"pkg/sched.py": SCHED_NEW},
        ("pkg.sched.Scheduler.schedule", "num_new_tokens = min(num_new_tokens, token_budget)"),
        ("pkg.sched.Scheduler.schedule", "num_new_tokens = min(num_new_tokens, request_token_budget)"),
    ),
    (
        "renamed callee, the pattern's own wildcards kept",
        {"pkg/attn.py": FORWARD_OLD},
        {"pkg/attn.py": FORWARD_NEW},
        ("pkg.attn.FlashAttentionImpl.forward", "flash_attn_varlen_func(..., causal=causal)"),
        ("pkg.attn.FlashAttentionImpl.forward", "_FA4_DENSE_ATTENTION_KERNEL(..., causal=causal)"),
    ),
    (
        "renamed keyword argument",
        {"pkg/batch.py": RELEASE_OLD},
        {"pkg/batch.py": RELEASE_NEW},
        ("pkg.batch.release_req", "release_kv_cache(req, tree_cache, is_insert=False)"),
        ("pkg.batch.release_req", "release_kv_cache(req, tree_cache, checkpoint=False)"),
    ),
    (
        "walrus unrolled",
        {"pkg/sched.py": RUNNING_OLD},
        {"pkg/sched.py": RUNNING_NEW},
        (
            "pkg.sched.Scheduler.update_running_batch",
            "if (kv_full_retract_flag := not batch.check_decode_mem()) or ...: ...",
        ),
        ("pkg.sched.Scheduler.update_running_batch", "kv_full_retract_flag = not batch.check_decode_mem()"),
    ),
    (
        "override folded into the base class (whole symbol)",
        {"pkg/sched.py": ASYNC_OLD},
        {"pkg/sched.py": ASYNC_NEW},
        ("pkg.sched.AsyncScheduler._update_request_with_output", ""),
        ("pkg.sched.Scheduler._update_request_with_output", ""),
    ),
    (
        "module split: statement moved to a function of a new module",
        {"pkg/pool.py": SPLIT_OLD},
        {"pkg/pool.py": SPLIT_NEW, "pkg/free_queue.py": FREE_QUEUE},
        ("pkg.pool.BlockPool.free_blocks", "block.ref_cnt -= 1"),
        ("pkg.free_queue.release", "block.ref_cnt -= 1"),
    ),
    (
        "field: a default added in the same class",
        {"pkg/req.py": REQ_OLD},
        {"pkg/req.py": REQ_NEW},
        ("pkg.req.ReqKvInfo", "kv_allocated_len: int"),
        ("pkg.req.ReqKvInfo", "kv_allocated_len: int = 0"),
    ),
    (
        "field: moved onto a sub-object's class",
        {"pkg/req.py": REQ_OLD},
        {"pkg/req.py": REQ_NEW},
        ("pkg.req.Req.__init__", "self.kv_committed_len = 0"),
        ("pkg.req.ReqKvInfo", "kv_committed_len: int = 0"),
    ),
    (
        "field: a config class split into field groups",
        {"pkg/server_args.py": ARGS_OLD},
        {"pkg/server_args.py": ARGS_NEW, "pkg/fields/__init__.py": "", "pkg/fields/schedule.py": SCHEDULE},
        ("pkg.server_args.ServerArgs", "page_size: ... = None"),
        ("pkg.fields.schedule.Schedule", "page_size: ... = None"),
    ),
    (
        "ranking: the other admission path kept its own statement",
        {"pkg/adder.py": ADMIT_OLD},
        {"pkg/adder.py": ADMIT_NEW},
        ("pkg.adder.PrefillAdder.add_one_req", "self.new_chunked_req = req"),
        ("pkg.adder.PrefillAdder._commit_prefill_admission", "self.new_chunked_req = req"),
    ),
    (
        "ranking: a relaxed match that was another statement before is left out",
        {"pkg/config.py": THRESHOLD_OLD},
        {"pkg/config.py": THRESHOLD_NEW},
        ("pkg.config.SchedulerConfig.__post_init__", "self.long_prefill_token_threshold = int(max_model_len * 0.04)"),
        ("pkg.config.SchedulerConfig", "long_prefill_token_threshold: int = Field(default=0, ge=0)"),
    ),
    (
        "a condition lost a term; the loop that was there before is left out",
        {"pkg/sched.py": WAITING_OLD},
        {"pkg/sched.py": WAITING_NEW},
        ("pkg.sched.Scheduler.schedule", "while (self.waiting or self.skipped_waiting) and token_budget > 0: ..."),
        ("pkg.sched.Scheduler.schedule", "while token_budget > 0: ..."),
    ),
    (
        "override folded into a base class of another module (a statement)",
        PLACEHOLDERS_OLD,
        PLACEHOLDERS_NEW,
        (
            "pkg.async_scheduler.AsyncScheduler._update_request_with_output",
            "request.num_output_placeholders -= len(new_token_ids)",
        ),
        ("pkg.scheduler.Scheduler._update_request_with_output", "request.num_output_placeholders -= num_new_tokens"),
    ),
    (
        "a condition gained a term",
        {"pkg/common.py": OVERALLOCATED_OLD},
        {"pkg/common.py": OVERALLOCATED_NEW},
        ("pkg.common._release_overallocated_kv_indices", "assert start_p == end_p, ..."),
        ("pkg.common._release_overallocated_kv_indices", "assert start_p == end_p or ..., ..."),
    ),
    (
        "a function became a property of an object",
        {"pkg/overrides.py": PAGE_DEFAULT_OLD},
        {"pkg/overrides.py": PAGE_DEFAULT_NEW},
        ("pkg.overrides._page_size_default", "if not is_musa(): ..."),
        ("pkg.overrides._page_size_default", "if not get_platform().is_musa: ..."),
    ),
    (
        "condition extracted into a method",
        {"pkg/kv.py": LOOKUP_OLD},
        {"pkg/kv.py": LOOKUP_NEW},
        (
            "pkg.kv.KVCacheManager.get_computed_blocks",
            "if not self.enable_caching or request.skip_reading_prefix_cache: ...",
        ),
        ("pkg.kv.KVCacheManager.get_computed_blocks", "if not self.prefix_cache_lookup_enabled(request): ..."),
    ),
]


def tree(root, files: dict[str, str], ref: str) -> FolderIndex:
    for rel, text in {"pkg/__init__.py": "", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    index = FolderIndex(root, Pin("vllm", ref, (ref * 40)[:40], "https://example.invalid/vllm"))
    index.find("__all__")  # load every module, as the real index holds every symbol
    return index


@pytest.mark.parametrize("rule, old_files, new_files, item, expected", CASES, ids=[c[0] for c in CASES])
def test_rule_finds_where_the_code_went(tmp_path, rule, old_files, new_files, item, expected):
    old, new = tree(tmp_path / "old", old_files, "a"), tree(tmp_path / "new", new_files, "b")
    hit = Finder(old, new, []).locate(item[0], item[1], 1)
    assert hit is not None, rule
    assert (hit.symbol, hit.pattern) == expected
    # the suggestion resolves at the new tree, to the line it names
    symbol = new.get(hit.symbol)
    line = Resolver(new).locate(symbol, hit.pattern, hit.occurrence)[0] if hit.pattern else symbol.span.start
    assert line == hit.line


@pytest.mark.parametrize("case", [c for c in CASES if c[0].startswith("field")], ids=lambda c: c[0])
def test_fields_are_found_by_the_field_rule(tmp_path, case):
    _, old_files, new_files, (symbol, pattern), _ = case
    old, new = tree(tmp_path / "old", old_files, "a"), tree(tmp_path / "new", new_files, "b")
    assert Finder(old, new, []).locate(symbol, pattern, 1).rule == "field"


def test_a_field_gained_by_several_classes_is_not_guessed(tmp_path):
    old = tree(tmp_path / "old", {"pkg/req.py": REQ_OLD}, "a")
    new = tree(tmp_path / "new", {"pkg/req.py": REQ_NEW + "\n\nclass Other:\n    kv_committed_len: int = 1\n"}, "b")
    assert Finder(old, new, []).locate("pkg.req.Req.__init__", "self.kv_committed_len = 0", 1) is None


def test_unrelated_code_is_not_suggested(tmp_path):
    old = tree(tmp_path / "old", {"pkg/adder.py": ADDER_OLD}, "a")
    new = tree(
        tmp_path / "new",
        {"pkg/adder.py": "class PrefillAdder:\n    def add_one_req(self, req):\n        return self.admit(req)\n"},
        "b",
    )
    assert Finder(old, new, []).locate("pkg.adder.PrefillAdder.add_one_req", "self.new_chunked_req = req", 1) is None


def test_a_renamed_symbol_is_followed_through_the_symbol_changes(tmp_path):
    old = tree(tmp_path / "old", {"pkg/hook.py": HOOK_OLD}, "a")
    new = tree(tmp_path / "new", {"pkg/hook.py": HOOK_OLD.replace("_handle_ngram", "handle_ngram_defaults")}, "b")
    changes = [Change(ChangeKind.RENAMED, "pkg.hook._handle_ngram", "pkg.hook.handle_ngram_defaults")]
    hit = Finder(old, new, changes).locate("pkg.hook._handle_ngram", "server_args.enable_mixed_chunk = False", 1)
    assert (hit.symbol, hit.rule) == ("pkg.hook.handle_ngram_defaults", "renamed")


# SGLang check-decode-mem: the evict-then-compare moved into the allocator, a method of another object
# (`self.token_to_kv_pool_allocator.check_decode_capacity(...)`) that only the call graph's types resolve; inside it
# the batch's allocator is `self` and its tree cache the `tree_cache` argument
ALLOCATOR_OLD = """class BaseTokenToKVPoolAllocator:
    def available_size(self):
        return len(self.free_pages) * self.page_size
"""
ALLOCATOR_NEW = (
    ALLOCATOR_OLD
    + """
    def evict_to_free_tokens(self, tree_cache, num_tokens):
        if self.available_size() < num_tokens:
            tree_cache.evict(num_tokens - self.available_size())

    def check_decode_capacity(self, *, num_tokens, tree_cache, requests=None):
        self.evict_to_free_tokens(tree_cache, num_tokens)
        return self.available_size() >= num_tokens
"""
)
DECODE_MEM_OLD = """from dataclasses import dataclass

from pkg.allocator import BaseTokenToKVPoolAllocator
from pkg.common import evict_from_tree_cache


@dataclass
class ScheduleBatch:
    reqs: list
    tree_cache: object = None
    token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator = None

    def check_decode_mem(self, selected_indices=None):
        num_tokens = self.new_tokens_required_next_decode(selected_indices)
        evict_from_tree_cache(self.tree_cache, num_tokens)
        return self.token_to_kv_pool_allocator.available_size() >= num_tokens
"""
DECODE_MEM_NEW = """from dataclasses import dataclass

from pkg.allocator import BaseTokenToKVPoolAllocator


@dataclass
class ScheduleBatch:
    reqs: list
    tree_cache: object = None
    token_to_kv_pool_allocator: BaseTokenToKVPoolAllocator = None

    def check_decode_mem(self, selected_indices=None):
        num_tokens = self.new_tokens_required_next_decode(selected_indices)
        requests = self.reqs if selected_indices is None else [self.reqs[i] for i in selected_indices]
        return self.token_to_kv_pool_allocator.check_decode_capacity(
            num_tokens=num_tokens, tree_cache=self.tree_cache, requests=requests)
"""
COMMON = """def evict_from_tree_cache(tree_cache, num_tokens):
    tree_cache.evict(num_tokens)
"""
TYPED_OLD = {"pkg/allocator.py": ALLOCATOR_OLD, "pkg/batch.py": DECODE_MEM_OLD, "pkg/common.py": COMMON}
TYPED_NEW = {"pkg/allocator.py": ALLOCATOR_NEW, "pkg/batch.py": DECODE_MEM_NEW, "pkg/common.py": COMMON}


def call_graph(files: dict[str, str]) -> AtlasGraph:
    """The call graph atlas's resolver builds for the fixture files (the graph `atlas index` stores)."""
    facts = [extract(text.encode(), rel, *module_name(rel)) for rel, text in {"pkg/__init__.py": "", **files}.items()]
    graph = nx.MultiDiGraph()
    for (caller, callee), lines in Solver(facts).solve().edges.items():
        for line, provenance in lines.items():
            graph.add_edge(caller, callee, provenance=provenance.value, confidence=1.0, path="", line=line)
    return AtlasGraph(Pin("sglang", "b", "b" * 40, "https://example.invalid/sglang"), graph, {})


@pytest.mark.parametrize(
    "pattern, rule, expected",
    [
        (
            "return self.token_to_kv_pool_allocator.available_size() >= num_tokens",
            "typed helper",
            "return self.available_size() >= num_tokens",
        ),
        (
            "evict_from_tree_cache(self.tree_cache, num_tokens)",
            "relaxed",
            "self.evict_to_free_tokens(tree_cache, num_tokens)",
        ),
    ],
    ids=["as the callee writes it", "relaxed inside the callee"],
)
def test_typed_helper_follows_a_method_of_another_object(tmp_path, pattern, rule, expected):
    old, new = tree(tmp_path / "old", TYPED_OLD, "a"), tree(tmp_path / "new", TYPED_NEW, "b")
    symbol = "pkg.batch.ScheduleBatch.check_decode_mem"
    assert Finder(old, new, []).locate(symbol, pattern, 1) is None  # no graph: no rule looks there
    hit = Finder(old, new, [], graph=call_graph(TYPED_NEW)).locate(symbol, pattern, 1)
    assert (hit.symbol, hit.pattern, hit.rule) == (
        "pkg.allocator.BaseTokenToKVPoolAllocator.check_decode_capacity",
        expected,
        rule,
    )
    assert Resolver(new).locate(new.get(hit.symbol), hit.pattern, hit.occurrence)[0] == hit.line


ANNOTATION = """schema: 1
framework: vllm
annotations:
  - id: vllm.chunked-prefill.truncate   # a comment that must stay
    mechanism: chunked-prefill
    symbol: pkg.adder.PrefillAdder.add_one_req
    anchor: {pattern: "self.new_chunked_req = req"}
    role: plan
    summary: A too-long request is admitted as a page-aligned chunk.
    claims:
      - id: chunk-page-aligned
        article: "chunk"
        claim: The chunk is page aligned.
        verdict: holds
        evidence:
          - pattern: "trunc_len = chunk_tokens_limit // self.page_size * self.page_size"
"""


def test_apply_writes_at_entries_that_resolve_at_both_pins(tmp_path):
    old, new = (
        tree(tmp_path / "old", {"pkg/adder.py": ADDER_OLD}, "a"),
        tree(tmp_path / "new", {"pkg/adder.py": ADDER_NEW}, "b"),
    )
    project = tmp_path / "project"
    (project / "annotations" / "vllm").mkdir(parents=True)
    path = project / "annotations" / "vllm" / "chunked.yaml"
    path.write_text(ANNOTATION)
    annotations = load_annotations(project)
    broken = list(broken_items(annotations, old, new, [], "default", "latest"))
    assert [(b.claim, b.hit is not None) for b in broken] == [("", True), ("chunk-page-aligned", True)]
    assert len(apply_suggestions(project, broken, "latest")) == 2
    text = path.read_text()
    assert "# a comment that must stay" in text and "    at:\n      latest:\n" in text
    annotations = load_annotations(project)
    assert check(annotations, old, "default").findings == ()
    assert check(annotations, new, "latest").findings == ()
