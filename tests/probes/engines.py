"""Stand-in engines shaped like vLLM's and SGLang's hooked classes (the attributes the captures read), each with a
driver for a few steps whose records are known by hand; run under the probe with atlas's built-in hook list."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from atlas.runtime.defaults import default_hooks

REPO = Path(__file__).resolve().parents[2]

VLLM = """\
import enum
from types import SimpleNamespace as NS


class FinishReason(enum.IntEnum):  # as vLLM's: an IntEnum, which marshal cannot take as it is
    STOP = 0


class Mode(enum.Enum):
    FULL = 2


class Request:
    def __init__(self, rid, prompt):
        self.request_id, self.num_prompt_tokens = rid, prompt


A, B = Request("a", 24), Request("b", 20)
STEPS = [  # (SchedulerOutput, blocks allocate_slots returns per request, sampled tokens, (new tokens, finished))
    (NS(num_scheduled_tokens={"a": 8, "b": 4}, total_num_scheduled_tokens=12, scheduled_spec_decode_tokens={},
        preempted_req_ids=set(), scheduled_new_reqs=[NS(req_id="a", num_computed_tokens=0, block_ids=([1, 2],)),
                                                     NS(req_id="b", num_computed_tokens=16, block_ids=([3],))],
        scheduled_cached_reqs=NS(req_ids=[], num_computed_tokens=[], num_output_tokens=[], new_block_ids=[])),
     {"a": ([1, 2],), "b": None}, {"a": [5], "b": [6]}, {"a": ([5], None), "b": ([6], None)}),
    (NS(num_scheduled_tokens={"a": 3, "b": 1}, total_num_scheduled_tokens=4, scheduled_spec_decode_tokens={"a": [1, 2]},
        preempted_req_ids={"b"}, scheduled_new_reqs=[],
        scheduled_cached_reqs=NS(req_ids=["a", "b"], num_computed_tokens=[8, 20], num_output_tokens=[1, 1],
                                 new_block_ids=[None, ([9],)])),
     {"a": ([4],), "b": ([],)}, {"a": [5, 7], "b": [6]}, {"a": ([5, 7], None), "b": ([6], FinishReason.STOP)}),
    (NS(num_scheduled_tokens={"a": 1}, total_num_scheduled_tokens=1, scheduled_spec_decode_tokens={},
        preempted_req_ids=set(), scheduled_new_reqs=[],
        scheduled_cached_reqs=NS(req_ids=["a"], num_computed_tokens=[10], num_output_tokens=[3], new_block_ids=[None])),
     {"a": ([],)}, {"a": [8]}, {"a": ([8], None)}),
]


class BlockPool:
    def get_new_blocks(self, num_blocks):
        return list(range(num_blocks))


class KVCacheManager:
    step = 0
    pool = BlockPool()

    def get_computed_blocks(self, request):
        return (NS(blocks=([1],)), 16) if request is A else (NS(blocks=([],)), 0)

    def allocate_slots(self, request, num_new_tokens):
        blocks = STEPS[self.step][1][request.request_id]
        if blocks and sum(map(len, blocks)):
            self.pool.get_new_blocks(sum(map(len, blocks)))
        return None if blocks is None else NS(blocks=blocks)

    def get_blocks(self, request_id):
        return NS(blocks=([1, 2, 3],))

    def free(self, request):
        return None


class Scheduler:
    def __init__(self):
        self.kv = KVCacheManager()

    def add_request(self, request):
        return None

    def schedule(self):
        out = STEPS[self.kv.step][0]
        for rid in out.num_scheduled_tokens:
            self.kv.allocate_slots(A if rid == "a" else B, 1)
        return out

    def update_from_output(self, scheduler_output, model_runner_output):
        emitted = STEPS[self.kv.step][3]
        return {0: NS(outputs=[NS(request_id=r, new_token_ids=t, finish_reason=f) for r, (t, f) in emitted.items()])}


class GPUModelRunner:
    def execute_model(self, scheduler_output):
        return None

    def _determine_batch_execution_and_padding(self, num_tokens):
        return Mode.FULL, NS(num_tokens=16)  # the batch as it runs: padded to the captured graph's size

    def sample_tokens(self, grammar_output):
        return None


