"""A figure's spread: a seeded bootstrap interval over its rounds or requests, none from one round, the article's
A100 figure inside or outside it, two runs agreeing when their intervals overlap."""

from __future__ import annotations

import statistics

from atlas.runtime.experiments.article import load_article
from atlas.runtime.experiments.report import build_report
from atlas.runtime.experiments.spread import agree, bootstrap, interval, row_intervals
from atlas.runtime.experiments.tables import render_human, to_json


def test_one_round_has_no_interval_and_two_have_their_range():
    assert interval([5.0]) is None
    two = interval([4.0, 6.0])
    assert (two.low, two.high, two.n, two.over) == (4.0, 6.0, 2, "rounds")


def test_the_interval_is_seeded_and_holds_the_median():
    values = [10.0, 11.0, 9.5, 10.4, 12.0, 10.1, 9.9]
    a, b = interval(values), interval(values)
    assert a == b and a.value == statistics.median(values) and a.low <= a.value <= a.high
    assert a.low > min(values) and a.high <= max(values)  # seven rounds: narrower than their range


def test_few_rounds_fall_back_to_the_requests():
    requests = [20.0 + (i % 7) for i in range(64)]
    got = interval([21.0, 22.0], requests)
    assert got.over == "requests" and got.n == 64 and got.value == round(statistics.fmean(requests), 4)
    assert interval([1.0, 2.0, 3.0, 4.0, 5.0], requests).over == "rounds"


def test_bootstrap_of_any_statistic():
    got = bootstrap([1.0, 2.0, 3.0, 100.0], max, "rounds")
    assert got.value == 100.0 and got.high == 100.0


def test_agreement_is_overlap():
    assert agree(interval([1.0, 2.0]), interval([1.9, 3.0])) is True
    assert agree(interval([1.0, 2.0]), interval([2.5, 3.0])) is False
    assert agree(interval([1.0]), interval([2.5, 3.0])) is None


def _row(engine: str, variant: str, rounds: list[float]) -> dict:
    return {
        "engine": engine,
        "variant": variant,
        "label": "c1",
        "metric": "out_tok_s",
        "unit": "tok/s",
        "absent": statistics.median(rounds),
        "on": rounds[0],
        "rounds": {"absent": rounds, "on": rounds[:1]},
    }


def test_the_report_says_where_a100_and_h200_cannot_be_told_apart():
    article = load_article()
    a100 = {(r.engine, r.variant): r.value for r in article.scenario("cuda-graph").rows if r.metric == "out_tok_s"}
    vllm, sglang = a100[("vllm", "graph")], a100[("sglang", "graph")]
    results = {
        "cuda-graph": {
            "scenario": "cuda-graph",
            "rows": [
                _row("vllm", "graph", [0.9 * vllm, vllm, 1.1 * vllm]),  # the A100 figure inside
                _row("sglang", "graph", [3.0 * sglang, 3.1 * sglang, 3.2 * sglang]),  # far above it
                _row("vllm", "eager", [50.0]),
            ],
        }
    }
    report = build_report(article, results, {}, ["cuda-graph"])
    by = {(f.engine, f.variant, f.metric): f for f in report.scenarios[0].figures if f.label == "c1"}
    assert by[("vllm", "graph", "out_tok_s")].article_within is True
    assert by[("sglang", "graph", "out_tok_s")].article_within is False
    eager = by[("vllm", "eager", "out_tok_s")]
    assert eager.absent_ci is None and eager.is_single_round and eager.article_within is None
    rows = {(r["engine"], r["variant"], r["label"], r["metric"]): r for r in to_json(report)["scenarios"][0]["rows"]}
    assert rows[("vllm", "graph", "c1", "out_tok_s")]["absent_ci95"]["n"] == 3
    assert rows[("vllm", "eager", "c1", "out_tok_s")]["single_round"] is True
    assert "one round" in render_human(report)


def test_row_intervals_per_state():
    row = {"rounds": {"absent": [1.0, 2.0, 3.0], "on": [2.0]}, "requests": {"on": [1.0, 1.5, 2.0]}}
    got = row_intervals(row)
    assert got["absent"].over == "rounds" and got["on"].over == "requests"
