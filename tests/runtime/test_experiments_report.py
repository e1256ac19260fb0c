"""The experiments report: the article's figures load and are checked (malformed files name file:line), results
files join on (scenario, engine, variant, label, metric), missing figures and missing runs show, and the CLI prints
all three formats."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from atlas.cli import main
from atlas.errors import ConfigError
from atlas.runtime.experiments.article import ArticleRow, ArticleScenario, load_article
from atlas.runtime.experiments.report import RESULTS, build_report, join, read_plan, read_results
from atlas.runtime.experiments.tables import number, render_human, render_markdown, to_json

FIXTURE = Path(__file__).parent / "fixtures" / "prefix-cache.json"
ARTICLE = load_article()


def scenario(*rows: ArticleRow) -> ArticleScenario:
    return ArticleScenario("prefix-cache", 3, "title", 107, "question?", "workload", (125, 141), "finding", rows)


A = ArticleRow("vllm", "graph", "warm", "ttft_ms", 13.78, "ms", 137, "server prefill")
B = ArticleRow("vllm", "graph", "warm", "hit_tokens", 2064, "tokens", 137)


def measured(**row) -> dict:
    return {"engine": "vllm", "variant": "graph", "label": "warm", "metric": "ttft_ms", "unit": "ms", **row}


# (article rows, measured rows, expected (metric, article, absent, on, ratio, note) per figure, in order)
JOIN_CASES = [
    pytest.param((A,), [measured(absent=7.0, on=7.7)], [("ttft_ms", 13.78, 7.0, 7.7, 1.1, "")], id="joined"),
    pytest.param(
        (A, B),
        [measured(absent=7.0, on=7.0)],
        [("ttft_ms", 13.78, 7.0, 7.0, 1.0, ""), ("hit_tokens", 2064, None, None, None, "")],
        id="article figure not measured",
    ),
    pytest.param(
        (A,),
        [
            measured(absent=7.0, on=None),
            measured(metric="computed_tokens", unit="tokens", absent=None, on=16, note="tail block"),
        ],
        [("ttft_ms", 13.78, 7.0, None, None, ""), ("computed_tokens", None, None, 16, None, "tail block")],
        id="measured row without an article figure comes after",
    ),
    pytest.param(
        (A,),
        [measured(unit="s", absent=0.007, on=0.007)],
        [("ttft_ms", 13.78, 0.007, 0.007, 1.0, "atlas measured in s")],
        id="unit mismatch is said",
    ),
    pytest.param(
        (A,),
        [measured(variant="eager", absent=30.0, on=31.0)],
        [("ttft_ms", 13.78, None, None, None, ""), ("ttft_ms", None, 30.0, 31.0, 31 / 30, "")],
        id="another variant does not join",
    ),
    pytest.param((A,), [measured(absent=0.0, on=1.0)], [("ttft_ms", 13.78, 0.0, 1.0, None, "")], id="ratio of 0"),
]


@pytest.mark.parametrize("rows, got, expected", JOIN_CASES)
def test_join(rows, got, expected):
    report = join(scenario(*rows), {"scenario": "prefix-cache", "rows": got})
    assert report.status == "measured"
    found = [(f.metric, f.article, f.absent, f.on, f.ratio, f.note) for f in report.figures]
    assert found == [tuple(pytest.approx(v) if isinstance(v, float) else v for v in row) for row in expected]


def test_a_scenario_without_results_is_not_run_with_the_plans_reason():
    report = build_report(ARTICLE, {}, {"overlap": "the GPU session ran out"})
    assert [s.name for s in report.scenarios] == [
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
    assert all(s.status == "not run" and s.run is None for s in report.scenarios)
    overlap = report.scenarios[-1]
    assert overlap.reason == "the GPU session ran out" and overlap.figures == () and overlap.no_figures
    text = render_human(report)
    assert "s10 overlap (not run: the GPU session ran out)" in text and "s2 prefill-scaling (not run yet)" in text


def test_the_fixture_results_file_joins_with_the_article():
    results = read_results(FIXTURE.parent)
    report = build_report(ARTICLE, results, {}, ["prefix-cache", "overlap"])
    prefix, overlap = report.scenarios
    assert prefix.status == "measured" and overlap.status == "not run"
    by_key = {(f.engine, f.variant, f.label, f.metric): f for f in prefix.figures}
    warm = by_key[("vllm", "graph", "warm", "ttft_ms")]
    assert (warm.article, warm.article_line, warm.absent, warm.on, warm.article_note) == (
        13.78,
        137,
        7.12,
        7.5,
        "server prefill",
    )
    assert by_key[("sglang", "graph", "warm", "hit_tokens")].article == 2079
    assert by_key[("vllm", "graph", "warm", "computed_tokens")].article is None
    assert prefix.run.gpu == "NVIDIA H200" and prefix.run.engines["vllm"]["pin"] == "v0.26.0"
    assert [e.where for e in prefix.evidence] == [
        "vllm/v1/core/kv_cache_manager.py:237",
        "python/sglang/srt/mem_cache/radix_cache.py:395",
    ]
    human = render_human(report)
    assert "s3 prefix-cache (measured 2026-11-29T16:02:11Z on NVIDIA H200)" in human
    assert any(
        line.split()
        == ["vllm", "graph", "warm", "ttft_ms", "ms", "13.78", "137", "7.12", "one", "round", "-", "7.50", "1.053"]
        for line in human.splitlines()
    )
    assert (
        "evidence: vllm vllm.v1.core.kv_cache_manager.KVCacheManager.get_computed_blocks at "
        "vllm/v1/core/kv_cache_manager.py:237: warm request" in human
    )
    markdown = render_markdown(report)
    assert "| vllm | graph | warm | ttft_ms | ms | 13.78 | 137 | 7.12 | one round | - | 7.50 | 1.053 |" in markdown
    assert "[vllm/v1/core/kv_cache_manager.py:237](https://github.com/vllm-project/vllm/blob/f2654939e/" in markdown
    data = to_json(report)
    assert json.loads(json.dumps(data)) == data
    row = next(
        r
        for r in data["scenarios"][0]["rows"]
        if r["metric"] == "ttft_ms" and r["label"] == "warm" and r["variant"] == "graph" and r["engine"] == "vllm"
    )
    assert row["article"] == 13.78 and row["on_over_absent"] == pytest.approx(7.5 / 7.12)


@pytest.mark.parametrize(
    "value, text",
    [(None, "-"), (2064.0, "2064"), (13.78, "13.78"), (7.5, "7.50"), (0.7063, "0.7063"), (0.098, "0.098"), (0.0, "0")],
)
def test_number(value, text):
    assert number(value) == text


def test_the_article_holds_the_briefs_figures():
    rows = {(s.name, *r.key): r for s in ARTICLE.scenarios for r in s.rows}
    assert [s.section for s in ARTICLE.scenarios] == list(range(2, 11))
    assert (ARTICLE.setup.gpu, ARTICLE.setup.model, ARTICLE.setup.date) == (
        "NVIDIA A100 PCIe 40 GB",
        "Qwen/Qwen3-0.6B",
        "2026-07-17",
    )
    assert ARTICLE.setup.engines == {"vllm": "d1d2f7535", "sglang": "9529c2e96"}
    for key, value in [
        (("prefix-cache", "vllm", "eager", "warm", "hit_tokens"), 2064),
        (("prefix-cache", "sglang", "graph", "warm", "hit_tokens"), 2079),
        (("prefix-cache", "sglang", "graph", "warm", "prompt_tokens"), 2080),
        (("cuda-graph", "vllm", "graph", "capture", "compile_s"), 31),
        (("cuda-graph", "vllm", "eager", "capture", "kv_tokens"), 245312),
        (("cuda-graph", "vllm", "graph", "capture", "kv_tokens"), 244288),
        (("cuda-graph", "sglang", "graph", "capture-prefill", "buckets"), 58),
        (("cuda-graph", "sglang", "graph", "capture-decode", "capture_gib"), 0.07),
        (("spec-ngram", "sglang", "ngram", "repeat", "accept_rate"), 0.9697),
        (("preemption", "sglang", "kv4096-mixed", "8x1024+512", "new_token_ratio_after"), 0.7063),
        (("preemption", "vllm", "kv4096", "8x1024+512", "preemptions"), 3),
        (("chunked-prefill", "sglang", "chunk512-mixed", "stream", "gap_ms_max"), 23.87),
    ]:
        assert rows[key].value == value, key
    assert {r.note for k, r in rows.items() if k[0] == "prefix-cache" and k[4] == "ttft_ms"} == {
        "server prefill",
        "server E2E",
    }
    assert not ARTICLE.scenario("beam-search").rows and ARTICLE.scenario("beam-search").no_figures
    assert not ARTICLE.scenario("overlap").rows and ARTICLE.scenario("overlap").no_figures


GOOD = """\
setup:
  gpu: A100
  model: m
  date: "2026-07-17"
  engines: {vllm: abc}
  lines: [9, 13]
