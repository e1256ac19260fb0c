"""Runtime edges: the caller is the innermost function around the call site at the pin; an observed edge the static
graph lacks is reported."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import networkx as nx
import pytest

from atlas.graph import Index
from atlas.model import Pin
from atlas.parse.python import extract, module_name
from atlas.runtime.edges import missing_from_graph, observed_edges

SOURCE = """\
class EngineCore:
    def step(self):
        out = self.scheduler.schedule()
        def inner():
            return self.scheduler.update_from_output(out)
        return inner()

top = make()
"""


def index_of(source: str, path: str, module: str) -> Index:
    facts = extract(source.encode(), path, module, False)
    return Index(Pin("vllm", "v0", "0" * 40, ""), Path("."), {s.id: s for s in facts.symbols})


@pytest.mark.parametrize(
    "line, symbol", [(3, "m.EngineCore.step"), (5, "m.EngineCore.step.inner"), (8, "m"), (1, "m.EngineCore")]
)
def test_the_innermost_symbol_around_a_line(line, symbol):
    """One helper (atlas.model.Spans, through Index.symbol_at) names the caller of a line everywhere."""
    assert index_of(SOURCE, "m.py", "m").symbol_at("m.py", line) == symbol


@pytest.mark.parametrize(
    "path, root, module",
    [
        ("vllm/v1/engine/core.py", "", "vllm.v1.engine.core"),
        ("python/sglang/srt/managers/__init__.py", "python", "sglang.srt.managers"),
    ],
)
def test_module_name(path, root, module):
    assert module_name(path, root)[0] == module


def test_observed_edge_missing_from_the_graph_is_a_finding():
    callee = "vllm.sched.Scheduler.schedule"
    events = [
        {"kind": "call", "call_at_pin": True, "call_path": "vllm/core.py", "call_line": 3, "symbol": callee},
        {"kind": "call", "call_at_pin": True, "call_path": "vllm/core.py", "call_line": 3, "symbol": callee},
        {
            "kind": "call",
            "call_at_pin": True,
            "call_path": "vllm/core.py",
            "call_line": 5,
            "symbol": "vllm.sched.Scheduler.update_from_output",
        },
        {"kind": "call", "call_at_pin": False, "call_path": "/usr/lib/x.py", "call_line": 1, "symbol": callee},
    ]
    observed = observed_edges(events, index_of(SOURCE, "vllm/core.py", "vllm.core"), "")
    assert [(e.caller, e.callee, n) for e, n in observed] == [
        ("vllm.core.EngineCore.step", callee, 2),
        ("vllm.core.EngineCore.step.inner", "vllm.sched.Scheduler.update_from_output", 1),
    ]
    graph = nx.MultiDiGraph()
    graph.add_edge("vllm.core.EngineCore.step", callee)
    (finding,) = missing_from_graph(observed, SimpleNamespace(graph=graph))
    assert (finding.kind, finding.where) == ("runtime-edge-missing", "vllm/core.py:5")
    assert "update_from_output was called at runtime (1x)" in finding.message
