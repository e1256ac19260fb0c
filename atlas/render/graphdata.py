"""Component call graphs as data for the browser: the component's most connected symbols (at most 500), the edges
among them with provenance, each node's callers and callees outside the view (for "expand"), and positions laid
out here so the page is interactive without a layout pass in the browser."""

from __future__ import annotations

import json
import math
from collections.abc import Callable

import networkx as nx

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


def _node(graph, node_id: str, url_of: Callable[[str], str]) -> dict:
    attrs = graph.nodes[node_id]
    kind = str(getattr(attrs.get("kind"), "value", attrs.get("kind") or ""))
    return {"id": node_id, "label": label(node_id, kind), "kind": kind, "path": attrs.get("path") or "",
            "line": int(attrs.get("start") or 0), "component": attrs.get("component") or "", "url": url_of(node_id)}


def _edge(caller: str, callee: str, attrs: dict) -> dict:
    provenance = attrs.get("provenance")
    return {"source": caller, "target": callee, "provenance": str(getattr(provenance, "value", provenance or "")),
            "confidence": round(float(attrs.get("confidence") or 0.0), 2)}


def _positions(graph, nodes: list[str]) -> dict[str, tuple[float, float]]:
    """Deterministic force-directed positions, scaled so that nodes sit about 70 px apart."""
    if not nodes:
        return {}
    view = nx.Graph(graph.subgraph(nodes))
    pos = nx.spring_layout(view, seed=7, iterations=50, k=1.6 / math.sqrt(max(len(nodes), 1)))
    scale = 70 * math.sqrt(len(nodes))
    return {n: (round(x * scale, 1), round(y * scale, 1)) for n, (x, y) in pos.items()}


def component_graph(graph, component: str, url_of: Callable[[str], str], limit: int = MAX_NODES) -> dict:
    """The data of one component page's graph: nodes (with positions), edges, and neighbours outside the view."""
    shown = members(graph, component, limit)
    inside = set(shown)
    positions = _positions(graph, shown)
    nodes = []
    for node_id in shown:
        node = _node(graph, node_id, url_of)
        node["x"], node["y"] = positions[node_id]
        nodes.append(node)
    edges, seen = [], set()
    for caller, callee, attrs in graph.subgraph(shown).edges(data=True):
        if (caller, callee) not in seen and caller != callee:
            seen.add((caller, callee))
            edges.append(_edge(caller, callee, attrs))
    outside: dict[str, dict] = {}
    expand: dict[str, dict[str, list]] = {}
    for node_id in shown:
        callers = sorted({c for c, _ in graph.in_edges(node_id) if c not in inside})[:MAX_NEIGHBOURS]
        callees = sorted({c for _, c in graph.out_edges(node_id) if c not in inside})[:MAX_NEIGHBOURS]
        if callers or callees:
            expand[node_id] = {"callers": callers, "callees": callees}
        for other in callers + callees:
            outside.setdefault(other, _node(graph, other, url_of))
    edges.sort(key=lambda e: (e["source"], e["target"]))
    return {"component": component, "num_members": sum(1 for _, d in graph.nodes(data=True)
                                                        if d.get("component") == component),
            "nodes": nodes, "edges": edges, "outside": outside, "expand": expand}


def as_script(key: str, data: dict) -> str:
    """A data file that registers itself (script tags work from file://, where fetch of JSON does not)."""
    payload = json.dumps(data, separators=(",", ":"), sort_keys=True).replace("</", "<\\/")
    return f"(window.atlasData=window.atlasData||{{}})[{json.dumps(key)}]={payload};\n"
