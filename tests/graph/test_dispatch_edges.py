"""The dispatch pass of a graph build (atlas.graph.store._dispatch_edges): a call of a base method gets edges to the
overrides in subclasses, as calls through the attribute reach them: a decorated override is its wrapper."""

from atlas.graph.resolve import Solver
from atlas.graph.store import _dispatch_edges
from atlas.graph.table import EdgeBuilder
from atlas.parse.python import extract

SOURCE = b"""
from functools import wraps
def with_context(fn):
    @wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper
class Platform:
    def get_capability(self): return None
    def get_name(self): return ""
class Cuda(Platform):
    @with_context
    def get_capability(self): return 9
    def get_name(self): return "cuda"
def user(p: Platform):
    p.get_capability()
    p.get_name()
"""


def test_an_override_wrapped_by_a_decorator_of_the_tree_is_reached_through_its_wrapper():
    facts = [extract(SOURCE, "plat.py", "plat", False)]
    solver = Solver(facts)
    solver.solve()
    symbols = {s.id: s for f in facts for s in f.symbols}
    g = EdgeBuilder()
    for sid in symbols:
        g.add_node(sid)
    g.add_edge("plat.user", "plat.Platform.get_capability", "type-inferred", 0.9, "plat.py", 16)
    g.add_edge("plat.user", "plat.Platform.get_name", "type-inferred", 0.9, "plat.py", 17)
    assert _dispatch_edges(g, solver, symbols) == 2
    added = {(a, b) for a, b, provenance, *_ in g.edges() if provenance == "dispatch"}
    assert added == {("plat.user", "plat.with_context.wrapper"), ("plat.user", "plat.Cuda.get_name")}
