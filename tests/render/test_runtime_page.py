"""The probe-traces page: each trace's hooks, its first steps with every event linked to its pinned source line, and
the call edges seen at runtime, a missing one marked as a graph bug; committed H200 summaries are found too."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from atlas.render.env import environment
from atlas.render.inputs import load_results
from atlas.render.pages import result_pages

TEMPLATES = Path(__file__).resolve().parents[2] / "site" / "templates"
SOURCE = "https://github.com/sgl-project/sglang/blob/v0.5.17/python/sglang/srt/managers/scheduler.py#L2925"
SUMMARY = {
    "engine": "sglang v0.5.17",
    "framework": "sglang",
    "num_events": 12,
    "num_dropped": 0,
    "capture_errors": {},
    "device": "cuda",
    "hook_source": "builtin",
    "steps_by_batch_mode": {"EXTEND": 1},
    "cuda_graph": {"REPLAY": 1},
    "hooks": {
        "sglang.srt.managers.scheduler.Scheduler.get_next_batch_to_run": {
            "role": "plan",
            "fired": 5,
            "at_pin": True,
            "path": "python/sglang/srt/managers/scheduler.py",
            "line": 2925,
        }
    },
    "timeline": [
        {
            "step": 1,
            "t_ms": 0.2,
            "dur_ms": 1.1,
            "role": "plan",
            "count": 1,
            "source": SOURCE,
            "symbol": "sglang.srt.managers.scheduler.Scheduler.get_next_batch_to_run",
            "where": "python/sglang/srt/managers/scheduler.py:2925",
            "values": {"batch_mode": "EXTEND"},
        }
    ],
    "runtime_edges": {
        "graph_checked": True,
        "observed": [
            {"caller": "pkg.Scheduler.event_loop", "callee": "pkg.Scheduler.run_batch", "site": "s.py:10", "count": 7},
            {"caller": "pkg.Dispatcher.__call__", "callee": "pkg.Scheduler.handle", "site": "u.py:3", "count": 2},
        ],
        "missing": [
            {
                "caller": "pkg.Dispatcher.__call__",
                "callee": "pkg.Scheduler.handle",
                "where": "u.py:3",
                "count": 2,
                "message": "...",
            }
        ],
    },
}


def _page(tmp_path, root=None):
    results = load_results(SimpleNamespace(build=tmp_path / "build", root=root))
    return dict(result_pages(environment(TEMPLATES), SimpleNamespace(results=results)))["runtime.md"]


def test_runtime_page_lays_out_steps_with_source_links_and_edges(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "gpu-sglang-summary.json").write_text(json.dumps(SUMMARY))
    page = _page(tmp_path, root=tmp_path)
    assert "## sglang v0.5.17 — H200 run, committed in results/gpu-sglang-summary.json" in page
    assert (
        '<a href="https://github.com/sgl-project/sglang/blob/v0.5.17/python/sglang/srt/managers/scheduler.py#L2925">'
        "<code>Scheduler.get_next_batch_to_run</code> python/sglang/srt/managers/scheduler.py:2925</a>"
    ) in page
    rows = [line for line in page.splitlines() if line.startswith("| <code>pkg.")]
    assert rows == [
        "| <code>pkg.Scheduler.event_loop</code> | <code>pkg.Scheduler.run_batch</code> | s.py:10 | 7 | yes |",
        "| <code>pkg.Dispatcher.&#95;&#95;call&#95;&#95;</code> | <code>pkg.Scheduler.handle</code> | u.py:3 | 2 "
        "| **no** |",
    ]
    assert "1 missing (a missing edge is a graph bug)" in page


def test_runtime_page_without_traces_says_how_to_make_one(tmp_path):
    assert "atlas trace --framework vllm" in _page(tmp_path)


def test_runtime_page_sets_out_what_the_probes_cost(tmp_path):
    (tmp_path / "results").mkdir()
    summary = dict(
        SUMMARY,
        throughput={
            "phases": {
                "c16": {
                    "median_absent": 7878.0,
                    "median_off": 7747.0,
                    "median_on": 7951.3,
                    "on_over_absent": 1.0093,
                    "on_over_off": 1.0264,
                }
            }
        },
        duty={"c16-ab: on duty=100": {"median": 0.9925, "ci95": [0.9753, 1.0205], "pooled": 1.0029, "pairs": 88}},
    )
    (tmp_path / "results" / "gpu-sglang-summary.json").write_text(json.dumps(summary))
    page = _page(tmp_path, root=tmp_path)
    assert "| c16 | 7878.0 | 7747.0 | 7951.3 | 1.0093 | 1.0264 |" in page
    assert "| <code>c16-ab: on duty=100</code> | 0.9925 | 0.9753-1.0205 | 1.0029 | 88 |" in page
    assert "### What the probes cost" not in _page(tmp_path / "none")  # no trace, no section


def test_the_hooks_table_gives_each_wrappers_own_time_where_the_trace_has_it(tmp_path):
    (tmp_path / "results").mkdir()
    symbol = "sglang.srt.managers.scheduler.Scheduler.get_next_batch_to_run"
    summary = dict(SUMMARY, hooks={symbol: dict(SUMMARY["hooks"][symbol], own_us_per_call=12.5)})
    (tmp_path / "results" / "gpu-sglang-summary.json").write_text(json.dumps(summary))
    (row,) = [line for line in _page(tmp_path, root=tmp_path).splitlines() if line.startswith("| plan |")]
    assert "| 5 | yes | 12.5 us |" in row
    (tmp_path / "results" / "gpu-sglang-summary.json").write_text(json.dumps(SUMMARY))  # older summaries: blank
    (row,) = [line for line in _page(tmp_path, root=tmp_path).splitlines() if line.startswith("| plan |")]
    assert "| 5 | yes |  |" in row


def test_a_trace_with_series_gets_its_charts_and_one_without_says_so(tmp_path):
    """The committed CPU trace (with series) and an H200 summary (without): charts, data files and the section 11
    rows for both; the older one says what it lacks; no Python repr anywhere."""
    results = Path(__file__).resolve().parents[2] / "results"
    (tmp_path / "results").mkdir()
    for name in ("cpu-vllm-summary.json", "cpu-vllm-series.json", "gpu-sglang-summary.json"):
        (tmp_path / "results" / name).write_bytes((results / name).read_bytes())
    data = load_results(SimpleNamespace(build=tmp_path / "build", root=tmp_path))
    files = dict(result_pages(environment(TEMPLATES), SimpleNamespace(results=data)))
    page = files["runtime.md"]
    assert "{'" not in page and page.count('data-chart="tokens"') == 1 and page.count('data-chart="ttft"') == 2
    assert "recorded before atlas kept per-step series" in page
    assert page.count("| supported |") + page.count(">supported<") >= 1
    charts = [text for path, text in files.items() if path.startswith("assets/atlas/data/runtime/")]
    assert len(charts) == 2 and all("{'" not in text for text in charts)
