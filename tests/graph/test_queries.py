"""Index lookups and graph queries on a tiny hand-made graph, and the dot/mermaid renderings of edges."""

import pickle
from pathlib import Path

import networkx as nx
import pytest

from atlas.cli.graph import _print_edges
from atlas.errors import SymbolNotFound
from atlas.graph import AtlasGraph, Index
from atlas.model import Pin, Span, Symbol, SymbolKind

PIN = Pin("vllm", "v0.26.0", "b3a370f04a60359cff7e92068539ba88a0a3a086", "https://github.com/vllm-project/vllm")
IDS = [
    "vllm.v1.core.sched.scheduler.Scheduler.schedule",
    "vllm.v1.core.kv_cache_manager.KVCacheManager.allocate_slots",
    "vllm.v1.engine.core.EngineCore.step",
    "vllm.v0.Scheduler.schedule",
]


def make_index() -> Index:
    return Index(PIN, Path("/nowhere"), {i: Symbol(i, SymbolKind.METHOD, Span("x.py", 1, 2)) for i in IDS})


@pytest.mark.parametrize(
    "name, expected",
    [
        ("KVCacheManager.allocate_slots", [IDS[1]]),
        ("allocate_slots", [IDS[1]]),
        ("sched.scheduler.Scheduler.schedule", [IDS[0]]),
        ("Scheduler.schedule", sorted([IDS[0], IDS[3]])),
        ("heduler.schedule", []),  # suffixes are whole dotted parts
        (IDS[2], [IDS[2]]),
    ],
)
def test_find(name, expected):
    assert make_index().find(name) == expected


def test_resolve_ambiguous_lists_candidates():
    with pytest.raises(SymbolNotFound, match="(?s)ambiguous.*vllm.v0.Scheduler.schedule"):
        make_index().resolve("Scheduler.schedule")
    with pytest.raises(SymbolNotFound, match="no symbol"):
        make_index().resolve("Nope.nothing")


def make_graph() -> AtlasGraph:
    g = nx.MultiDiGraph()
    for i in IDS:
        g.add_node(i, kind="method", path="x.py", start=1, end=2, signature="", component="")
    g.add_edge(IDS[2], IDS[0], provenance="type-inferred", confidence=0.9, path="core.py", line=587)
    g.add_edge(IDS[0], IDS[1], provenance="type-inferred", confidence=0.9, path="scheduler.py", line=564)
    return AtlasGraph(PIN, g, make_index().symbols)


def test_callees_callers_depth_and_path():
    g = make_graph()
    assert [(d, b) for d, _, b, _ in g.callees(IDS[2], depth=2)] == [(1, IDS[0]), (2, IDS[1])]
    assert [a for _, a, _, _ in g.callers(IDS[1])] == [IDS[0]]
    assert g.path(IDS[2], IDS[1]) == [IDS[2], IDS[0], IDS[1]]
    assert g.path(IDS[1], IDS[2]) == []
    assert {e.callee for e in g.edges()} == {IDS[0], IDS[1]}


@pytest.mark.parametrize(
    "fmt, expected",
    [
        ("dot", ["digraph calls {", f'  "{IDS[2]}" -> "{IDS[0]}" [label="type-inferred"];', "}"]),
        ("mermaid", ["flowchart LR", f'  n0["{IDS[2]}"]', f'  n1["{IDS[0]}"]', "  n0 -->|type-inferred| n1"]),
    ],
)
def test_edge_formats(fmt, expected, capsys):
    g = make_graph()
    _print_edges(fmt, [(IDS[2], IDS[0], g.graph.get_edge_data(IDS[2], IDS[0])[0]["provenance"])])
    assert capsys.readouterr().out.splitlines() == expected


def stored(g: AtlasGraph) -> AtlasGraph:
    """The graph as load_graph returns it: from the pickled edge table, no networkx graph yet."""
    return AtlasGraph(PIN, None, g.symbols, [], {}, pickle.loads(pickle.dumps(g.table)))


def test_edge_table_answers_like_the_networkx_graph():
    g = make_graph()
    g.graph.add_edge(
        IDS[0], "torch.ops.vllm.unified_attention", provenance="static", confidence=1.0, path="scheduler.py", line=600
    )  # an external node
    h = stored(g)
    for sid in IDS + ["torch.ops.vllm.unified_attention"]:
        assert h.callees(sid, depth=2) == g.callees(sid, depth=2)
        assert h.callers(sid, depth=2) == g.callers(sid, depth=2)
    assert h.node("torch.ops.vllm.unified_attention")["kind"] == "external"
    assert h.callees("no.such.symbol") == []
    assert h._graph is None  # the queries above never built networkx
    assert list(h.graph.nodes) == list(g.graph.nodes)
    assert sorted(h.graph.edges(data=True), key=repr) == sorted(g.graph.edges(data=True), key=repr)
    assert h.path(IDS[2], IDS[1]) == [IDS[2], IDS[0], IDS[1]]


