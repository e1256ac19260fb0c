"""Component call graphs as data for the browser: the component's most connected symbols (at most 500), the edges
among them with provenance, each node's callers and callees outside the view (for "expand"), and positions laid
out here so the page is interactive without a layout pass in the browser. Compact: nodes are rows, edges and
neighbours refer to them by index."""

from __future__ import annotations

import json
import math
from collections.abc import Callable

MAX_NODES = 500
MAX_NEIGHBOURS = 15  # per direction, kept for "expand" (the most connected first would need more data)


def components(graph) -> list[str]:
    """The component names the graph's nodes carry, sorted."""
    return sorted({d.get("component") for _, d in graph.nodes(data=True) if d.get("component")})


def label(node_id: str, kind: str = "") -> str:
    """A short readable name: `Class.method` for methods, the last part otherwise; `ns::fn` for C++ and ops."""
    bare = node_id.split(":", 1)[1] if node_id.split(":", 1)[0] in ("op", "cpp", "cuda", "ext", "triton") else node_id
    if "::" in bare:
        return bare.rsplit("::", 2)[-1] if bare.count("::") > 1 else bare
    parts = bare.split(".")
    return ".".join(parts[-2:]) if kind == "method" and len(parts) > 1 else parts[-1]


def members(graph, component: str, limit: int = MAX_NODES) -> list[str]:
    """The component's `limit` most connected nodes (by call edges in and out), sorted by id."""
    nodes = [n for n, d in graph.nodes(data=True) if d.get("component") == component]
    nodes.sort(key=lambda n: (-graph.degree(n), n))
    return sorted(nodes[:limit])


def _positions(graph, nodes: list[str]) -> dict[str, tuple[float, float]]:
    """Deterministic positions in linear time: one cluster per source file (a sunflower of its nodes), clusters
    placed on a square grid, the largest first. Files are the unit a reader knows; a force layout of 500 nodes
    costs seconds here and the browser's would cost more."""
    by_file: dict[str, list[str]] = {}
    for node_id in nodes:
        by_file.setdefault(graph.nodes[node_id].get("path") or "", []).append(node_id)
    clusters = sorted(by_file.values(), key=lambda c: (-len(c), c[0]))
    cell = 40 * math.sqrt(max((len(c) for c in clusters), default=1)) + 60
    columns = max(1, math.ceil(math.sqrt(len(clusters))))
    golden = math.pi * (3 - math.sqrt(5))
    out = {}
    for number, cluster in enumerate(clusters):
        cx, cy = (number % columns) * cell, (number // columns) * cell
        for k, node_id in enumerate(sorted(cluster)):
            radius = 22 * math.sqrt(k)
            out[node_id] = (round(cx + radius * math.cos(k * golden), 1), round(cy + radius * math.sin(k * golden), 1))
    return out


def _kind(attrs: dict) -> str:
    return str(getattr(attrs.get("kind"), "value", attrs.get("kind") or ""))


def component_graph(graph, component: str, page_of: Callable[[str], str], limit: int = MAX_NODES) -> dict:
    """One component page's graph. `nodes` rows are [id, label, kind index, path index, line, x, y, page] (page:
    the symbol page's URL from the site root, or "" when the symbol opens in the browser); the shown nodes come
    first (`num_shown`), then the neighbours outside the view (x, y null). `edges` rows are [source index, target
    index, provenance index, confidence]; `expand` maps a shown node's index to [caller indices, callee indices]."""
    shown = members(graph, component, limit)
    inside = set(shown)
    positions = _positions(graph, shown)
    expand_ids: dict[str, tuple[list[str], list[str]]] = {}
    outside: list[str] = []
    seen_outside: set[str] = set()
    for node_id in shown:
        callers = sorted({c for c, _ in graph.in_edges(node_id) if c not in inside})[:MAX_NEIGHBOURS]
        callees = sorted({c for _, c in graph.out_edges(node_id) if c not in inside})[:MAX_NEIGHBOURS]
        if callers or callees:
            expand_ids[node_id] = (callers, callees)
        for other in callers + callees:
            if other not in seen_outside:
                seen_outside.add(other)
                outside.append(other)
    order = shown + outside
    index = {node_id: n for n, node_id in enumerate(order)}
    kinds: dict[str, int] = {}
    paths: dict[str, int] = {}
    rows = []
    for node_id in order:
        attrs = graph.nodes[node_id]
        kind = _kind(attrs)
        x, y = positions.get(node_id, (None, None))
        rows.append(
            [
                node_id,
                label(node_id, kind),
                kinds.setdefault(kind, len(kinds)),
                paths.setdefault(attrs.get("path") or "", len(paths)),
                int(attrs.get("start") or 0),
                x,
                y,
                page_of(node_id),
            ]
        )
    best: dict[tuple[str, str], tuple[float, str]] = {}  # one edge per pair: the strongest, whatever the order
    for caller, callee, attrs in graph.subgraph(shown).edges(data=True):
        if caller != callee:
            provenance = attrs.get("provenance")
            found = (
                round(float(attrs.get("confidence") or 0.0), 2),
                str(getattr(provenance, "value", provenance or "")),
            )
            best[(caller, callee)] = max(best.get((caller, callee), found), found)
    provenances = {p: n for n, p in enumerate(sorted({p for _, p in best.values()}))}
    edges = sorted(
        [index[caller], index[callee], provenances[p], confidence] for (caller, callee), (confidence, p) in best.items()
    )
    return {
        "component": component,
        "num_members": sum(1 for _, d in graph.nodes(data=True) if d.get("component") == component),
        "num_shown": len(shown),
        "nodes": rows,
        "edges": edges,
        "kinds": list(kinds),
        "paths": list(paths),
        "provenances": list(provenances),
        "expand": {str(index[n]): [[index[c] for c in a], [index[c] for c in b]] for n, (a, b) in expand_ids.items()},
    }


def as_script(key: str, data: dict) -> str:
    """A data file that registers itself (script tags work from file://, where fetch of JSON does not)."""
    payload = json.dumps(data, separators=(",", ":"), sort_keys=True).replace("</", "<\\/")
    return f"(window.atlasData=window.atlasData||{{}})[{json.dumps(key)}]={payload};\n"