scenarios:
  prefix-cache:
    section: 3
    title: t
    title_line: 107
    question: q
    workload: w
    lines: [125, 141]
    finding: f
    rows:
      - {engine: vllm, variant: graph, label: warm, metric: ttft_ms, value: 13.78, unit: ms, line: 137}
"""

# (text replaced, replacement, what the error must say)
MALFORMED = [
    ("engine: vllm, variant", "engine: tgi, variant", ":17: scenarios.prefix-cache.rows.0.engine: 'tgi' is not one of"),
    ("label: warm", "label: 256", ":17: scenarios.prefix-cache.rows.0.label: 256 is not of type 'string'"),
    ("    finding: f\n", "", ":8: scenarios.prefix-cache: 'finding' is a required property"),
    ("    section: 3\n", "    section: 3\n    sectoin: 3\n", ":10: scenarios.prefix-cache: unknown field(s) sectoin"),
    ("value: 13.78", "value: fast", ":17: scenarios.prefix-cache.rows.0.value: 'fast' is not of type 'number'"),
    (
        "    rows:\n      - {engine",
        "    rows: []\n    x:\n      - {engine",
        ":17: scenarios.prefix-cache: unknown field(s) x",
    ),
    (
        "line: 137}\n",
        "line: 137}\n      - {engine: vllm, variant: graph, label: warm, metric: ttft_ms, value: 1, "
        "unit: ms, line: 138}\n",
        ":18: scenarios.prefix-cache.rows.1: vllm/graph/warm/ttft_ms repeats the row at line 17",
    ),
    (
        "    rows:\n      - {engine: vllm, variant: graph, label: warm, metric: ttft_ms, value: 13.78, unit: ms, "
        "line: 137}\n",
        "    rows: []\n",
        ":16: scenarios.prefix-cache: no rows; add figures, or `no_figures:`",
    ),
    ("  lines: [9, 13]", "  lines: [9, 13", ":7: invalid YAML"),
]


def test_a_well_formed_article_file_loads(tmp_path):
    path = tmp_path / "article.yaml"
    path.write_text(GOOD)
    article = load_article(path)
    assert article.scenario("prefix-cache").rows == (ArticleRow("vllm", "graph", "warm", "ttft_ms", 13.78, "ms", 137),)


@pytest.mark.parametrize("old, new, says", MALFORMED, ids=[m[2].split(": ", 1)[-1][:40] for m in MALFORMED])
def test_a_malformed_article_file_names_file_and_line(tmp_path, old, new, says):
    assert old in GOOD
    path = tmp_path / "article.yaml"
    path.write_text(GOOD.replace(old, new))
    with pytest.raises(ConfigError) as error:
        load_article(path)
    assert f"{path}{says}" in str(error.value)


RESULT = {"scenario": "prefix-cache", "rows": [measured(absent=1.0, on=1.0)]}

# (file name, content, what the error must say)
BAD_RESULTS = [
    ("prefix-cache.json", '{\n  "rows": [,]\n}', "prefix-cache.json:2: invalid JSON"),
    ("prefix-cache.json", {"rows": []}, "(top level): 'scenario' is a required property"),
    ("prefix-cache.json", {**RESULT, "rows": [{"engine": "vllm"}]}, "rows.0: 'variant' is a required property"),
    ("prefix-cache.json", {**RESULT, "rows": [measured(absent="7 ms")]}, "rows.0.absent: '7 ms' is not of type"),
    (
        "prefix-cache.json",
        {**RESULT, "rows": [measured(), measured()]},
        "rows.1: vllm/graph/warm/ttft_ms appears twice",
    ),
    (
        "prefix-cache.json",
        {**RESULT, "evidence": [{"engine": "vllm", "symbol": "x", "where": "a.py:1", "url": "javascript:alert(1)"}]},
        "evidence.0.url",
    ),
    ("prefill.json", RESULT, "scenario is 'prefix-cache' but the file is named prefill.json"),
]


@pytest.mark.parametrize("name, content, says", BAD_RESULTS, ids=[b[2][:40] for b in BAD_RESULTS])
def test_a_malformed_results_file_is_a_clear_error(tmp_path, name, content, says):
    (tmp_path / name).write_text(content if isinstance(content, str) else json.dumps(content))
    with pytest.raises(ConfigError) as error:
        read_results(tmp_path)
    assert says in str(error.value) and str(tmp_path / name) in str(error.value)


def test_results_for_a_scenario_the_article_does_not_know_are_an_error(tmp_path):
    (tmp_path / "warp-drive.json").write_text(json.dumps({**RESULT, "scenario": "warp-drive"}))
    with pytest.raises(ConfigError, match="results for unknown scenario.*warp-drive.*choose|name each results"):
        build_report(ARTICLE, read_results(tmp_path), {})


def test_plan(tmp_path):
    assert read_plan(tmp_path) == {} and read_results(tmp_path / "missing") == {}
    (tmp_path / "PLAN.json").write_text(
        json.dumps({"jobs": [], "scenarios": {"overlap": {"reason": "later"}, "beam-search": {}}})
    )
    assert read_plan(tmp_path) == {"overlap": "later", "beam-search": ""}
    assert read_results(tmp_path) == {}  # PLAN.json is not a results file
    (tmp_path / "PLAN.json").write_text(json.dumps({"scenarios": {"overlap": "later"}}))
    with pytest.raises(ConfigError, match='expected {"scenarios"'):
        read_plan(tmp_path)


@pytest.fixture()
def project(tmp_path):
    folder = tmp_path / RESULTS
    folder.mkdir(parents=True)
    shutil.copy(FIXTURE, folder / FIXTURE.name)
    return tmp_path


def test_cli_report_formats(project, capsys):
    assert main(["experiments", "report", "--root", str(project), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(s["scenario"], s["status"]) for s in data["scenarios"]][:3] == [
        ("prefill-scaling", "not run"),
        ("prefix-cache", "measured"),
        ("beam-search", "not run"),
    ]
    assert main(["--format", "markdown", "--root", str(project), "experiments", "report", "prefix-cache"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# The article's experiments") and "## s3 prefix-cache" in out and "s2" not in out
    assert main(["--root", str(project), "experiments", "report", "cuda-graph"]) == 0
    assert "s7 cuda-graph (not run yet)" in capsys.readouterr().out


def test_cli_report_errors(project, capsys):
    assert main(["--root", str(project), "experiments", "report", "nope"]) == 2
    assert "unknown scenario 'nope'; choose from: prefill-scaling" in capsys.readouterr().err
    assert main(["--root", str(project), "experiments", "report", "--format", "dot"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'dot' (choose from 'human', 'json', 'markdown')" in err and "--help" in err
