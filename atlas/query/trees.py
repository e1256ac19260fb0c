"""Callers and callees as a tree: every edge a row under the symbol it leaves (callees) or enters (callers), in
source order of the call sites; a symbol met again is listed, not expanded twice."""

from __future__ import annotations

from dataclasses import dataclass

from atlas.graph.calls import edge_site, provenance_of
from atlas.query.lookup import locate
from atlas.query.session import Atlas, PinRef


@dataclass(frozen=True, slots=True)
class TreeRow:
    depth: int  # 1: a direct callee (caller) of the root
    parent: str  # the row's symbol calls (callees) or is called by (callers) ... this one
    symbol: str
    provenance: str
    confidence: float
    path: str  # the call site
    line: int
    is_expanded: bool  # its own rows follow under it; False when listed elsewhere or at the depth limit
    is_repeat: bool  # expanded at another row (met again)


@dataclass(frozen=True, slots=True)
class Tree:
    pin: PinRef
    root: str
    direction: str  # callees | callers
    depth: int
    rows: tuple[TreeRow, ...]
    note: str = ""

    @property
    def num_symbols(self) -> int:
        return len({r.symbol for r in self.rows})


def tree(atlas: Atlas, name: str, framework: str | None, pin_set: str, depth: int, forward: bool) -> Tree:
    """The callees (`forward`) or callers of the symbol `name` means, `depth` levels down. A class stands for its
    methods when it has no edges of its own: callers of `Req` are the callers of its constructor and methods. A
    function stands also for its copies (AtlasGraph.clones: a closure analysed per receiver class of the method it
    is in, a decorator's wrapper per function it wraps), each a row of its own after the function's own edges. A
    method that only raises NotImplementedError, with no callers of its own, stands for the overrides that implement
    it (AtlasGraph.stubs): the calls that may reach it are drawn to them."""
    found = locate(atlas, name, framework, pin_set)
    graph = atlas.graph(found.framework, pin_set)
    roots = [found.id]
    note = found.note
    member = "member"
    direction = "callees" if forward else "callers"
    walked = graph.callees(found.id, depth) if forward else graph.callers(found.id, depth)
    symbol = graph.symbols.get(found.id)
    if not walked and symbol is not None and symbol.kind.value == "class":
        prefix = found.id + "."
        roots = sorted(s for s in graph.symbols if s.startswith(prefix) and "." not in s[len(prefix) :])
        note = f"{found.id} is a class with no edges of its own: its methods' {direction}"
    elif not walked and not forward and graph.stubs.get(found.id):
        roots = graph.stubs[found.id]
        member = "override"
        drawn_to = (
            "the override that implements it; its"
            if len(roots) == 1
            else f"the {len(roots)} overrides that implement it; their"
        )
        note = f"{found.id} only raises NotImplementedError: a call that may reach it is drawn to {drawn_to} callers"
    else:
        copies = sorted(c for c, origin in graph.clones.items() if origin == found.id)
        if any(graph.callees(c) if forward else graph.callers(c) for c in copies):
            member = "copy"
            contexts = "one per context it was analysed in (a receiver class, a wrapped function)"
            if walked:
                roots = [found.id, *copies]
                note = f"{found.id} also runs as {len(copies)} copies, {contexts}: its own {direction}, then theirs"
            else:
                roots = copies
                note = (
                    f"{found.id} has no {direction} of its own: it runs as {len(copies)} copies, {contexts}; "
                    f"their {direction}"
                )
    edges: dict[str, list[tuple[str, str, dict]]] = {}
    level: dict[str, int] = {r: 0 for r in roots}
    seen: set[tuple] = set()  # an edge two roots' walks both reach is listed once
    for root in roots:
        for d, a, b, attrs in graph.callees(root, depth) if forward else graph.callers(root, depth):
            near, far = (a, b) if forward else (b, a)
            level[far] = min(level.get(far, d), d)
            key = (a, b, provenance_of(attrs), *edge_site(attrs))
            if key not in seen:
                seen.add(key)
                edges.setdefault(near, []).append((near, far, attrs))
    rows: list[TreeRow] = []
    expanded: set[str] = set()

    def grow(node: str, d: int) -> None:
        expanded.add(node)
        for near, far, attrs in sorted(edges.get(node, ()), key=lambda e: (edge_site(e[2]), e[1])):
            opens = d < depth and far not in expanded and level.get(far) == d and far in edges
            path, line = edge_site(attrs)
            repeat = far in expanded or (far in edges and not opens and d < depth)
            rows.append(
                TreeRow(
                    d, near, far, provenance_of(attrs), float(attrs.get("confidence", 0.0)), path, line, opens, repeat
                )
            )
            if opens:
                grow(far, d + 1)

    for root in roots:
        if root not in expanded:
            if root != found.id and (len(roots) > 1 or member != "member") and root in edges:
                rows.append(TreeRow(0, found.id, root, member, 1.0, "", 0, True, False))
            grow(root, 1)
    return Tree(PinRef.of(graph.pin, pin_set), found.id, "callees" if forward else "callers", depth, tuple(rows), note)
