"""atlas.runtime.verify on a tiny fixture: a hand-made index and graph of one package and a recording with one edge
per verdict and per kind of call; the recording's file round trip and its errors; Index.symbol_at."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest

from atlas.cli.verify import human
from atlas.errors import ConfigError
from atlas.graph import AtlasGraph, Index
from atlas.model import CallSite, Pin, Span, Symbol, SymbolKind
from atlas.runtime import recording
from atlas.runtime.recording import RecordedEdge, Recording
from atlas.runtime.verify import CallKind, Verdict, to_json, verify

PIN = Pin("pkg", "v1", "0" * 40, "https://example.com/pkg")
# pkg/core.py, as the index spans it:
#  1 module
#  3-20 class Engine:  4-6 __init__, 8-14 step (12-13 nested inner), 16-18 numbers (a generator), 19-20 size
#  22-30 def drive
SPANS = {
    "pkg.core": (SymbolKind.MODULE, 1, 30),
    "pkg.core.Engine": (SymbolKind.CLASS, 3, 20),
    "pkg.core.Engine.__init__": (SymbolKind.METHOD, 4, 6),
    "pkg.core.Engine.step": (SymbolKind.METHOD, 8, 14),
    "pkg.core.Engine.step.inner": (SymbolKind.FUNCTION, 12, 13),
    "pkg.core.Engine.numbers": (SymbolKind.METHOD, 16, 18),
    "pkg.core.Engine.size": (SymbolKind.METHOD, 19, 20),
    "pkg.core.Engine.speed": (SymbolKind.ATTRIBUTE, 5, 5),
    "pkg.core.drive": (SymbolKind.FUNCTION, 22, 30),
    "pkg.util": (SymbolKind.MODULE, 1, 5),
    "pkg.util.add": (SymbolKind.FUNCTION, 1, 2),
    "pkg.util.sub": (SymbolKind.FUNCTION, 4, 5),
}
DECORATORS = {"pkg.core.Engine.size": ("property",)}
COMPONENT = {"pkg.core.drive": "driver", "pkg.util.add": "util"}


def make_index() -> Index:
    return Index(
        PIN,
        Path("/nowhere"),
        {
            sid: Symbol(
                sid,
                kind,
                Span("src/" + sid.split(".")[0] + "/" + sid.split(".")[1] + ".py", a, b),
                decorators=DECORATORS.get(sid, ()),
                component=COMPONENT.get(sid, ""),
            )
            for sid, (kind, a, b) in SPANS.items()
        },
    )


def make_graph(index: Index) -> AtlasGraph:
    g = nx.MultiDiGraph()
    for sid in index.symbols:
        g.add_node(sid)
    for caller, callee, line in [
        ("pkg.core.drive", "pkg.core.Engine", 23),  # a constructor: an edge to the class
        ("pkg.core.Engine.step", "pkg.util.add", 9),
        ("pkg.core.Engine.step", "pkg.core.Engine.step.inner", 14),
        ("pkg.core", "pkg.util.add", 26),  # the site in drive, under another caller
        ("pkg.core.drive", "pkg.util.sub", 27),
    ]:
        g.add_edge(caller, callee, provenance="static", confidence=1.0, path="src/pkg/core.py", line=line)
    unresolved = [CallSite("pkg.core.drive", "e.run()", Span("src/pkg/core.py", 28, 28))]
    return AtlasGraph(PIN, g, index.symbols, unresolved)


def edge(caller, line, callee_path, callee, callee_line) -> RecordedEdge:
    return RecordedEdge("pkg/core.py", caller, line, callee_path, callee, callee_line, 2)


EDGES = [  # (recorded edge, verdict, kind)
    (edge("drive", 23, "pkg/core.py", "Engine.__init__", 4), Verdict.EDGE, CallKind.CONSTRUCTOR),
    (edge("Engine.step", 9, "pkg/util.py", "add", 1), Verdict.EDGE, CallKind.CALL),
    (edge("Engine.step", 14, "pkg/core.py", "Engine.step.<locals>.inner", 12), Verdict.EDGE, CallKind.NESTED),
    (edge("drive", 26, "pkg/util.py", "add", 1), Verdict.SITE, CallKind.CALL),
    (edge("drive", 27, "pkg/util.py", "add", 1), Verdict.ELSEWHERE, CallKind.CALL),
    (edge("drive", 28, "pkg/core.py", "Engine.numbers", 16), Verdict.UNRESOLVED, CallKind.RESUME),
    (edge("drive", 29, "pkg/core.py", "Engine.size", 19), Verdict.NO_SITE, CallKind.PROPERTY),
    (edge("Engine.step", 10, "pkg/core.py", "Engine.__getattr__", 40), Verdict.NO_CALLEE, CallKind.PROTOCOL),
]


def make_recording(edges=tuple(e for e, _, _ in EDGES)) -> Recording:
    return Recording(
        "pkg", "default", "v1", "0" * 40, "1.0", tuple(edges), 2, frozenset({("pkg/core.py", "Engine.numbers")})
    )


def test_each_recorded_edge_gets_its_verdict_and_kind():
    index = make_index()
    report = verify(make_recording(), index, make_graph(index), "src")
    assert [(c.verdict, c.kind) for c in report.checks] == [(v, k) for _, v, k in EDGES]
    assert [c.caller for c in report.checks[:3]] == ["pkg.core.drive", "pkg.core.Engine.step", "pkg.core.Engine.step"]
    assert report.checks[4].site_callees == ("pkg.util.sub",)
    assert (report.num_held, len(report.calls), len(report.checks)) == (4, 7, 8) and report.share == 4 / 7
    assert report.components == {"(none)": (2, 3), "driver": (2, 4)}  # the resumed generator is not a call
    assert report.core == (1, 2)  # drive -> add twice (both ends in a component): held at 26, elsewhere at 27


def test_the_report_as_json_and_text_groups_misses_by_caller_module():
    index = make_index()
    doc = to_json(verify(make_recording(), index, make_graph(index), "src"), min_share=0.6)
    assert (doc["num_recorded"], doc["num_calls"], doc["num_held"], doc["share"], doc["passed"]) == (
        8,
        7,
        4,
        0.5714,
        False,
    )
    assert doc["by_kind"]["call"] == {"held": 2, "recorded": 3}
    assert doc["missing_by_kind"]["call"] == {Verdict.ELSEWHERE.value: 1}
    assert list(doc["misses"]) == ["pkg.core"]
    assert [m["site"] for m in doc["misses"]["pkg.core"]] == [f"pkg/core.py:{n}" for n in (10, 27, 29)]
    assert doc["misses"]["pkg.core"][0]["callee"] == "pkg/core.py:Engine.__getattr__"
    doc.update(pin_set="default", graph_ref="v1")
    text = "\n".join(human(doc))
    assert "4 of 7 recorded calls held, 57.1% (minimum 60.0%: FAILED)" in text
    assert (
        "pkg/core.py:27  pkg.core.drive -> pkg.util.add  [call; missing: the call site resolved to other "
        "callees -> has pkg.util.sub]  x2" in text
    )


def test_runs_without_a_call_in_the_source_are_shown_not_counted_and_callers_are_named_by_qualname():
    """A class body and a comprehension are run by the interpreter where the source has no call; a call made on a
    decorator line of a method belongs to the class body running it, whose calls the graph gives the module."""
    index = make_index()
    recorded = make_recording(
        (
            edge("<module>", 3, "pkg/core.py", "Engine", 3),
            edge("drive", 24, "pkg/core.py", "drive.<locals>.<listcomp>", 24),
            edge("Engine", 8, "pkg/util.py", "add", 1),
        )
    )
    report = verify(recorded, index, make_graph(index), "src")
    assert [c.kind for c in report.checks] == [CallKind.CLASS_BODY, CallKind.COMPREHENSION, CallKind.CALL]
    assert report.checks[2].caller == "pkg.core" and report.checks[2].verdict is Verdict.EDGE
    assert [c.edge.line for c in report.calls] == [8] and report.share == 1.0


def test_calls_with_an_end_in_a_file_atlas_does_not_analyse_are_shown_not_counted():
    """Vendored code the manifest excludes (vLLM's third_party/) has no symbols: its calls, and calls into it,
    cannot be in the graph by design; they are reported apart, not counted as misses."""
    index = make_index()
    recorded = make_recording(
        (
            RecordedEdge("pkg/vendored.py", "helper", 3, "pkg/vendored.py", "inner", 9, 4),
            edge("drive", 25, "pkg/vendored.py", "helper", 1),
            edge("Engine.step", 9, "pkg/util.py", "add", 1),
        )
    )
    report = verify(recorded, index, make_graph(index), "src")
    assert [c.verdict for c in report.checks] == [Verdict.OUTSIDE, Verdict.OUTSIDE, Verdict.EDGE]
    assert (report.num_outside, len(report.calls), report.share) == (2, 1, 1.0)
    doc = to_json(report, min_share=0.9)
    assert doc["num_outside"] == 2 and doc["misses"] == {} and doc["by_kind"] == {"call": {"held": 1, "recorded": 1}}


@pytest.mark.parametrize(
    "line, expected",
    [
        (1, "pkg.core"),
        (3, "pkg.core.Engine"),
        (5, "pkg.core.Engine.__init__"),  # an attribute is not a scope
        (12, "pkg.core.Engine.step.inner"),
        (14, "pkg.core.Engine.step"),
        (21, "pkg.core"),
        (31, None),
    ],
)
def test_symbol_at_is_the_innermost_scope(line, expected):
    assert make_index().symbol_at("src/pkg/core.py", line) == expected
    assert make_index().symbol_at("src/pkg/other.py", 1) is None


def test_recording_merges_processes_and_round_trips(tmp_path):
    (tmp_path / "edges").mkdir()
    row = ["pkg/core.py", "drive", 23, "pkg/core.py", "Engine.__init__", 4]
    for pid, n in ((1, 2), (2, 3)):
        (tmp_path / "edges" / f"p-{pid}.json").write_text(
            json.dumps(
                {"schema": 1, "kind": "edges", "edges": [[*row, n]], "generators": [["pkg/core.py", "Engine.numbers"]]}
            )
        )
    spec = {"framework": "pkg", "pin_set": "default", "ref": "v1", "commit": "0" * 40, "engine_version": "1.0"}
    doc = recording.collect(tmp_path, spec)
    assert doc["edges"] == [[*row, 5]] and doc["num_processes"] == 2
    loaded = recording.load(tmp_path)
    assert loaded.edges == (RecordedEdge(*row, 5),) and loaded.pin_set == "default"
    assert loaded.generators == {("pkg/core.py", "Engine.numbers")}
    assert recording.load(tmp_path / "edges.json") == loaded


@pytest.mark.parametrize(
    "content, says",
    [
        (None, "is not a recording"),
        ("{", "is not JSON"),
        ('{"kind": "edges", "schema": 99}', "not an edges recording of schema 1"),
    ],
)
def test_a_bad_recording_says_what_to_do(tmp_path, content, says):
    path = tmp_path / "edges.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ConfigError, match=says):
        recording.load(path)


def test_a_site_that_reached_only_code_outside_the_tree_says_what():
    """With the graph's site table, a missed edge at a call site resolved outside the tree names what it reached,
    and one at an unresolved site the reason."""
    from atlas.graph.table import site_table
    from atlas.model import SiteStatus, Unresolved

    index = make_index()
    graph = make_graph(index)
    sites = site_table(
        [
            (
                "pkg.core.drive",
                "src/pkg/core.py",
                28,
                4,
                28,
                11,
                "e.run",
                SiteStatus.UNRESOLVED,
                Unresolved.RECEIVER,
                (),
            ),
            ("pkg.core.drive", "src/pkg/core.py", 30, 4, 30, 12, "model", SiteStatus.TORCH, None, ("torch.nn.Module",)),
        ]
    )
    graph = AtlasGraph(PIN, graph.graph, index.symbols, graph.unresolved, None, None, sites)
    edges = (
        edge("drive", 28, "pkg/core.py", "Engine.numbers", 16),
        edge("drive", 30, "pkg/core.py", "Engine.numbers", 16),
    )
    report = verify(make_recording(edges), index, graph, "src")
    assert [(c.verdict, c.site_callees) for c in report.checks] == [
        (Verdict.UNRESOLVED, ("receiver has no known value",)),
        (Verdict.OUT_OF_TREE, ("torch.nn.Module",)),
    ]
