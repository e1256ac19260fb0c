"""The experiment pages: an index of the nine scenarios and one page each, the article's A100 figures beside
atlas's H200 figures, evidence linked to the symbol's page and its source line at the pin, notes and how it was
run; scenarios without results say 'not run yet'. Built on the fixture engine with a fixture results file."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import sitefixture

from atlas.render import SiteData, build_site, check_site
from atlas.render.check import check_excerpts
from atlas.render.content import load_content
from atlas.render.site import render_docs
from atlas.runtime.experiments.article import load_article
from atlas.runtime.experiments.report import build_report

FIXTURE = Path(__file__).resolve().parents[1] / "runtime" / "fixtures" / "prefix-cache.json"
SCENARIOS = [
    "prefill-scaling",
    "prefix-cache",
    "beam-search",
    "continuous-batching",
    "chunked-prefill",
    "cuda-graph",
    "spec-ngram",
    "preemption",
    "overlap",
]
SYMBOL = "vllm.core.sched.KVCacheManager.allocate_slots"


def fixture_results() -> dict:
    """The fixture results file, measured (as far as the pages know) at the fixture engine's pin."""
    results = copy.deepcopy(json.loads(FIXTURE.read_text()))
    results["engines"]["vllm"] = {"version": "9.9.9", "pin": "v9.9.9", "commit": sitefixture.PIN.commit}
    results["evidence"][0] = {
        "engine": "vllm",
        "symbol": SYMBOL,
        "where": "vllm/core/sched.py:9",
        "url": sitefixture.PIN.permalink("vllm/core/sched.py", 9),
        "text": "warm request: 2064 prefix-hit tokens <script>alert(5)</script>",
    }
    results["notes"].append("a note with <b>markup</b> | and a pipe")
    results["errors"] = ["sglang eager: the server did not start in 600 s"]
    return results


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("site")
    report = build_report(load_article(), {"prefix-cache": fixture_results()}, {"overlap": "the GPU session ran out"})
    site = sitefixture.site_for(tmp)
    out = build_site(
        sitefixture.settings_for(tmp), site=SiteData(site.engines, {"experiments": report}), out=str(tmp / "out")
    )
    return out, tmp


def page(built, name: str) -> str:
    return (built[0].html / "experiments" / f"{name}.html").read_text()


def test_every_scenario_has_a_page_and_the_links_hold(built):
    report, tmp = built
    for name in ["index", *SCENARIOS]:
        assert (report.html / "experiments" / f"{name}.html").is_file(), name
    assert list(check_site(report.html)) == []
    assert list(check_excerpts(report.html, {"vllm": tmp / "engine"})) == []
    index = page(built, "index")
    for name in SCENARIOS:
        assert f'href="{name}.html"' in index
    assert "measured 2026-11-29T16:02:11Z on NVIDIA H200" in index and "not run yet: the GPU session ran out" in index


def test_a_measured_page_shows_both_tables_evidence_notes_and_the_run(built):
    text = page(built, "prefix-cache")
    row = (
        "<td>vLLM graph, warm</td>\n<td><code>ttft_ms</code> ms</td>\n"
        '<td style="text-align: right;">13.78 <small>(l. 137)</small></td>\n'
        '<td style="text-align: right;">7.12</td>\n<td style="text-align: right;">one round</td>\n'
        '<td style="text-align: center;">-</td>\n<td style="text-align: right;">7.50</td>\n'
        '<td style="text-align: right;">1.053</td>\n<td><a href="#note-1">[1]</a></td>'
    )
    assert row in text
    assert '<span id="note-1">[1]</span> article: server prefill' in text and text.count("server prefill") == 1
    assert "atlas: the tail block the warm request forwards again" in text  # a row the article has no figure for
    assert f'href="../symbols/vllm/{SYMBOL}.html"' in text  # the symbol's page on this site
    assert f'href="{sitefixture.PIN.permalink("vllm/core/sched.py", 9)}"' in text  # the line upstream
    assert 'id="e0-L9"' in text and "get_new_blocks" in text  # the line itself, at the pin
    assert "radix_cache.py:395" in text and "../symbols/sglang" not in text  # no SGLang in this site: no link
    assert "&lt;script&gt;alert(5)" in text and "<script>alert(5)" not in text
    assert "a note with &lt;b&gt;markup&lt;/b&gt; &#124; and a pipe" in text
    assert "the server did not start in 600 s" in text
    assert "Qwen3-0.6B architecture, random weights" in text and "NVIDIA A100 PCIe 40 GB" in text
    assert "<td>0.5.17, v0.5.17 <code>f45df6f386cb</code></td>" in text
    assert "<code>atlas experiments run prefix-cache</code>" in text
    assert 'href="../mechanisms/prefix-cache.html"' in text


