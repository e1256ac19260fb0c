"""Stand-in objects for bench_probe_cost.py, shaped like a vLLM and an SGLang decode step (the attributes the
probes' captures read): the classes to hook, one call per hook, and a whole step."""

from __future__ import annotations

import collections
import types
from enum import Enum

NS = types.SimpleNamespace


class Mode(Enum):
    DECODE = 1
    FULL = 2


class EngineCoreOutput:  # slotted, as vLLM's msgspec Struct is (attribute reads specialise as they do there)
    __slots__ = ("request_id", "new_token_ids", "finish_reason")

    def __init__(self, request_id, new_token_ids, finish_reason=None):
        self.request_id, self.new_token_ids, self.finish_reason = request_id, new_token_ids, finish_reason


def _no_work() -> None:
    return None


def vllm_objects(batch: int, work=_no_work):
    """The classes, one call per hook, and a decode step: schedule, allocate_slots once per running request (a
    new block from the pool for one request in 16, as at block size 16),
    execute_model, _determine_batch_execution_and_padding, sample_tokens, update_from_output. Each step's objects
    are new (the engine builds them per step), so the flusher cannot share them between records. Each hooked
    method first runs `work()`: the engine's own work inside the call (bench_probe_cold.py: caches evicted)."""
    rids = [f"req-{i}" for i in range(batch)]
    requests = {r: NS(num_prompt_tokens=256, num_computed_tokens=300, request_id=r) for r in rids}

    def scheduler_output():
        return NS(
            num_scheduled_tokens={r: 1 for r in rids},
            scheduled_new_reqs=[],
            scheduled_cached_reqs=NS(
                req_ids=list(rids),
                num_computed_tokens=[300] * batch,
                num_output_tokens=[44] * batch,
                new_block_ids=[None] * batch,
            ),
            scheduled_spec_decode_tokens={},
            preempted_req_ids=set(),
            total_num_scheduled_tokens=batch,
        )

    class HashToBlock:  # vLLM's BlockHashToBlockMap: a dict behind a Python-level __len__
        def __init__(self):
            self._cache = dict.fromkeys(range(300))

        def __len__(self):
            return len(self._cache)

    class Scheduler:
        def __init__(self):
            self.requests = requests
            self.running = [requests[r] for r in rids]  # the state the plan capture reads after the plan
            self.waiting = collections.deque()
            self.skipped_waiting = collections.deque()
            self.block_size = 16
            pool = NS(free_block_queue=NS(num_free_blocks=40_000), cached_block_hash_to_block=HashToBlock())
            pool.num_gpu_blocks = 44_000
            self.kv_cache_manager = NS(block_pool=pool)

        def schedule(self):
            work()
            return scheduler_output()

        def update_from_output(self, scheduler_output, model_runner_output):
            work()
            return {0: NS(outputs=[EngineCoreOutput(r, [7]) for r in rids])}

    class BlockPool:
        def get_new_blocks(self, num_blocks):
            work()
            return [NS(block_id=i) for i in range(num_blocks)]

    pool = BlockPool()

    class KVCacheManager:
        def allocate_slots(self, request, num_new_tokens):  # a new block every block_size (16) decode steps
            request.num_computed_tokens += num_new_tokens
            return NS(blocks=(pool.get_new_blocks(1) if request.num_computed_tokens % 16 == 0 else [],))

    class GPUModelRunner:
        def execute_model(self, scheduler_output):
            work()
            return None

        def _determine_batch_execution_and_padding(
            self,
            num_tokens,
            num_reqs,
            num_scheduled_tokens_np,
            max_num_scheduled_tokens,
            use_cascade_attn=False,
            allow_microbatching=True,
            force_eager=False,
            num_encoder_reqs=0,
        ):  # vLLM 0.32's, called with keywords
            work()
            return Mode.FULL, None

        def sample_tokens(self, grammar_output):
            work()
            return NS(req_ids=list(rids), sampled_token_ids=[[7] for _ in rids])

    sched, kv, runner = Scheduler(), KVCacheManager(), GPUModelRunner()

    def padding(num_tokens):  # as GPUModelRunner.execute_model calls it
        return runner._determine_batch_execution_and_padding(
            num_tokens=num_tokens,
            num_reqs=batch,
            num_scheduled_tokens_np=None,
            max_num_scheduled_tokens=1,
            use_cascade_attn=False,
            num_encoder_reqs=0,
            allow_microbatching=True,
        )

    so, req = scheduler_output(), requests[rids[0]]
    mro = runner.sample_tokens(None)
    calls = {
        "Scheduler.schedule": lambda: sched.schedule(),
        "KVCacheManager.allocate_slots": lambda: kv.allocate_slots(req, 1),
        "BlockPool.get_new_blocks": lambda: pool.get_new_blocks(1),
        "GPUModelRunner.execute_model": lambda: runner.execute_model(so),
        "GPUModelRunner._determine_batch_execution_and_padding": lambda: padding(batch),
        "GPUModelRunner.sample_tokens": lambda: runner.sample_tokens(None),
        "Scheduler.update_from_output": lambda: sched.update_from_output(so, mro),
    }

    def step():
        out = sched.schedule()
        for rid in rids:
            kv.allocate_slots(requests[rid], 1)
        runner.execute_model(out)
        padding(batch)
        sampled = runner.sample_tokens(None)
        sched.update_from_output(out, sampled)

    return (
        {
            "Scheduler": Scheduler,
            "KVCacheManager": KVCacheManager,
            "BlockPool": BlockPool,
            "GPUModelRunner": GPUModelRunner,
        },
        calls,
        step,
    )


