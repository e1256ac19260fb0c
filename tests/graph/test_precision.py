"""The precision sample and its record (atlas.graph.precision): the stratified draw on hand-made rows and a tiny
graph, merging a new draw with a judged record, the record's file form and checks, and the figures' arithmetic."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import networkx as nx
import pytest

from atlas import yamlio
from atlas.graph import AtlasGraph
from atlas.graph.precision import record, sample, tally
from atlas.graph.precision.record import EdgeRow, Hop, PathRow
from atlas.graph.store import CONFIDENCE
from atlas.model import Pin, Provenance, Span, Symbol, SymbolKind

PIN = Pin("eng", "v1", "ab" * 20, "https://example.com/eng")
RECORD = Path(__file__).resolve().parents[2] / "results" / "precision"
MIN_JUDGED = 10  # fewer judged rows give an interval too wide to hold a confidence to


def row(caller: str, callee: str, line: int, provenance: str = "static", component: str = "", **kw) -> EdgeRow:
    return EdgeRow("eng", "abababababab", caller, callee, "eng/x.py", line, provenance, 1.0, component, **kw)


def population() -> list[EdgeRow]:
    """static: 20 edges in component a, 2 in b, 5 with none; dispatch: 3 in a."""
    rows = [row("eng.a.f", f"eng.t.g{i}", i, component="a") for i in range(20)]
    rows += [row("eng.b.f", f"eng.t.g{i}", i, component="b") for i in range(2)]
    rows += [row("eng.c.f", f"eng.t.g{i}", i) for i in range(5)]
    rows += [row("eng.a.h", f"eng.t.g{i}", i, "dispatch", "a") for i in range(3)]
    return rows


def test_draw_takes_strata_in_turn_and_fills_from_the_larger():
    drawn = sample.draw_edges(population(), {"static": 9, "dispatch": 5, "launch": 4})
    strata = [r.stratum for r in drawn]
    assert strata.count(("static", "b")) == 2  # all it has
    assert strata.count(("static", "(none)")) == 4 and strata.count(("static", "a")) == 3 + 0  # turns: a, none, b
    assert len([s for s in strata if s[0] == "static"]) == 9
    assert strata.count(("dispatch", "a")) == 3  # fewer than the quota: all of them
    assert not [s for s in strata if s[0] == "launch"]
    assert len({r.key for r in drawn}) == len(drawn)


def test_draw_is_deterministic_and_stable_when_edges_go():
    rows = population()
    drawn = sample.draw_edges(rows, {"static": 6})
    assert drawn == sample.draw_edges(list(reversed(rows)), {"static": 6})
    gone = drawn[0]
    again = sample.draw_edges([r for r in rows if r.key != gone.key], {"static": 6})
    assert {r.key for r in drawn} - {r.key for r in again} == {gone.key}  # only the removed edge's place changes
    assert len(again) == 6
    assert sample.draw_edges(rows, {"static": 6}, seed="other") != drawn


def test_merge_keeps_verdicts_adds_new_rows_and_marks_gone_ones():
    judged_kept = row("eng.a.f", "eng.t.g1", 1, verdict="can", reason="L1 calls it")
    judged_gone = row("eng.a.f", "eng.t.g2", 2, verdict="cannot", error="receiver-too-wide", reason="L2")
    judged_not_drawn = row("eng.a.f", "eng.t.g3", 3, verdict="can", reason="L3")
    unjudged_not_drawn = row("eng.a.f", "eng.t.g4", 4)
    new = row("eng.a.f", "eng.t.g5", 5)
    record_rows = [judged_kept, judged_gone, judged_not_drawn, unjudged_not_drawn]
    now_kept = replace(judged_kept, verdict="", reason="", provenance="type-inferred")  # the rebuilt graph's label
    now_not_drawn = replace(judged_not_drawn, verdict="", reason="", confidence=0.5)
    present = {r.key: r for r in (now_kept, now_not_drawn, new, unjudged_not_drawn)}
    merged = {r.key: r for r in record.merge_edges([now_kept, new], record_rows, present)}
    assert set(merged) == {judged_kept.key, judged_gone.key, judged_not_drawn.key, new.key}
    assert merged[judged_kept.key].verdict == "can" and merged[judged_kept.key].provenance == "type-inferred"
    assert merged[judged_gone.key].current is False and merged[judged_gone.key].error == "receiver-too-wide"
    assert merged[judged_not_drawn.key].current and merged[judged_not_drawn.key].confidence == 0.5
    assert merged[new.key].verdict == ""


def path_row(*nodes: str, **kw) -> PathRow:
    hops = tuple(Hop(a, b, "eng/x.py", i, "static") for i, (a, b) in enumerate(zip(nodes, nodes[1:]), 1))
    return PathRow("eng", "abababababab", "kernel", nodes[0], nodes[-1], hops, **kw)


def test_merge_paths_by_hop_list():
    old = path_row("s", "a", "b", "t", verdict="infeasible", bad_hop="2", error="override-ignored", reason="x")
    other = path_row("s", "c", "b", "t")  # the same question, another answer: unjudged
    merged = record.merge_paths([other, path_row("s", "a", "b", "t")], [old])
    assert [(r.key, r.verdict, r.current) for r in merged] == [
        (("eng", ("s", "a", "b", "t")), "infeasible", True),
        (("eng", ("s", "c", "b", "t")), "", True),
    ]
    assert [r.current for r in record.merge_paths([other], [old])] == [True, False]


def test_rows_round_trip_through_their_file_form():
    e = row("eng.a.f", "eng.t.g", 7, "dispatch", "a", verdict="cannot", error="override-ignored", reason="L7")
    assert record.edge_from_data(record.edge_to_data(e)) == e
    p = path_row("s", "a", "t", verdict="feasible", reason="each hop runs")
    assert record.path_from_data(record.path_to_data(p)) == p


def test_problems_name_each_malformed_row():
    rows = [
        row("f", "g", 1, verdict="maybe", reason="?"),
        row("f", "g", 2, verdict="cannot", reason="why", error="bad-luck"),
        row("f", "g", 3, verdict="can"),
        row("f", "g", 4, verdict="can", reason="ok", error="other"),
        row("f", "g", 5, verdict="cannot", error="other", reason="ok"),
        path_row("s", "a", "t", verdict="feasible", reason="ok"),
    ]
    found = record.problems(rows)
    assert len(found) == 4
    assert "verdict 'maybe'" in found[0] and "error 'bad-luck'" in found[1]
    assert "without a reason" in found[2] and "error class on a can row" in found[3]


@pytest.mark.parametrize(
    "good, n, low, high",
    [(8, 10, 0.4902, 0.9433), (0, 10, 0.0, 0.2775), (10, 10, 0.7225, 1.0), (87, 140, 0.5389, 0.6975)],
)
def test_wilson_interval(good, n, low, high):
    lo, hi = tally.wilson(good, n)
    assert lo == pytest.approx(low, abs=1e-4) and hi == pytest.approx(high, abs=1e-4)


def test_shares_weighted_estimate_errors_and_gone_rows():
    rows = [
        row("f", "g", 1, component="a", verdict="can", reason="r"),
        row("f", "g", 2, component="a", verdict="cannot", error="other", reason="r"),
        row("f", "g", 3, component="b", verdict="can", reason="r"),
        row("f", "g", 4, component="b", verdict="cannot", error="receiver-too-wide", reason="r", current=False),
        row("f", "g", 5, component="c"),  # unjudged
    ]
    assert tally.share(rows) == tally.Share(2, 3)
    assert tally.shares_by(rows, lambda r: r.component) == {"a": tally.Share(1, 2), "b": tally.Share(1, 1)}
    # stratum a: 1/2 of 100 edges, b: 1/1 of 300, c (none judged) left out: (50 + 300) / 400
    sizes = {("eng", "static/a"): 100, ("eng", "static/b"): 300, ("eng", "static/c"): 600}
    assert tally.weighted(rows, sizes) == (pytest.approx(0.875), 400)
    assert tally.errors(rows) == {"other": 1}
    assert tally.gone(rows) == {"cannot": 1}


def tiny_graph(with_kernel: bool = True) -> AtlasGraph:
    """Sources of the core: core.start and core.other. core.start -> lib.mid -> lib.x -> kv.put (3 hops) -> k.kern
    (4 hops); core.other -> kv.get (1 hop)."""
    kinds = {
        "eng.core.start": ("scheduler", SymbolKind.METHOD),
        "eng.core.other": ("engine core", SymbolKind.METHOD),
        "eng.lib.mid": ("", SymbolKind.FUNCTION),
        "eng.lib.x": ("", SymbolKind.FUNCTION),
        "eng.kv.put": ("KV-cache manager", SymbolKind.METHOD),
        "eng.kv.get": ("KV-cache manager", SymbolKind.METHOD),
        "eng.k.kern": ("", SymbolKind.TRITON_KERNEL),
    }
    symbols = {sid: Symbol(sid, kind, Span("eng/x.py", 1, 9), component=c) for sid, (c, kind) in kinds.items()}
    g = nx.MultiDiGraph()
    for sid, s in symbols.items():
        g.add_node(sid, kind=s.kind.value, path="eng/x.py", start=1, end=9, signature="", component=s.component)
    edges = [
        ("eng.core.start", "eng.lib.mid", "static"),
        ("eng.lib.mid", "eng.lib.x", "type-inferred"),
        ("eng.lib.x", "eng.kv.put", "dispatch"),
        ("eng.core.other", "eng.kv.get", "static"),
    ] + ([("eng.kv.put", "eng.k.kern", "launch")] if with_kernel else [])
    for n, (a, b, prov) in enumerate(edges, 1):
        g.add_edge(a, b, provenance=prov, confidence=1.0, path="eng/x.py", line=n)
    return AtlasGraph(PIN, g, symbols)


def test_graph_rows_and_strata():
    rows = sample.graph_rows(tiny_graph(), "eng")
    assert len(rows) == 5
    assert sample.strata_sizes(rows.values()) == {
        "dispatch/(none)": 1,
        "launch/KV-cache manager": 1,
        "static/engine core": 1,
        "static/scheduler": 1,
        "type-inferred/(none)": 1,
    }


@pytest.mark.parametrize(
    "with_kernel, expected",
    [
        # core.start answers the kernel question and is used; core.other reaches a KV method at one hop only
        (True, [("kernel", "eng.core.start", "eng.k.kern", 4)]),
        (False, [("KV-cache manager", "eng.core.start", "eng.kv.put", 3)]),
    ],
)
def test_paths_ask_for_targets_at_three_hops_or_more(with_kernel, expected):
    paths = sample.draw_paths(tiny_graph(with_kernel), "eng", per_stratum=2)
    assert [(p.stratum, p.source, p.target, len(p.hops)) for p in paths] == expected
    assert [h.provenance for h in paths[0].hops][:3] == ["static", "type-inferred", "dispatch"]
    assert [h.line for h in paths[0].hops][:3] == [1, 2, 3]


def test_the_committed_record_is_well_formed():
    """results/precision/: every row parses, every current row is judged, verdicts and classes are known."""
    edges = [record.edge_from_data(d) for d in yamlio.load(RECORD / "edges.yaml")["rows"]]
    paths = [record.path_from_data(d) for d in yamlio.load(RECORD / "paths.yaml")["rows"]]
    assert edges and paths
    assert record.problems([*edges, *paths]) == []
    assert all(r.verdict for r in [*edges, *paths] if r.current)
    assert all(r.bad_hop for r in paths if r.verdict == "infeasible")


def test_confidence_is_the_audited_share():
    """Each provenance's confidence (atlas.graph.store.CONFIDENCE) lies within the 95% Wilson interval of the share
    of its edges that can happen in the committed record, where the record judges at least MIN_JUDGED of them."""
    edges = [record.edge_from_data(d) for d in yamlio.load(RECORD / "edges.yaml")["rows"]]
    shares = {p: s for p, s in tally.shares_by(edges, lambda r: r.provenance).items() if s.n >= MIN_JUDGED}
    assert {"static", "type-inferred", "dispatch"} <= shares.keys()
    outside = {
        p: (CONFIDENCE[Provenance(p)], f"{s.good}/{s.n}", s.interval)
        for p, s in shares.items()
        if not s.interval[0] <= CONFIDENCE[Provenance(p)] <= s.interval[1]
    }
    assert outside == {}, "re-set CONFIDENCE from benchmarks/precision_report.py"