def test_a_page_without_results_says_not_run_yet(built):
    text = page(built, "overlap")
    assert "Not run yet" in text and "the GPU session ran out." in text
    assert "atlas experiments run overlap" in text and "The article gives no measurements" in text
    text = page(built, "cuda-graph")
    assert "Not run yet" in text and "244288" in text and "capture-prefill" in text


def test_pages_render_with_no_results_at_all(tmp_path):
    root = sitefixture.ROOT
    site = SiteData(sitefixture.site_for(tmp_path).engines, {"experiments": build_report(load_article(), {}, {})})
    rendered = render_docs(site, load_content(root / "site"), root / "site" / "templates")
    pages = {p: t for p, t in rendered.files.items() if p.startswith("experiments/")}
    assert sorted(pages) == sorted(["experiments/index.md"] + [f"experiments/{n}.md" for n in SCENARIOS])
    assert all("Not run yet" in pages[f"experiments/{n}.md"] for n in SCENARIOS)
    assert {
        "Experiments": [{"Overview": "experiments/index.md"}]
        + [{f"s{i + 2} {n}": f"experiments/{n}.md"} for i, n in enumerate(SCENARIOS)]
    } in rendered.nav


def test_the_build_reads_the_committed_results_when_not_handed_any(tmp_path):
    report = build_site(
        sitefixture.settings_for(tmp_path), site=sitefixture.site_for(tmp_path), out=str(tmp_path / "out")
    )
    assert all((report.html / "experiments" / f"{n}.html").is_file() for n in ["index", *SCENARIOS])
    assert list(check_site(report.html)) == []


def test_a_sparse_results_file_renders(tmp_path):
    """What a run that went partly wrong writes: no versions, an evidence line without a permalink, a log figure
    without a unit, a row the article has no figure for."""
    results = {
        "scenario": "cuda-graph",
        "engines": {"sglang": {"version": None, "pin": None, "commit": None}},
        "rows": [
            {
                "engine": "sglang",
                "variant": "graph",
                "label": "capture-decode",
                "metric": "buckets",
                "unit": "",
                "absent": 8,
                "on": None,
                "note": "from the engine log of this start",
            },
            {
                "engine": "sglang",
                "variant": "graph",
                "label": "c1",
                "metric": "out_tok_s",
                "unit": "tok/s",
                "absent": None,
                "on": None,
                "rounds": {},
            },
        ],
        "evidence": [
            {
                "engine": "sglang",
                "variant": "graph",
                "symbol": "sglang.srt.x.Scheduler.run_batch",
                "where": "python/sglang/srt/x.py:10",
                "url": "",
                "text": "CUDA graph use: {True: 9}",
            }
        ],
        "notes": [],
        "errors": ["sglang-eager: the engine did not finish (see its engine.log)"],
    }
    root = sitefixture.ROOT
    report = build_report(load_article(), {"cuda-graph": results}, {})
    site = SiteData(sitefixture.site_for(tmp_path).engines, {"experiments": report})
    text = render_docs(site, load_content(root / "site"), root / "site" / "templates").files[
        "experiments/cuda-graph.md"
    ]
    assert (
        "| SGLang graph, capture-decode | <code>buckets</code> buckets | 8 <small>(l. 309)</small> | 8 | - | - |"
        in text
    )
    assert "<code>python/sglang/srt/x.py:10</code> | CUDA graph use: {True: 9} |" in text and 'href=""' not in text
    assert (
        "| SGLang | <code>9529c2e96</code> | not recorded |" in text and "| vLLM | <code>d1d2f7535</code> |  |" in text
    )
    assert "the engine did not finish" in text and "None" not in text