KERNEL_IDS = [
    "cuda:csrc/cache_kernels.cu::vllm::reshape_and_cache_flash_kernel",
    "cpp:csrc/cache_kernels.cu::reshape_and_cache_flash",
    "op:_C_cache_ops::reshape_and_cache_flash",
    "vllm._custom_ops.reshape_and_cache_flash",
    "ext:sgl_kernel.rmsnorm",
    "jit:clamp::clamp",
    "vllm.x.clamp",
]


@pytest.mark.parametrize(
    "name, expected",
    [
        ("reshape_and_cache_flash_kernel", [KERNEL_IDS[0]]),
        ("vllm::reshape_and_cache_flash_kernel", [KERNEL_IDS[0]]),
        ("cuda:reshape_and_cache_flash_kernel", [KERNEL_IDS[0]]),
        ("cuda:cache_kernels.cu::vllm::reshape_and_cache_flash_kernel", [KERNEL_IDS[0]]),
        (KERNEL_IDS[0], [KERNEL_IDS[0]]),
        ("reshape_and_cache_flash", sorted(KERNEL_IDS[1:4])),  # the same op at three layers
        ("op:reshape_and_cache_flash", [KERNEL_IDS[2]]),
        ("cpp:reshape_and_cache_flash", [KERNEL_IDS[1]]),
        ("_C_cache_ops::reshape_and_cache_flash", [KERNEL_IDS[2]]),
        ("rmsnorm", [KERNEL_IDS[4]]),
        ("clamp", [KERNEL_IDS[5], KERNEL_IDS[6]]),
        ("jit:clamp", [KERNEL_IDS[5]]),
        ("cache_flash_kernel", []),  # suffixes are whole parts, as for dotted ids
        ("cuda:reshape_and_cache_flash", []),  # the kind prefix must agree
    ],
)
def test_find_kernel_ids(name, expected):
    index = Index(PIN, Path("/nowhere"), {i: Symbol(i, SymbolKind.FUNCTION, None) for i in KERNEL_IDS})
    assert index.find(name) == expected


def kernel_graph() -> AtlasGraph:
    """step -> runner -> {wrapper -> op -> cpp -> kernel}, and a call site in `runner` that may reach 8 methods."""
    g = nx.MultiDiGraph()
    kinds = {KERNEL_IDS[0]: "cuda_kernel", KERNEL_IDS[1]: "cpp_function", KERNEL_IDS[2]: "op"}
    chain = ["step", "runner", KERNEL_IDS[3], KERNEL_IDS[2], KERNEL_IDS[1], KERNEL_IDS[0]]
    for n in chain + [f"m{i}" for i in range(8)] + ["layer", "attn"]:
        g.add_node(n, kind=kinds.get(n, "method"), path="x.py", start=1, end=2, signature="", component="")
    for a, b in zip(chain, chain[1:]):
        g.add_edge(a, b, provenance="static", confidence=1.0, path="x.py", line=10)
    for i in range(8):  # one site that may reach 8 methods, m0 of which goes on to `attn`
        g.add_edge("runner", f"m{i}", provenance="type-inferred", confidence=0.9, path="x.py", line=20)
    g.add_edge("m0", "attn", provenance="static", confidence=1.0, path="x.py", line=30)
    g.add_edge("runner", "layer", provenance="type-inferred", confidence=0.9, path="x.py", line=40)
    g.add_edge("layer", KERNEL_IDS[0], provenance="type-inferred", confidence=0.9, path="x.py", line=41)
    g.add_edge("layer", "attn", provenance="type-inferred", confidence=0.9, path="x.py", line=42)
    return AtlasGraph(PIN, g, {})


def test_deepest_of_an_op_named_at_several_layers():
    g = kernel_graph()
    assert g.deepest("step", KERNEL_IDS[1:4]) == KERNEL_IDS[1]  # the C++ function: the others lead to it
    assert g.deepest("step", [KERNEL_IDS[3], "m3"]) is None  # not on one chain
    assert g.deepest("attn", KERNEL_IDS[1:4]) is None  # reaches none


def test_kernel_below_follows_the_kernel_layer_only():
    g = kernel_graph()
    assert g.kernel_below(KERNEL_IDS[2]) == [KERNEL_IDS[2], KERNEL_IDS[1], KERNEL_IDS[0]]
    assert g.kernel_below("step") == []  # Python callers are not followed
    assert g.kernel_below("nowhere") == []


def test_path_prefers_specific_call_sites_over_one_that_may_reach_many():
    g = kernel_graph()
    assert g.path("runner", "attn") == ["runner", "layer", "attn"]  # not through the 8-way site, though as short
    assert g.path("step", KERNEL_IDS[0]) == ["step", "runner", "layer", KERNEL_IDS[0]]
