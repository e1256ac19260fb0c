"""Experiments with their spread: of the latency and throughput figures (units ms and tok/s) in the committed
results (results/experiments/), how many have a 95% interval (atlas.runtime.experiments.spread), how many come from
one round, where the article's A100 figure lies inside the H200 interval; with a second, independent run's results
folder, the share of figures both runs measured whose intervals overlap (target: >= 90%). Run from the project root:
    python benchmarks/bench_spread.py [--results DIR] [--other DIR]"""

from __future__ import annotations

import argparse
from pathlib import Path

from atlas.env import find_root
from atlas.runtime.experiments.article import load_article
from atlas.runtime.experiments.report import RESULTS, build_report, read_results
from atlas.runtime.experiments.spread import LATENCY_UNITS, agree, row_intervals


def figures(folder: Path) -> dict[tuple, dict]:
    """(scenario, engine, variant, label, metric) -> the row, for every latency or throughput figure."""
    return {
        (name, r["engine"], r["variant"], r["label"], r["metric"]): r
        for name, data in read_results(folder).items()
        for r in data["rows"]
        if r.get("unit") in LATENCY_UNITS and r.get("absent") is not None
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", type=Path, help="results folder (default: the committed results/experiments)")
    ap.add_argument("--other", type=Path, help="a second, independent run's results folder")
    a = ap.parse_args()
    folder = a.results or find_root(Path.cwd()) / RESULTS
    rows = figures(folder)
    intervals = {key: row_intervals(row)["absent"] for key, row in rows.items()}
    with_interval = sum(1 for i in intervals.values() if i is not None)
    single = sum(1 for row in rows.values() if len((row.get("rounds") or {}).get("absent") or ()) == 1)
    by_rounds = {}
    for row in rows.values():
        n = len((row.get("rounds") or {}).get("absent") or ())
        by_rounds[n] = by_rounds.get(n, 0) + 1
    total = len(rows)
    print(
        f"{folder}: {total} latency/throughput figures; with a 95% interval {with_interval}/{total} = "
        f"{100 * with_interval / total:.1f}%; from one round (no interval possible) {single}; probe-free rounds "
        f"per figure: " + ", ".join(f"{n}: {c}" for n, c in sorted(by_rounds.items()))
    )
    report = build_report(load_article(), read_results(folder), {})
    paired = [
        f
        for s in report.scenarios
        for f in s.figures
        if f.article is not None and f.absent is not None and f.unit in LATENCY_UNITS
    ]
    inside = [f for f in paired if f.article_within]
    print(
        f"beside an A100 figure: {len(paired)}; with an interval {sum(f.absent_ci is not None for f in paired)}; "
        f"A100 and H200 cannot be told apart (A100 inside the H200 interval): {len(inside)}"
        + "".join(f"\n  {f.engine} {f.variant} {f.label} {f.metric}: A100 {f.article}" for f in inside)
    )
    if a.other is None:
        print("agreement of two independent runs: no second run given (--other DIR); none is committed")
        return
    other = figures(a.other)
    both = [k for k in rows if k in other]
    verdicts = [agree(intervals[k], row_intervals(other[k])["absent"]) for k in both]
    judged = [v for v in verdicts if v is not None]
    share = f"{100 * sum(judged) / len(judged):.1f}%" if judged else "n/a"
    print(
        f"agreement with {a.other}: {sum(judged)}/{len(judged)} figures with both intervals overlap = {share} "
        f"(target >= 90%); {len(both) - len(judged)} of the {len(both)} shared figures lack an interval in a run"
    )


if __name__ == "__main__":
    main()
