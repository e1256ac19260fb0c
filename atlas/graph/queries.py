"""AtlasGraph: the call graph of one pinned tree with its queries (callers, callees, path, edges); answers from the
stored edge table (atlas.graph.table) and rebuilds the networkx graph only when `.graph` is used."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # networkx loads (~0.3 s) only where a query needs it
    import networkx as nx

from atlas.graph.table import EXTERNAL_ATTRS, EdgeTable, SiteTable, from_networkx, node_attrs, site_table, to_networkx
from atlas.model import CallSite, Edge, Pin, Provenance, Span, Symbol, SymbolKind

KERNEL_KINDS = (SymbolKind.CUDA_KERNEL.value, SymbolKind.TRITON_KERNEL.value)


START = ("", "start")  # the states a path search begins and ends at (AtlasGraph._states)
END = ("", "end")


class AtlasGraph:
    """What `atlas.graph.load_graph` returns: `.graph` (a networkx MultiDiGraph, rebuilt from the stored edge table
    on first use), `.symbols`, `.unresolved` (the unresolved Python call sites with their reasons, then the kernel
    layer's), `.stats`, `.sites` (the site table: every Python call site with its status, read on first use);
    `callers`/`callees`/`node` answer from the edge table."""

    __slots__ = (
        "pin",
        "_graph",
        "symbols",
        "unresolved",
        "stats",
        "_table",
        "_sites",
        "_position",
        "_adjacency",
        "_sizes",
    )

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
        self._sizes: list[int] | None = None

    @property
    def graph(self) -> nx.MultiDiGraph:
        if self._graph is None:
            self._graph = to_networkx(self._table, self.symbols, self.clones)
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

    @property
    def clones(self) -> dict[str, str]:
        """Nodes made by cloning a scope (a closure per application of a decorator: `wrapper@decorated`) -> the
        symbol they copy."""
        return self.stats.get("clones", {})

    @property
    def stubs(self) -> dict[str, list[str]]:
        """Methods that only raise NotImplementedError -> the overrides that implement them (store.stub_overrides):
        calls that may reach a stub are drawn to those."""
        return self.stats.get("stubs", {})

    def symbol(self, sid: str) -> Symbol | None:
        """The symbol of node `sid` (a clone's is its origin's), or None for a name outside the tree."""
        return self.symbols.get(sid) or self.symbols.get(self.clones.get(sid, ""))

    def node(self, sid: str) -> dict:
        if self._graph is not None:
            return self._graph.nodes[sid]
        symbol = self.symbol(sid)
        if symbol is not None:
            return node_attrs(symbol)
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
        of every CustomOp) or a low-confidence edge counts for more (`_states`). Each is a chain an execution can take
        as far as contexts tell: a hop is taken only in the context the previous one entered (a method called on an
        instance of class C runs C's calls, not another subclass's; atlas.graph.table). Only the nodes that lie
        between the two are looked at."""
        if source in avoid or target in avoid:
            return []
        between = self.reach(source, True, avoid) & self.reach(target, False, avoid)
        if target not in between:
            return []
        import networkx as nx

        out: list[list[str]] = []
        seen: set[tuple[str, ...]] = set()
        graph = self._states(source, target, between)
        if END not in graph:  # every way there leaves the context it entered in
            return []
        states = nx.shortest_simple_paths(graph, START, END, weight="weight")
        for chain in states:  # chains of (node, context); two may name the same nodes in other contexts
            nodes = tuple(node for node, _ in chain[1:-1])
            if nodes not in seen:
                seen.add(nodes)
                out.append(list(nodes))
                if len(out) == k:
                    break
        return out

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

    def _states(self, source: str, target: str, nodes: set[str]) -> nx.DiGraph:
        """The calls among `nodes` as a DiGraph of (node, context) states reachable from `source` in no context,
        each edge taken only where its contexts allow (an edge made in contexts lists (caller's, callee's) pairs;
        the state's context must be the caller's, or either be unknown), weighted 1 + log2(callees of that call
        site) + (1 - confidence), the lightest of parallel edges; START leads to source, every state of `target`
        to END."""
        import networkx as nx

        table = self.table
        position = self._positions() if self._graph is None else {n: i for i, n in enumerate(table.nodes)}
        forward = self._table_adjacency()
        sizes = self._site_sizes()
        keep = {position[n] for n in nodes if n in position}
        graph = nx.DiGraph()
        begin = (position[source], "")
        graph.add_edge(START, begin, weight=0.0)
        goal = position[target]
        frontier, seen = [begin], {begin}
        while frontier:
            nxt = []
            for state in frontier:
                node, context = state
                if node == goal:
                    graph.add_edge(state, END, weight=0.0)
                    continue
                for i in forward.get(node, ()):
                    callee = table.callees[i]
                    if callee not in keep:
                        continue
                    weight = 1.0 + math.log2(sizes[i]) + 1.0 - table.confidences[i]
                    for caller_context, callee_context in table.contexts_of(i) or [("", "")]:
                        if context and caller_context and caller_context != context:
                            continue
                        after = (callee, callee_context)
                        if not graph.has_edge(state, after) or graph[state][after]["weight"] > weight:
                            graph.add_edge(state, after, weight=weight)
                        if after not in seen:
                            seen.add(after)
                            nxt.append(after)
            frontier = nxt
        names = table.nodes
        return nx.relabel_nodes(graph, {st: (names[st[0]], st[1]) for st in graph if st not in (START, END)})

    def _table_adjacency(self) -> dict[int, list[int]]:
        forward = self._adjacency.get(True) if self._graph is None else None
        if forward is None:
            forward = self.table.adjacency(True)
            if self._graph is None:
                self._adjacency[True] = forward
        return forward

    def _site_sizes(self) -> list[int]:
        """Per edge, how many callees its call site (caller, path, line) reaches (kept while the graph is the stored
        one)."""
        if self._sizes is not None and self._graph is None:
            return self._sizes
        table = self.table
        sites: dict[tuple[int, int, int], set[int]] = {}
        keys = []
        for i in range(len(table)):
            key = (table.callers[i], table.path_ids[i], table.lines[i])
            sites.setdefault(key, set()).add(table.callees[i])
            keys.append(key)
        self._sizes = [len(sites[key]) for key in keys]
        return self._sizes

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