def drive():
    s, runner = Scheduler(), GPUModelRunner()
    for r in (A, B):
        s.add_request(r)
        s.kv.get_computed_blocks(r)
    for step in range(len(STEPS)):
        s.kv.step = step
        out = s.schedule()
        runner.execute_model(out)
        runner._determine_batch_execution_and_padding(out.total_num_scheduled_tokens)
        runner.sample_tokens(None)
        sampled = STEPS[step][2]
        s.update_from_output(out, NS(req_ids=list(sampled), sampled_token_ids=list(sampled.values())))
    s.kv.free(B)
"""

SGLANG = """\
import enum
from types import SimpleNamespace as NS


class ForwardMode(enum.Enum):
    EXTEND = 1
    DECODE = 2


class Req:
    def __init__(self, rid, prompt, prefix):
        self.rid, self.origin_input_ids, self.output_ids = rid, list(range(prompt)), []
        self.prefix_indices, self.extend_range = list(range(prefix)), NS(start=prefix, end=prompt)
        self.finished_reason = None

    def finished(self):
        return self.finished_reason is not None


class ScheduleBatch:
    def __init__(self, reqs, mode):
        self.reqs, self.forward_mode = reqs, mode
        self.extend_num_tokens = sum(r.extend_range.end - r.extend_range.start for r in reqs)

    def prepare_for_extend(self):
        return None

    def prepare_for_decode(self):
        return None


class RadixCache:
    def match_prefix(self, key):
        return NS(device_indices=list(range(4 if key == "a" else 0)))

    def cache_finished_req(self, req, kv_len_to_handle=None):
        return None


class Scheduler:
    def __init__(self):
        self.new_token_ratio_tracker = NS(current=0.7)
        self.cache, self.reqs, self.polls = RadixCache(), [Req("a", 10, 4), Req("b", 6, 0)], 0

    def handle_generate_request(self, recv_req):
        return None

    def get_next_batch_to_run(self):
        self.polls += 1
        if self.polls == 1:
            for r in self.reqs:
                self.cache.match_prefix(r.rid)
            return NS(batch_to_run=ScheduleBatch(self.reqs, ForwardMode.EXTEND))
        if self.polls == 2:
            return NS(batch_to_run=None)  # an idle poll: no record, no step
        return NS(batch_to_run=ScheduleBatch(self.reqs, ForwardMode.DECODE))

    def run_batch(self, batch):
        return NS(can_run_cuda_graph=batch.forward_mode is ForwardMode.DECODE)

    def process_batch_result(self, batch, result):
        for r in batch.reqs:
            r.output_ids.append(1)
            if r.rid == "a" and len(r.output_ids) == 2:
                r.finished_reason = "length"
                self.cache.cache_finished_req(r, kv_len_to_handle=12)


def drive():
    s = Scheduler()
    for r in s.reqs:
        s.handle_generate_request(NS(rid=r.rid, input_ids=r.origin_input_ids))
    for _ in range(3):
        plan = s.get_next_batch_to_run()
        batch = plan.batch_to_run
        if batch is None:
            continue
        batch.prepare_for_extend() if batch.forward_mode is ForwardMode.EXTEND else batch.prepare_for_decode()
        s.process_batch_result(batch, s.run_batch(batch))
"""

SOURCES = {"vllm": VLLM, "sglang": SGLANG}


def run(tmp_path: Path, framework: str) -> Path:
    """Drive the stand-in of `framework` under the probe with the built-in hooks; returns the trace folder."""
    (tmp_path / "standin.py").write_text(SOURCES[framework])
    out = tmp_path / "out"
    hooks = [
        dict(e, module="standin", symbol=f"standin.{e['qualname']}", path="standin.py", line=1, end_line=2)
        for e in default_hooks(framework, "cpu")
    ]
    spec = {
        "framework": framework,
        "package": "standin",
        "package_root": "",
        "commit": "0" * 40,
        "engine_version": "0",
        "out": str(out),
        "blobs": {},
        "flush_interval_s": 0.1,
        "hooks": hooks,
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    script = (
        f"import standin\nfrom probes.runtime import install_from_env\n"
        f"assert install_from_env({framework!r})\nstandin.drive()\n"
    )
    env = dict(os.environ, ATLAS_PROBES=str(tmp_path / "spec.json"), PYTHONPATH=f"{REPO}{os.pathsep}{tmp_path}")
    env.pop("ATLAS_TRACE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    return out
