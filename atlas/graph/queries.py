"""AtlasGraph: the call graph of one pinned tree with its queries (callers, callees, path, edges); answers from the
stored edge table (atlas.graph.table) and rebuilds the networkx graph only when `.graph` is used."""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # networkx loads (~0.3 s) only where a query needs it
    import networkx as nx

from atlas.graph.table import EXTERNAL_ATTRS, EdgeTable, from_networkx, node_attrs, to_networkx
from atlas.model import CallSite, Edge, Pin, Provenance, Span, Symbol, SymbolKind

KERNEL_KINDS = (SymbolKind.CUDA_KERNEL.value, SymbolKind.TRITON_KERNEL.value)


class AtlasGraph:
    """What `atlas.graph.load_graph` returns: `.graph` (a networkx MultiDiGraph, rebuilt from the stored edge table
    on first use), `.symbols`, `.unresolved`, `.stats`; `callers`/`callees`/`node` answer from the table."""

    __slots__ = ("pin", "_graph", "symbols", "unresolved", "stats", "_table", "_position", "_adjacency")

    def __init__(
        self,
        pin: Pin,
        graph: nx.MultiDiGraph | None,
        symbols: dict[str, Symbol],
        unresolved: list[CallSite] | None = None,
        stats: dict | None = None,
        table: EdgeTable | None = None,
    ):
        assert graph is not None or table is not None, "an AtlasGraph needs a graph or an edge table"
        self.pin = pin
        self._graph = graph
        self.symbols = symbols
        self.unresolved = unresolved if unresolved is not None else []
        self.stats = stats if stats is not None else {}
        self._table = table
        self._position: dict[str, int] | None = None
        self._adjacency: dict[bool, dict] = {}

    @property
    def graph(self) -> nx.MultiDiGraph:
        if self._graph is None:
            self._graph = to_networkx(self._table, self.symbols)
        return self._graph

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
        """The most specific call chain from `source` to `target` ([] when none); see `paths`."""
        found = self.paths(source, target, 1)
        return found[0] if found else []

    def paths(self, source: str, target: str, k: int = 1, avoid: frozenset[str] = frozenset()) -> list[list[str]]:
        """Up to `k` loop-free call chains from `source` to `target` through no node of `avoid`, most specific
        first: fewest hops, where a hop through a call site that may reach many callees (`self._forward_method(...)`
        of every CustomOp) or a low-confidence edge counts for more (`hop_weight`). Only the nodes that lie between
        the two are looked at."""
        if source in avoid or target in avoid:
            return []
        between = self.reach(source, True, avoid) & self.reach(target, False, avoid)
        if target not in between:
            return []
        import networkx as nx

        chains = nx.shortest_simple_paths(self._weighted(between), source, target, weight="weight")
        return [list(chain) for chain in itertools.islice(chains, k)]

    def reach(self, start: str, forward: bool, avoid: frozenset[str] = frozenset()) -> set[str]:
        """Every node `start` reaches (forward) or is reached from, `start` included, not passing through `avoid`."""
        seen, frontier = {start}, [start]
        while frontier:
            nxt = []
            for node in frontier:
                for other in self._neighbours(node, forward):
                    if other not in seen and other not in avoid:
                        seen.add(other)
                        nxt.append(other)
            frontier = nxt
        return seen

    def _weighted(self, nodes: set[str]) -> nx.DiGraph:
        """The calls among `nodes` as a DiGraph weighted by `hop_weight`: 1 + log2(callees of that call site)
        + (1 - confidence), the lightest of parallel edges."""
        import networkx as nx

        sub = nx.DiGraph()
        for a in sorted(nodes):
            edges = self._edges_of(a, True)
            sizes: dict[tuple, int] = {}
            for _, _, e in edges:
                site = (e.get("path", ""), e.get("line", 0))
                sizes[site] = sizes.get(site, 0) + 1
            for _, b, e in edges:
                if b not in nodes:
                    continue
                weight = (
                    1.0 + math.log2(sizes[(e.get("path", ""), e.get("line", 0))]) + (1.0 - e.get("confidence", 1.0))
                )
                if not sub.has_edge(a, b) or sub[a][b]["weight"] > weight:
                    sub.add_edge(a, b, weight=weight)
        return sub

    def hops(self, chain: list[str]) -> list[tuple[str, str, dict]]:
        """(caller, callee, edge attrs) of each hop of a chain `path` or `paths` returned: of the edges between two
        nodes, the one with the highest confidence (the first in call-site order of equals). The one reading of a
        chain's hops: `graph path` shows them (atlas.query.paths), the precision sample records them
        (atlas.graph.precision.sample)."""
        out = []
        for a, b in zip(chain, chain[1:]):
            edges = sorted(
                (e for _, callee, e in self._edges_of(a, True) if callee == b), key=lambda e: e.get("line", 0)
            )
            if not edges:
                raise KeyError(f"no call edge {a} -> {b}")
            out.append((a, b, max(edges, key=lambda e: e.get("confidence", 0.0))))
        return out

    def deepest(self, source: str, candidates: list[str]) -> str | None:
        """Of the candidates `source` reaches, the one every other reached candidate leads to: the same operation
        named at several layers (Python wrapper -> op -> C++ function) gives its lowest layer; None when they do
        not lie on one chain (or `source` reaches none)."""
        down = self.reach(source, True)
        reached = [c for c in candidates if c != source and c in down]
        below = {c: self.reach(c, True) - {c} for c in reached}
        sinks = [c for c in reached if all(c == o or c in below[o] for o in reached)]
        return sinks[0] if len(sinks) == 1 else None

    def kernel_below(self, node: str) -> list[str]:
        """The shortest chain from a kernel-layer node (op, C++ function, JIT export) down the kernel layer to a
        `__global__` or Triton kernel, starting with `node`; [] when it launches none that the graph knows."""
        parent, frontier = {node: ""}, [node]
        while frontier:
            nxt = []
            for n in frontier:
                if self._kind(n) in KERNEL_KINDS:
                    chain = [n]
                    while parent[chain[-1]]:
                        chain.append(parent[chain[-1]])
                    return chain[::-1]
                for m in sorted(self._neighbours(n, True)):
                    if m not in parent and (":" in m or self._kind(m) in KERNEL_KINDS):
                        parent[m] = n
                        nxt.append(m)
            frontier = nxt
        return []

    def _kind(self, sid: str) -> str:
        try:
            return self.node(sid).get("kind", "")
        except KeyError:
            return ""

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

    def _edges_of(self, node: str, forward: bool) -> list[tuple[str, str, dict]]:
        """A node's (caller, callee, attrs) edges out of it (forward) or into it."""
        if self._graph is not None:  # built (or changed by its user): networkx answers
            if node not in self._graph:
                return []
            edges = self._graph.out_edges(node, data=True) if forward else self._graph.in_edges(node, data=True)
            return list(edges)
        table = self._table
        position = self._positions()
        if node not in position:
            return []
        adjacency = self._adjacency.get(forward)
        if adjacency is None:
            adjacency = self._adjacency[forward] = table.adjacency(forward)
        nodes = table.nodes
        return [
            (nodes[table.callers[i]], nodes[table.callees[i]], table.attrs(i))
            for i in adjacency.get(position[node], ())
        ]

    def _neighbours(self, node: str, forward: bool) -> set[str]:
        """The nodes a node calls (forward) or is called by, without their edges' attributes."""
        if self._graph is not None:
            if node not in self._graph:
                return set()
            return set(self._graph.successors(node) if forward else self._graph.predecessors(node))
        position = self._positions()
        if node not in position:
            return set()
        adjacency = self._adjacency.get(forward)
        if adjacency is None:
            adjacency = self._adjacency[forward] = self._table.adjacency(forward)
        ends = self._table.callees if forward else self._table.callers
        nodes = self._table.nodes
        return {nodes[ends[i]] for i in adjacency.get(position[node], ())}

    def _walk(self, start: str, depth: int, forward: bool) -> list:
        return _breadth_first(start, depth, forward, lambda node: self._edges_of(node, forward))


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
