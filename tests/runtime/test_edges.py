"""Runtime edges: the caller is the innermost function around the call site at the pin; an observed edge the static
graph lacks is reported."""

from __future__ import annotations

import ast
from types import SimpleNamespace

import networkx as nx
import pytest

from atlas.runtime.edges import enclosing, missing_from_graph, module_of, observed_edges

SOURCE = """\
class EngineCore:
    def step(self):
        out = self.scheduler.schedule()
        def inner():
            return self.scheduler.update_from_output(out)
        return inner()

top = make()
"""


@pytest.mark.parametrize("line, qualname", [(3, "EngineCore.step"), (5, "EngineCore.step.inner"), (8, ""),
                                            (1, "EngineCore")])
def test_enclosing(line, qualname):
    assert enclosing(ast.parse(SOURCE), line) == qualname


@pytest.mark.parametrize("path, root, module", [("vllm/v1/engine/core.py", "", "vllm.v1.engine.core"),
                                                ("python/sglang/srt/managers/__init__.py", "python",
                                                 "sglang.srt.managers")])
def test_module_of(path, root, module):
    assert module_of(path, root) == module


def test_observed_edge_missing_from_the_graph_is_a_finding(tmp_path):
    (tmp_path / "vllm").mkdir()
    (tmp_path / "vllm" / "core.py").write_text(SOURCE)
    callee = "vllm.sched.Scheduler.schedule"
    events = [{"kind": "call", "call_at_pin": True, "call_path": "vllm/core.py", "call_line": 3, "symbol": callee},
              {"kind": "call", "call_at_pin": True, "call_path": "vllm/core.py", "call_line": 3, "symbol": callee},
              {"kind": "call", "call_at_pin": True, "call_path": "vllm/core.py", "call_line": 5,
               "symbol": "vllm.sched.Scheduler.update_from_output"},
              {"kind": "call", "call_at_pin": False, "call_path": "/usr/lib/x.py", "call_line": 1, "symbol": callee}]
    observed = observed_edges(events, tmp_path, "")
    assert [(e.caller, e.callee, n) for e, n in observed] == [
        ("vllm.core.EngineCore.step", callee, 2),
        ("vllm.core.EngineCore.step.inner", "vllm.sched.Scheduler.update_from_output", 1)]
    graph = nx.MultiDiGraph()
    graph.add_edge("vllm.core.EngineCore.step", callee)
    (finding,) = missing_from_graph(observed, SimpleNamespace(graph=graph))
    assert (finding.kind, finding.where) == ("runtime-edge-missing", "vllm/core.py:5")
    assert "update_from_output was called at runtime (1x)" in finding.message