def sglang_objects(batch: int):
    """As vllm_objects for SGLang's decode step: get_next_batch_to_run, prepare_for_decode, run_batch,
    process_batch_result (output_ids grow). RadixCache.match_prefix runs only while requests wait (a prefill),
    so the decode step has none."""

    class Req:
        def __init__(self, i):
            self.rid = f"req-{i}"
            self.origin_input_ids = list(range(256))
            self.output_ids = list(range(40))
            self.prefix_indices = list(range(256))
            self.extend_input_len = 0
            self.fill_ids = self.origin_input_ids
            self.finished_reason = None

        def finished(self):
            return self.finished_reason is not None

    class ScheduleBatch:
        def __init__(self):
            self.reqs = [Req(i) for i in range(batch)]
            self.forward_mode = Mode.DECODE
            self.spec_num_draft_tokens = 0

        def prepare_for_decode(self):
            return None

    the_batch = ScheduleBatch()
    match = NS(device_indices=list(range(64)))

    class Allocator:
        def available_size(self):
            return 400_000

    class Tree:
        def evictable_size(self):
            return 3000

        def protected_size(self):
            return 256 * batch

    class Scheduler:
        new_token_ratio = 0.4

        def __init__(self):  # the state the plan capture reads after the plan
            self.running_batch, self.waiting_queue = the_batch, []
            self.token_to_kv_pool_allocator, self.tree_cache = Allocator(), Tree()
            self.max_total_num_tokens = 500_000

        def get_next_batch_to_run(self):
            return the_batch

        def run_batch(self, batch):
            return NS(can_run_cuda_graph=True, num_correct_drafts=0)

        def process_batch_result(self, batch, result):
            for req in batch.reqs:
                req.output_ids.append(7)
            return None

    class RadixCache:
        def match_prefix(self, key):
            return match

    sched, cache = Scheduler(), RadixCache()
    result = sched.run_batch(the_batch)
    calls = {
        "Scheduler.get_next_batch_to_run": lambda: sched.get_next_batch_to_run(),
        "ScheduleBatch.prepare_for_decode": lambda: the_batch.prepare_for_decode(),
        "Scheduler.run_batch": lambda: sched.run_batch(the_batch),
        "Scheduler.process_batch_result": lambda: sched.process_batch_result(the_batch, result),
        "RadixCache.match_prefix": lambda: cache.match_prefix(None),
    }

    def step():
        batch_ = sched.get_next_batch_to_run()
        batch_.prepare_for_decode()
        out = sched.run_batch(batch_)
        sched.process_batch_result(batch_, out)
        if len(batch_.reqs[0].output_ids) > 4096:  # keep the requests' size steady over a long run
            for req in batch_.reqs:
                del req.output_ids[40:]

    return {"Scheduler": Scheduler, "ScheduleBatch": ScheduleBatch, "RadixCache": RadixCache}, calls, step
