"""Call edges seen at runtime: (caller, callee) from each hooked call's call site, the caller being the innermost
function of the pinned file around that line. Checked against the static graph: an observed edge the graph lacks
is a Finding (a graph bug); the rest are Edges with provenance runtime-observed for the site to mark."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from atlas.model import Edge, Finding, Provenance, Span


def module_of(path: str, package_root: str) -> str:
    rel = path[len(package_root) + 1:] if package_root and path.startswith(package_root + "/") else path
    parts = rel[:-3].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def enclosing(tree: ast.Module, line: int) -> str:
    """Dotted qualname of the innermost class/function whose lines hold `line` ('' at module level)."""
    names, scope = [], tree.body
    while True:
        node = next((n for n in scope if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                     and n.lineno <= line <= n.end_lineno), None)
        if node is None:
            return ".".join(names)
        names.append(node.name)
        scope = node.body


def observed_edges(events: list[dict], checkout: Path, package_root: str) -> list[tuple[Edge, int]]:
    """(runtime edge, times seen) for every hooked call whose call site is a pinned file of the engine."""
    sites = Counter((e["call_path"], e["call_line"], e["symbol"]) for e in events
                    if e["kind"] == "call" and e.get("call_at_pin"))
    trees: dict[str, ast.Module] = {}
    out = []
    for (path, line, callee), count in sorted(sites.items()):
        if path not in trees:
            trees[path] = ast.parse((checkout / path).read_text(encoding="utf-8"), path)
        qualname = enclosing(trees[path], line)
        caller = ".".join(p for p in (module_of(path, package_root), qualname) if p)
        out.append((Edge(caller, callee, Provenance.RUNTIME, 1.0, Span(path, line, line)), count))
    return out


def missing_from_graph(edges: list[tuple[Edge, int]], graph) -> list[Finding]:
    """Observed edges with no static edge caller -> callee: each one is a bug of the static graph."""
    findings = []
    for edge, count in edges:
        if not graph.graph.has_edge(edge.caller, edge.callee):
            findings.append(Finding("runtime-edge-missing", f"{edge.caller} -> {edge.callee} was called at runtime "
                                    f"({count}x) but the static graph has no such edge", edge.site.path,
                                    edge.site.start, {"caller": edge.caller, "callee": edge.callee, "count": count}))
    return findings
