"""Merge, Perfetto JSON and summary on a hand-written run whose figures are known."""

from __future__ import annotations

import json

import pytest

from atlas.runtime.merge import merge
from atlas.runtime.perfetto import chrome_trace
from atlas.runtime.summary import summarise
from tests.runtime.synthetic import SPEC, write
from tests.runtime.traceshape import check_chrome_trace


def test_merge_skips_a_torn_line(tmp_path):
    merged = merge(write(tmp_path, torn=True))
    assert merged.num_torn == 1 and len(merged.events) == 2 + 3 * 4 and len(merged.processes) == 1


def test_summary_counts_the_events_read_not_a_stale_stats_record(tmp_path):
    """A kill after a rows-only flush leaves rows behind the last stats record: the summary counts what it read."""
    merged = merge(write(tmp_path))
    (stats,) = merged.stats.values()
    stats["num_events"] = 2
    assert summarise(merged, SPEC)["num_events"] == len(merged.events) == 2 + 3 * 4


def test_summary_figures(tmp_path):
    s = summarise(merge(write(tmp_path)), SPEC)
    assert s["steps_by_batch_mode"] == {"DECODE": 2, "EXTEND": 1}
    assert s["kv_blocks_allocated"] == 2 and s["preempted"] == 0
    # a arrived at 0 ms, b at 1 ms; tokens committed at the end of each update_from_output: 19, 29, 39 ms
    assert s["requests"]["a"] == {
        "output_tokens": 3,
        "ttft_ms": 19.0,
        "tpot_ms": 10.0,
        "itl_ms": {"mean": 10.0, "p50": 10.0, "max": 10.0},
    }
    assert s["requests"]["b"]["ttft_ms"] == 18.0
    assert all(h["fired"] > 0 and h["at_pin"] for h in s["hooks"].values())


@pytest.mark.parametrize(
    "rounds, ratio, on_over_absent, off_over_absent",
    [
        (
            [("off", 100.0), ("on", 98.0), ("off", 102.0), ("on", 99.0), ("off", 101.0), ("on", 97.0)],
            0.9703,
            None,
            None,
        ),
        ([("on", 50.0)], None, None, None),
        (
            [
                ("absent", 200.0),
                ("on", 190.0),
                ("off", 198.0),
                ("absent", 204.0),
                ("on", 194.0),
                ("off", 199.0),
                ("absent", 202.0),
                ("on", 192.0),
                ("off", 197.0),
            ],
            0.9697,
            0.9505,
            0.9802,
        ),
    ],
)
def test_throughput_ratio_of_medians(rounds, ratio, on_over_absent, off_over_absent):
    from atlas.runtime.summary import throughput

    driver = {
        "rounds": [
            {"round": i, "probes": p, "out_tokens": 1, "seconds": 1, "out_tok_s": v} for i, (p, v) in enumerate(rounds)
        ]
    }
    result = throughput(driver)
    assert (result.get("on_over_off"), result.get("on_over_absent"), result.get("off_over_absent")) == (
        ratio,
        on_over_absent,
        off_over_absent,
    )


def test_chrome_trace_has_slices_flows_and_source_links(tmp_path):
    trace = chrome_trace(merge(write(tmp_path)), SPEC)
    check_chrome_trace(trace)
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert {s["cat"] for s in slices} == {"plan", "allocate", "execute", "commit"}
    assert slices[0]["args"]["source"] == "https://github.com/vllm-project/vllm/blob/v0.32.0/vllm/x.py#L1"
    step2 = [s for s in slices if s["args"]["step"] == 2 and "bind_id" in s]
    assert [(s["name"], s["flow_in"], s["flow_out"]) for s in step2] == [
        ("Scheduler.schedule", False, True),
        ("GPUModelRunner.execute_model", True, True),
        ("Scheduler.update_from_output", True, False),
    ]
    request_flows = [e for e in trace["traceEvents"] if e.get("cat") == "request"]
    assert [e["ph"] for e in request_flows if e["name"] == "a"] == ["s", "t", "f"]
    json.dumps(trace)
