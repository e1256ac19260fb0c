"""atlas.runtime.fanout on hand-made checks: which recorded call sites count (enough calls, one observed target, a
call in the source), how many in-tree targets the graph gives there, and the histogram."""

from __future__ import annotations

import networkx as nx

from atlas.graph import AtlasGraph
from atlas.model import Pin, Span, Symbol, SymbolKind
from atlas.runtime import fanout
from atlas.runtime.recording import RecordedEdge
from atlas.runtime.verify import CallKind, Check, Report, StaticEdges, Verdict

PIN = Pin("pkg", "v1", "0" * 40, "https://example.com/pkg")
IDS = ["pkg.a.f", "pkg.a.g", "pkg.b.h", "pkg.b.k"]


def graph() -> AtlasGraph:
    g = nx.MultiDiGraph()
    for sid in IDS:
        g.add_node(sid, kind="function", path="src/pkg/a.py", start=1, end=2, signature="", component="")
    g.add_node("torch.empty", kind="external", path="", start=0, end=0, signature="", component="")
    sites = {10: ["pkg.a.g"], 20: ["pkg.a.g", "pkg.b.h", "pkg.b.k", "torch.empty"], 30: ["pkg.b.h"], 40: ["pkg.a.g"]}
    for line, callees in sites.items():
        for callee in callees:
            g.add_edge("pkg.a.f", callee, provenance="static", confidence=1.0, path="src/pkg/a.py", line=line)
    symbols = {sid: Symbol(sid, SymbolKind.FUNCTION, Span("src/pkg/a.py", 1, 2)) for sid in IDS}
    return AtlasGraph(PIN, g, symbols)


def check(line: int, callee: str, count: int, kind: CallKind = CallKind.CALL) -> Check:
    edge = RecordedEdge("pkg/a.py", "f", line, "pkg/a.py", callee.rpartition(".")[2], 1, count)
    return Check(edge, "pkg.a.f", callee, kind, Verdict.EDGE)


def test_sites_with_one_target_and_enough_calls():
    checks = (
        check(10, "pkg.a.g", 25),  # one target, 1 static: counts
        check(20, "pkg.a.g", 15),  # one target over two rows, 30 calls; 3 static in the tree (torch.empty is not)
        check(20, "pkg.a.g", 15),
        check(30, "pkg.b.h", 19),  # too few calls
        check(40, "pkg.a.g", 50),  # two observed targets: left out
        check(40, "pkg.b.k", 50),
        check(50, "pkg.b.k", 99, CallKind.COMPREHENSION),  # no call in the source
    )
    report = Report("pkg", "default", "v1", checks, {})
    g = graph()
    sites = fanout.site_fanouts(report, StaticEdges(g), g.symbols, "src")
    assert [(s.line, s.callee, s.calls, s.num_static) for s in sites] == [
        (10, "pkg.a.g", 25, 1),
        (20, "pkg.a.g", 30, 3),
    ]
    assert sites[0].path == "src/pkg/a.py"
    assert fanout.histogram(sites) == {"1": 1, "3": 1}
    assert fanout.histogram(sites, top=2) == {"1": 1, "2+": 1}
