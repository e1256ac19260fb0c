"""Call edges seen at runtime: (caller, callee) from each hooked call's call site, the caller being the innermost
function of the pinned file around that line. Checked against the static graph: an observed edge the graph lacks
is a Finding (a graph bug); the rest are Edges with provenance runtime-observed for the site to mark."""

from __future__ import annotations

from collections import Counter

from atlas.graph import Index
from atlas.model import Edge, Finding, Provenance, Span
from atlas.parse.python import module_name


def observed_edges(events: list[dict], index: Index, package_root: str) -> list[tuple[Edge, int]]:
    """(runtime edge, times seen) for every hooked call whose call site is a pinned file of the engine; the caller
    is the innermost symbol of the index around the call line."""
    sites = Counter(
        (e["call_path"], e["call_line"], e["symbol"]) for e in events if e["kind"] == "call" and e.get("call_at_pin")
    )
    out = []
    for (path, line, callee), count in sorted(sites.items()):
        caller = index.symbol_at(path, line) or module_name(path, package_root)[0]
        out.append((Edge(caller, callee, Provenance.RUNTIME, 1.0, Span(path, line, line)), count))
    return out


def missing_from_graph(edges: list[tuple[Edge, int]], graph) -> list[Finding]:
    """Observed edges with no static edge caller -> callee: each one is a bug of the static graph."""
    findings = []
    for edge, count in edges:
        if not graph.graph.has_edge(edge.caller, edge.callee):
            findings.append(
                Finding(
                    "runtime-edge-missing",
                    f"{edge.caller} -> {edge.callee} was called at runtime "
                    f"({count}x) but the static graph has no such edge",
                    edge.site.path,
                    edge.site.start,
                    {"caller": edge.caller, "callee": edge.callee, "count": count},
                )
            )
    return findings
