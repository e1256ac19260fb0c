"""Two processes as two tensor-parallel ranks of a stand-in engine (a package named `vllm` in tmp_path, with a
parallel_state like vLLM's): rank records read lazily, collectives aggregated per step with their bytes, shards of
both processes merged on one clock with the residual skew at the barriers measured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from atlas.runtime.clock import offsets, skew
from atlas.runtime.merge import merge
from atlas.runtime.perfetto import chrome_trace
from atlas.runtime.ranks import per_rank, rank_label

REPO = Path(__file__).resolve().parents[2]
LAYERS, STEPS, NUMEL = 4, 5, 1024

PARALLEL_STATE = """\
_TP = None
_WORLD = None


class GroupCoordinator:
    def __init__(self, rank, size, name, barrier):
        self.rank_in_group, self.world_size, self.unique_name, self.barrier = rank, size, name, barrier

    def all_reduce(self, input_):
        self.barrier.wait()  # a collective: every rank leaves it together
        return input_


def init(rank, size, barrier):
    global _TP, _WORLD
    _TP = GroupCoordinator(rank, size, "tp:0", barrier)
    _WORLD = GroupCoordinator(rank, size, "world:0", barrier)
"""

RUNNER = """\
from vllm.distributed import parallel_state


class Tensor:
    def __init__(self, numel):
        self.n = numel

    def numel(self):
        return self.n

    def element_size(self):
        return 4


class GPUModelRunner:
    def execute_model(self, scheduler_output):
        for _ in range(%d):
            parallel_state._TP.all_reduce(Tensor(%d))
""" % (LAYERS, NUMEL)  # noqa: UP031 (a program text with braces of its own)

MAIN = """\
import multiprocessing as mp
import sys


def rank_main(rank, barrier):
    from probes import runtime
    assert runtime.install_from_env("vllm") is not None
    from vllm.distributed import parallel_state
    from vllm.worker import GPUModelRunner
    parallel_state.init(rank, 2, barrier)
    runner = GPUModelRunner()
    for i in range(3):
        barrier.wait()
        runtime.mark("barrier", id=i)
        for _ in range(%d):
            runner.execute_model(None)


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=rank_main, args=(r, barrier)) for r in range(2)]
    [p.start() for p in procs]
    [p.join(60) for p in procs]
    sys.exit(max(p.exitcode for p in procs))
""".replace("%d", str(STEPS))


def _hook(module, qualname, role, **flags):
    return {
        "symbol": f"{module}.{qualname}",
        "module": module,
        "qualname": qualname,
        "role": role,
        "path": module.replace(".", "/") + ".py",
        "line": 1,
        "end_line": 2,
        **flags,
    }


def test_two_ranks_merge_on_one_clock_with_collectives(tmp_path):
    pkg = tmp_path / "vllm"
    (pkg / "distributed").mkdir(parents=True)
    (pkg / "__init__.py").write_text('__version__ = "0.0.1"\n')
    (pkg / "distributed" / "__init__.py").write_text("")
    (pkg / "distributed" / "parallel_state.py").write_text(PARALLEL_STATE)
    (pkg / "worker.py").write_text(RUNNER)
    (tmp_path / "main.py").write_text(textwrap.dedent(MAIN))
    out = tmp_path / "out"
    spec = {
        "framework": "vllm",
        "package": "vllm",
        "package_root": "",
        "commit": "0" * 40,
        "engine_version": "0.0.1",
        "out": str(out),
        "blobs": {},
        "flush_interval_s": 0.1,
        "tp": 2,
        "hooks": [
            _hook("vllm.worker", "GPUModelRunner.execute_model", "execute", step=True, capture=[]),
            _hook(
                "vllm.distributed.parallel_state",
                "GroupCoordinator.all_reduce",
                "execute",
                aggregate=True,
                collective=True,
                capture=["bytes"],
            ),
        ],
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    env = dict(os.environ, ATLAS_PROBES=str(tmp_path / "spec.json"), PYTHONPATH=f"{REPO}{os.pathsep}{tmp_path}")
    env.pop("ATLAS_TRACE_DIR", None)
    done = subprocess.run(
        [sys.executable, str(tmp_path / "main.py")], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr

    merged = merge(out / "shards")
    assert sorted(rank_label(r) for r in merged.ranks.values()) == ["tp0", "tp1"]
    assert all(r["tp_size"] == 2 and r["world_size"] == 2 for r in merged.ranks.values())
    ranks = per_rank(merged, spec)
    for label in ("tp0", "tp1"):
        row = ranks[label]
        assert row["steps"] == 3 * STEPS
        assert row["collective_bytes"] == 3 * STEPS * LAYERS * NUMEL * 4
        assert 0 < row["collective_share"] <= 1 and row["collective_ms_per_step"] > 0
    names = {
        m["args"]["name"].split()[0]
        for m in chrome_trace(merged, spec)["traceEvents"]
        if m.get("name") == "process_name"
    }
    assert {"tp0", "tp1"} <= names  # each rank's track says which rank it is
    collectives = [e for e in merged.events if e["symbol"].endswith("all_reduce")]
    assert {e["count"] for e in collectives} == {LAYERS} and len(collectives) == 2 * 3 * STEPS
    # one host: one clock, nothing shifted; the residual skew is how far apart the two ranks left each barrier
    assert merged.clock["shift_ns"] == {} and merged.clock["num_barriers"] == 3
    print(
        f"residual skew between the two ranks: median {merged.clock['skew_us_median']} us, "
        f"max {merged.clock['skew_us_max']} us"
    )
    assert merged.clock["skew_us_max"] < 200_000  # loose: the shared 2-core CI machine may preempt a rank


def _process(pid, boot):
    return {"pid": pid, "boot_id": boot}


def _barrier(pid, i, t):
    return {"name": "barrier", "pid": pid, "mono_ns": t, "values": {"id": i}}


def test_processes_of_another_host_are_shifted_by_their_barriers():
    processes = [_process(1, "hostA"), _process(2, "hostA"), _process(3, "hostB")]
    # host B's clock reads 5 s ahead; its marks jitter by 1-3 us around host A's
    marks = [
        _barrier(1, 0, 1_000_000),
        _barrier(2, 0, 1_001_000),
        _barrier(3, 0, 5_001_000_000 + 500),
        _barrier(1, 1, 2_000_000),
        _barrier(2, 1, 2_002_000),
        _barrier(3, 1, 5_002_001_000 + 2500),
    ]
    shift = offsets(processes, marks)
    assert shift[1] == shift[2] == 0
    assert abs(shift[3] + 5_000_000_000) < 3_000
    residual = skew(marks, shift)
    assert residual["num_barriers"] == 2 and residual["skew_us_max"] < 3.0
