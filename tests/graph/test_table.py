"""atlas.graph.table.EdgeBuilder: the edge table it freezes is the one a networkx MultiDiGraph built by the same
additions gives (node order, edge order grouped by caller then callee, attributes), and has_edge agrees."""

import networkx as nx
import pytest

from atlas.graph.table import EdgeBuilder, from_networkx

# (caller, callee, provenance, confidence, path, line); "n:x" adds a node only
ADDITIONS = [
    "n:a",
    "n:b",
    ("a", "c", "static", 1.0, "a.py", 3),
    ("b", "a", "type-inferred", 0.9, "b.py", 7),
    ("a", "b", "dispatch", 0.5, "a.py", 4),
    ("a", "c", "static", 1.0, "a.py", 9),  # a second edge between a and c: after a's first callee's edges
    ("ext.x", "a", "launch", 1.0, "", 0),  # an external caller, added by its edge
    "n:c",  # already there: no change
    ("b", "b", "registration", 0.9, "b.py", 1),
]


def build(additions):
    builder, g = EdgeBuilder(), nx.MultiDiGraph()
    for item in additions:
        if isinstance(item, str):
            builder.add_node(item[2:])
            g.add_node(item[2:])
        else:
            a, b, prov, conf, path, line = item
            builder.add_edge(a, b, prov, conf, path, line)
            g.add_edge(a, b, provenance=prov, confidence=conf, path=path, line=line)
    return builder, g


@pytest.mark.parametrize("cut", range(len(ADDITIONS) + 1))
def test_table_is_the_networkx_one(cut):
    builder, g = build(ADDITIONS[:cut])
    mine, theirs = builder.table(), from_networkx(g)
    assert mine.nodes == theirs.nodes
    assert [
        mine.attrs(i) | {"ends": (mine.nodes[mine.callers[i]], mine.nodes[mine.callees[i]])} for i in range(len(mine))
    ] == [
        theirs.attrs(i) | {"ends": (theirs.nodes[theirs.callers[i]], theirs.nodes[theirs.callees[i]])}
        for i in range(len(theirs))
    ]
    assert list(builder.edges()) == [
        (a, b, d["provenance"], d["confidence"], d["path"], d["line"]) for a, b, d in g.edges(data=True)
    ]
    for a in g.nodes:
        assert a in builder
        for b in g.nodes:
            assert builder.has_edge(a, b) == g.has_edge(a, b)


def test_site_table_gives_back_its_rows_in_file_order():
    from atlas.graph.table import site_table
    from atlas.model import SiteStatus, Unresolved

    rows = [
        ("m.f", "b.py", 3, 4, 3, 9, "g", SiteStatus.IN_TREE, None, ("m.g",)),
        ("m.f", "a.py", 7, 0, 8, 1, "x.go", SiteStatus.UNRESOLVED, Unresolved.PARAMETER, ()),
        ("m", "a.py", 2, 0, 2, 6, "len", SiteStatus.BUILTIN, None, ("builtins.len",)),
    ]
    table = site_table(rows)
    got = [
        (c.caller, c.span.path, c.span.start, c.column, c.span.end, c.expression, c.status, c.reason, c.targets)
        for c in table.sites()
    ]
    assert got == [
        ("m", "a.py", 2, 0, 2, "len", SiteStatus.BUILTIN, None, ("builtins.len",)),
        ("m.f", "a.py", 7, 0, 8, "x.go", SiteStatus.UNRESOLVED, Unresolved.PARAMETER, ()),
        ("m.f", "b.py", 3, 4, 3, "g", SiteStatus.IN_TREE, None, ("m.g",)),
    ]
    assert [(table.end_lines[i], table.end_cols[i]) for i in range(len(table))] == [(2, 6), (8, 1), (3, 9)]
    assert [c.expression for c in table.sites(SiteStatus.UNRESOLVED)] == ["x.go"]
    assert table.counts() == {
        s.value: 1 if s in (SiteStatus.BUILTIN, SiteStatus.UNRESOLVED, SiteStatus.IN_TREE) else 0 for s in SiteStatus
    }
