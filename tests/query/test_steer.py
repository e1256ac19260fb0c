"""Trees and steered paths of atlas.query on a tiny hand-made graph: rows under their caller, via/avoid/k, dispatch
hops as "1 of N", what comes nearest when there is no path."""

from pathlib import Path

import networkx as nx
import pytest

from atlas.graph import AtlasGraph, Index
from atlas.model import CallSite, Pin, Span, Symbol, SymbolKind
from atlas.query import Atlas, call_paths, tree
from atlas.query.lookup import locate

PIN = Pin("vllm", "v0.26.0", "b3a370f04a60359cff7e92068539ba88a0a3a086", "https://github.com/vllm-project/vllm")
EDGES = [  # caller, callee, provenance, confidence, line
    ("m.Engine.step", "m.Runner.run", "static", 1.0, 10),
    ("m.Engine.step", "m.Engine.log", "static", 1.0, 11),
    ("m.Runner.run", "m.Layer.forward", "type-inferred", 0.9, 20),
    ("m.Runner.run", "m.Impl.A.forward", "dispatch", 0.5, 21),
    ("m.Runner.run", "m.Impl.B.forward", "dispatch", 0.5, 21),
    ("m.Runner.run", "m.Impl.C.forward", "dispatch", 0.5, 21),
    ("m.Layer.forward", "m.kernel", "static", 1.0, 30),
    ("m.Impl.B.forward", "m.kernel", "static", 1.0, 40),
    ("m.Impl.A.forward", "m.Engine.log", "static", 1.0, 41),
    ("m.Impl.C.update", "m.kernel", "static", 1.0, 50),
]
NODES = sorted({e[0] for e in EDGES} | {e[1] for e in EDGES} | {"m.Impl", "m.Impl.C"})


class OneGraph(Atlas):
    """An Atlas over one hand-made graph (no project, no build folder)."""

    def __init__(self, graph: AtlasGraph):
        super().__init__(None)  # type: ignore[arg-type]
        self._graph = graph

    def frameworks(self, framework, pin_set):
        return ["vllm"]

    def graph(self, framework, pin_set="default"):
        return self._graph

    def index(self, framework, pin_set="default", symbols_only=False):
        return Index(PIN, Path("/nowhere"), self._graph.symbols)


@pytest.fixture
def atlas() -> OneGraph:
    g = nx.MultiDiGraph()
    kinds = {"m.Impl": SymbolKind.CLASS, "m.Impl.C": SymbolKind.CLASS}
    symbols = {n: Symbol(n, kinds.get(n, SymbolKind.METHOD), Span("m.py", 1, 2)) for n in NODES}
    for n in NODES:
        g.add_node(n, kind=symbols[n].kind.value, path="m.py", start=1, end=2, signature="", component="")
    for a, b, prov, conf, line in EDGES:
        g.add_edge(a, b, provenance=prov, confidence=conf, path="m.py", line=line)
    unresolved = [CallSite("m.Impl.C.forward", "self.update(x)", Span("m.py", 45, 45))]
    return OneGraph(AtlasGraph(PIN, g, symbols, unresolved))


def test_callees_tree_puts_every_edge_under_its_caller(atlas):
    t = tree(atlas, "Engine.step", None, "default", 3, forward=True)
    rows = [(r.depth, r.parent, r.symbol) for r in t.rows]
    assert rows[:3] == [
        (1, "m.Engine.step", "m.Runner.run"),
        (2, "m.Runner.run", "m.Layer.forward"),
        (3, "m.Layer.forward", "m.kernel"),
    ]
    assert len(rows) == len({(a, b) for a, b, *_ in EDGES if a != "m.Impl.C.update"})  # every edge once
    seen = {"m.Engine.step"}
    for r in t.rows:  # each row sits under a symbol already listed
        assert r.parent in seen
        seen.add(r.symbol)
    log = [r for r in t.rows if r.symbol == "m.Engine.log"]
    assert [r.depth for r in log] == [3, 1]  # under Impl.A.forward (line 41 of run's subtree), then step's line 11


def test_callers_of_a_class_are_its_methods_callers(atlas):
    t = tree(atlas, "m.Impl.C", None, "default", 1, forward=False)
    assert "methods" in t.note
    assert {(r.parent, r.symbol) for r in t.rows if r.depth == 1} == {("m.Impl.C.forward", "m.Runner.run")}


def test_paths_ranked_by_confidence_then_length_with_dispatch_alternatives(atlas):
    answer = call_paths(atlas, "Engine.step", "m.kernel", None, "default", k=5)
    assert [p.symbols for p in answer.paths] == [
        ["m.Engine.step", "m.Runner.run", "m.Layer.forward", "m.kernel"],
        ["m.Engine.step", "m.Runner.run", "m.Impl.B.forward", "m.kernel"],
    ]
    hop = answer.paths[1].hops[1]
    assert hop.num_targets == 3 and hop.alternatives == ("m.Impl.A.forward", "m.Impl.C.forward")


def test_via_and_avoid_steer_the_path(atlas):
    via = call_paths(atlas, "Engine.step", "m.kernel", None, "default", via=("Impl.B.forward",))
    assert via.paths[0].symbols == ["m.Engine.step", "m.Runner.run", "m.Impl.B.forward", "m.kernel"]
    avoid = call_paths(atlas, "Engine.step", "m.kernel", None, "default", avoid=("Layer.forward",))
    assert "m.Layer.forward" not in avoid.paths[0].symbols
    none = call_paths(atlas, "Engine.step", "m.kernel", None, "default", avoid=("Runner.run",))
    assert none.paths == () and none.avoid == ("m.Runner.run",)


def test_no_path_says_what_comes_nearest(atlas):
    answer = call_paths(atlas, "Impl.C.forward", "m.kernel", None, "default")
    assert answer.paths == ()
    assert answer.near[0].kind == "unresolved" and answer.near[0].detail == "self.update(x)"
    reaches = [n.symbol for n in answer.near if n.kind == "reaches"]
    assert reaches[0] == "m.Impl.C.update"  # the sibling method shares the longest part of the id


def test_unknown_name_suggests_the_nearest_spellings(atlas):
    from atlas.errors import SymbolNotFound

    with pytest.raises(SymbolNotFound, match="did you mean: m.Runner.run"):
        locate(atlas, "Runner.runn", None, "default")


def test_a_class_tree_lists_an_edge_two_methods_reach_once():
    g = nx.MultiDiGraph()
    symbols = {"k.K": Symbol("k.K", SymbolKind.CLASS, Span("k.py", 1, 9))}
    symbols |= {n: Symbol(n, SymbolKind.METHOD, Span("k.py", 2, 3)) for n in ("k.K.a", "k.K.b", "k.h", "k.z")}
    for n, s in symbols.items():
        g.add_node(n, kind=s.kind.value, path="k.py", start=1, end=2, signature="", component="")
    for a, b, line in (("k.K.a", "k.h", 2), ("k.K.b", "k.h", 3), ("k.h", "k.z", 5)):
        g.add_edge(a, b, provenance="static", confidence=1.0, path="k.py", line=line)
    t = tree(OneGraph(AtlasGraph(PIN, g, symbols)), "k.K", None, "default", 2, forward=True)
    assert [(r.depth, r.parent, r.symbol) for r in t.rows] == [
        (0, "k.K", "k.K.a"),
        (1, "k.K.a", "k.h"),
        (2, "k.h", "k.z"),
        (0, "k.K", "k.K.b"),
        (1, "k.K.b", "k.h"),
    ]
    assert t.rows[-1].is_repeat and not t.rows[-1].is_expanded
