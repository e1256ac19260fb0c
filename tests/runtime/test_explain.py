"""`atlas explain`: the article's section 11 table applied to the committed traces (the CPU vLLM trace with series,
the H200 summaries recorded before series existed), its JSON shape, and one request's life in time order."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from atlas.errors import ConfigError
from atlas.runtime.explain import Verdict, diagnose, load_trace, to_json
from atlas.runtime.explain.lifecycle import find, lifecycle

RESULTS = Path(__file__).resolve().parents[2] / "results"
ATLAS = [sys.executable, "-c", "from atlas.cli import run; run()"]


@pytest.fixture()
def cpu_trace(tmp_path) -> Path:
    """The committed CPU trace laid out as the trace folder `atlas trace` writes."""
    shutil.copy(RESULTS / "cpu-vllm-summary.json", tmp_path / "summary.json")
    shutil.copy(RESULTS / "cpu-vllm-series.json", tmp_path / "series.json")
    return tmp_path


def _verdicts(path: Path) -> dict[int, Verdict]:
    return {r.symptom.line: r.verdict for r in diagnose(load_trace(path)).rows}


def test_cpu_trace_rows_from_its_series(cpu_trace):
    verdicts = _verdicts(cpu_trace)
    assert len(verdicts) == 8 and sorted(verdicts) == list(range(511, 519))
    assert verdicts[511] is Verdict.NO_DATA  # a CPU has no GPU time: launch cost cannot be told from compute
    assert verdicts[512] is Verdict.SUPPORTED  # the 1120-token prefill takes ~8x a short one: compute
    assert verdicts[516] is Verdict.SUPPORTED  # 4 requests waited (max_num_seqs 8) with the KV cache nearly empty
    rows = {r.symptom.line: r for r in diagnose(load_trace(cpu_trace)).rows}
    evidence = {e.metric: e for e in rows[516].evidence}
    assert evidence["median requests running / waiting"].value == "8 / 4"
    assert evidence["steps with requests waiting"].source.startswith("Scheduler.schedule (vllm/v1/core/sched/")


def test_preemptions_refute_conservative_admission(cpu_trace):
    summary = json.loads((cpu_trace / "summary.json").read_text())
    (cpu_trace / "summary.json").write_text(json.dumps({**summary, "preempted": 3}))
    assert _verdicts(cpu_trace)[516] is Verdict.NOT_SUPPORTED


def test_a_summary_without_series_gives_what_its_aggregates_hold():
    verdicts = _verdicts(RESULTS / "gpu-vllm-summary.json")
    assert verdicts[514] is Verdict.SUPPORTED  # c16 against c1: more tok/s, higher TTFT and ITL
    assert {v for line, v in verdicts.items() if line != 514} == {Verdict.NO_DATA}
    text = json.dumps(to_json(diagnose(load_trace(RESULTS / "gpu-sglang-summary.json"))))
    assert "{'" not in text


def test_json_rows_and_the_request_lifecycle(cpu_trace):
    done = subprocess.run([*ATLAS, "explain", str(cpu_trace), "--format", "json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [set(r) >= {"symptom", "hypothesis", "evidence", "verdict"} for r in data["rows"]] == [True] * 8
    assert all(set(e) == {"metric", "value", "source"} for r in data["rows"] for e in r["evidence"])
    done = subprocess.run(
        [*ATLAS, "explain", str(cpu_trace), "--request", "req-3-", "--format", "json"], capture_output=True, text=True
    )
    events = json.loads(done.stdout)["events"]
    names = [e["event"] for e in events]
    assert names[0] == "arrival" and names[-1] == "finish" and "first-token" in names
    assert [e["t_ms"] for e in events] == sorted(e["t_ms"] for e in events)
    schedules = [e for e in events if e["event"] == "schedule"]
    assert schedules[0]["kind"] == "prefill" and schedules[0]["tokens"] == 160
    assert all(e["kv_held"] >= e["kv_committed"] > 0 for e in schedules)  # blocks held cover the committed tokens
    assert all(e["source"].endswith(".py:" + e["source"].rsplit(":", 1)[1]) for e in events)


def test_request_ids_and_errors(cpu_trace):
    series = load_trace(cpu_trace).series
    assert series is not None
    assert lifecycle(series, find(series, "req-0-"))[0].event == "arrival"
    with pytest.raises(ConfigError, match="requests match"):
        find(series, "req-1")  # req-1, req-10 ... req-19
    with pytest.raises(ConfigError, match="no summary.json"):
        load_trace(cpu_trace / "nowhere")
    done = subprocess.run(
        [*ATLAS, "explain", str(RESULTS / "gpu-vllm-summary.json"), "--request", "x"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "no series.json" in done.stderr and "Traceback" not in done.stderr
