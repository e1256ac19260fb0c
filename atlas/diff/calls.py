"""Call-graph changes between two pins among the component symbols (a callee gone, a new callee), and kernel
registrations added or removed. Pure: takes two networkx graphs (node id = symbol id, node attr `component`)."""

from __future__ import annotations

from collections.abc import Iterator

import networkx as nx

from atlas.model import Change, ChangeKind

OP_PREFIX = "op:"


def callees(graph: nx.MultiDiGraph, node: str) -> set[str]:
    return set(graph.successors(node)) if node in graph else set()


def call_changes(old: nx.MultiDiGraph, new: nx.MultiDiGraph, renames: dict[str, str]) -> Iterator[Change]:
    """For every component symbol present at both pins (through renames), the callees it lost and gained.
    Callees are compared after mapping old ids through `renames`, so a renamed callee is not reported twice."""
    for node in sorted(old.nodes):
        if not old.nodes[node].get("component"):
            continue
        target = renames.get(node, node)
        if target not in new:
            continue
        before = {renames.get(c, c) for c in callees(old, node)}
        after = callees(new, target)
        for gone in sorted(before - after):
            yield Change(ChangeKind.CALLEE_REMOVED, node, target, detail=f"no longer calls {gone}")
        for came in sorted(after - before):
            yield Change(ChangeKind.CALLEE_ADDED, node, target, detail=f"now calls {came}")


def registration_changes(old: nx.MultiDiGraph, new: nx.MultiDiGraph) -> Iterator[Change]:
    old_ops = {n for n in old.nodes if n.startswith(OP_PREFIX)}
    new_ops = {n for n in new.nodes if n.startswith(OP_PREFIX)}
    for op in sorted(old_ops - new_ops):
        yield Change(ChangeKind.OP_REMOVED, op)
    for op in sorted(new_ops - old_ops):
        yield Change(ChangeKind.OP_ADDED, op, op)
