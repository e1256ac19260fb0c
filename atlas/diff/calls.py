"""Call-graph changes between two pins among the component symbols (a callee gone, a new callee), and kernel
registrations added or removed. Pure: takes two AtlasGraphs (their edge tables answer; no networkx graph is
built)."""

from __future__ import annotations

from collections.abc import Iterator

from atlas.model import Change, ChangeKind

OP_PREFIX = "op:"


def callees(graph, node: str) -> set[str]:
    return {callee for _, _, callee, _ in graph.callees(node, 1)}


def call_changes(old, new, renames: dict[str, str]) -> Iterator[Change]:
    """For every component symbol present at both pins (through renames), the callees it lost and gained.
    Callees are compared after mapping old ids through `renames`, so a renamed callee is not reported twice."""
    for node in sorted(old.symbols):
        if not old.symbols[node].component:
            continue
        target = renames.get(node, node)
        if target not in new.symbols:
            continue
        before = {renames.get(c, c) for c in callees(old, node)}
        after = callees(new, target)
        for gone in sorted(before - after):
            yield Change(ChangeKind.CALLEE_REMOVED, node, target, detail=f"no longer calls {gone}")
        for came in sorted(after - before):
            yield Change(ChangeKind.CALLEE_ADDED, node, target, detail=f"now calls {came}")


def registration_changes(old, new) -> Iterator[Change]:
    old_ops = {n for n in old.table.nodes if n.startswith(OP_PREFIX)}
    new_ops = {n for n in new.table.nodes if n.startswith(OP_PREFIX)}
    for op in sorted(old_ops - new_ops):
        yield Change(ChangeKind.OP_REMOVED, op)
    for op in sorted(new_ops - old_ops):
        yield Change(ChangeKind.OP_ADDED, op, op)
