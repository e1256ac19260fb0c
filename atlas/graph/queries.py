"""AtlasGraph: the call graph of one pinned tree with its queries (callers, callees, path, edges); answers from the
stored edge table (atlas.graph.table) and rebuilds the networkx graph only when `.graph` is used."""

from __future__ import annotations

import math
from collections.abc import Callable

import networkx as nx

from atlas.graph.table import EXTERNAL_ATTRS, EdgeTable, SiteTable, from_networkx, node_attrs, site_table, to_networkx
from atlas.model import CallSite, Edge, Pin, Provenance, Span, Symbol, SymbolKind

KERNEL_KINDS = (SymbolKind.CUDA_KERNEL.value, SymbolKind.TRITON_KERNEL.value)


class AtlasGraph:
    """What `atlas.graph.load_graph` returns: `.graph` (a networkx MultiDiGraph, rebuilt from the stored edge table
    on first use), `.symbols`, `.unresolved` (the unresolved Python call sites with their reasons, then the kernel
    layer's), `.stats`, `.sites` (the site table: every Python call site with its status, read on first use);
    `callers`/`callees`/`node` answer from the edge table."""

    __slots__ = ("pin", "_graph", "symbols", "unresolved", "stats", "_table", "_sites", "_position", "_adjacency")

    def __init__(
        self,
        pin: Pin,
        graph: nx.MultiDiGraph | None,
        symbols: dict[str, Symbol],
        unresolved: list[CallSite] | None = None,
        stats: dict | None = None,
        table: EdgeTable | None = None,
        sites: SiteTable | Callable[[], SiteTable] | None = None,
    ):
        assert graph is not None or table is not None, "an AtlasGraph needs a graph or an edge table"
        self.pin = pin
        self._graph = graph
        self.symbols = symbols
        self.unresolved = unresolved if unresolved is not None else []
        self.stats = stats if stats is not None else {}
        self._table = table
        self._sites = sites
        self._position: dict[str, int] | None = None
        self._adjacency: dict[bool, dict] = {}

    @property
    def graph(self) -> nx.MultiDiGraph:
        if self._graph is None:
            self._graph = to_networkx(self._table, self.symbols)
        return self._graph

    @property
    def sites(self) -> SiteTable:
        """Every Python call site with its status (atlas.graph.table.SiteTable); empty for a graph built without."""
        if self._sites is None:
            self._sites = site_table([])
        elif not isinstance(self._sites, SiteTable):
            self._sites = self._sites()
        return self._sites

    @property
    def table(self) -> EdgeTable:
        """The edge table of the graph as it is now (the stored one until `.graph` is used)."""
        return self._table if self._graph is None else from_networkx(self._graph)

    def node(self, sid: str) -> dict:
        if self._graph is not None:
            return self._graph.nodes[sid]
        if sid in self.symbols:
            return node_attrs(self.symbols[sid])
        if sid in self._positions():
            return dict(EXTERNAL_ATTRS)
        raise KeyError(sid)

    def callees(self, sid: str, depth: int = 1) -> list[tuple[int, str, str, dict]]:
        """(depth, caller, callee, edge attrs) breadth-first from `sid`, each edge once."""
        return self._walk(sid, depth, forward=True)

    def callers(self, sid: str, depth: int = 1) -> list[tuple[int, str, str, dict]]:
        return self._walk(sid, depth, forward=False)

    def path(self, source: str, target: str) -> list[str]:
        """The most specific call chain from `source` to `target` ([] when none): fewest hops, where a hop through
        a call site that may reach many callees (`self._forward_method(...)` of every CustomOp) or a low-confidence
        edge counts for more (`hop_weight`)."""
        weight = self._hop_weight()
        try:
            return nx.shortest_path(
                self.graph, source, target, weight=lambda a, b, edges: min(weight(a, e) for e in edges.values())
            )
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            return []

    def _hop_weight(self):
        """weight(caller, edge attrs) = 1 + log2(callees of that call site) + (1 - confidence)."""
        fanout: dict[tuple, set] = {}
        for a, b, attrs in self.graph.edges(data=True):
            fanout.setdefault((a, attrs.get("path", ""), attrs.get("line", 0)), set()).add(b)
        sizes = {site: len(callees) for site, callees in fanout.items()}
        return lambda a, e: (
            1.0 + math.log2(sizes.get((a, e.get("path", ""), e.get("line", 0)), 1)) + (1.0 - e.get("confidence", 1.0))
        )

    def deepest(self, source: str, candidates: list[str]) -> str | None:
        """Of the candidates `source` reaches, the one every other reached candidate leads to: the same operation
        named at several layers (Python wrapper -> op -> C++ function) gives its lowest layer; None when they do
        not lie on one chain (or `source` reaches none)."""
        graph = self.graph
        reached = [c for c in candidates if c in graph and c != source and nx.has_path(graph, source, c)]
        below = {c: nx.descendants(graph, c) for c in reached}
        sinks = [c for c in reached if all(c == o or c in below[o] for o in reached)]
        return sinks[0] if len(sinks) == 1 else None

    def kernel_below(self, node: str) -> list[str]:
        """The shortest chain from a kernel-layer node (op, C++ function, JIT export) down the kernel layer to a
        `__global__` or Triton kernel, starting with `node`; [] when it launches none that the graph knows."""
        graph = self.graph
        if node not in graph:
            return []
        parent, frontier = {node: ""}, [node]
        while frontier:
            nxt = []
            for n in frontier:
                if graph.nodes[n].get("kind") in KERNEL_KINDS:
                    chain = [n]
                    while parent[chain[-1]]:
                        chain.append(parent[chain[-1]])
                    return chain[::-1]
                for m in sorted(graph.successors(n)):
                    if m not in parent and (":" in m or graph.nodes[m].get("kind") in KERNEL_KINDS):
                        parent[m] = n
                        nxt.append(m)
            frontier = nxt
        return []

    def edges(self) -> list[Edge]:
        out = []
        for a, b, attrs in self.graph.edges(data=True):
            site = Span(attrs["path"], attrs["line"], attrs["line"]) if attrs.get("path") else None
            out.append(Edge(a, b, Provenance(attrs["provenance"]), attrs["confidence"], site))
        return out

    def _positions(self) -> dict[str, int]:
        if self._position is None:
            self._position = {n: i for i, n in enumerate(self._table.nodes)}
        return self._position

    def _walk(self, start: str, depth: int, forward: bool) -> list:
        if self._graph is not None:  # built (or changed by its user): networkx answers
            return _walk_networkx(self._graph, start, depth, forward)
        table = self._table
        position = self._positions()
        if start not in position:
            return []
        adjacency = self._adjacency.get(forward)
        if adjacency is None:
            adjacency = self._adjacency[forward] = table.adjacency(forward)
        nodes = table.nodes

        def edges_of(node: str):
            return [
                (nodes[table.callers[i]], nodes[table.callees[i]], table.attrs(i))
                for i in adjacency.get(position[node], ())
            ]

        return _breadth_first(start, depth, forward, edges_of)


def _breadth_first(start: str, depth: int, forward: bool, edges_of) -> list:
    """(depth, caller, callee, edge attrs) breadth-first from `start`, each edge once, in a stable order;
    `edges_of(node)` gives a node's (caller, callee, attrs) edges in the walk's direction."""
    out, seen, frontier = [], {start}, [start]
    for level in range(1, depth + 1):
        nxt = []
        for node in frontier:
            for a, b, attrs in sorted(edges_of(node), key=lambda e: (e[0], e[1], e[2].get("line", 0))):
                out.append((level, a, b, attrs))
                other = b if forward else a
                if other not in seen:
                    seen.add(other)
                    nxt.append(other)
        frontier = nxt
    return out


def _walk_networkx(graph: nx.MultiDiGraph, start: str, depth: int, forward: bool) -> list:
    if start not in graph:
        return []
    return _breadth_first(
        start,
        depth,
        forward,
        lambda node: graph.out_edges(node, data=True) if forward else graph.in_edges(node, data=True),
    )
