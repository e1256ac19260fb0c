"""Drawing the precision sample from a built graph: edges stratified by provenance and by the caller's component, and
`graph path` answers from the engine's core to targets it reaches at MIN_HOPS or more.

The draw is a bottom-k sample: each candidate gets a priority from a hash of the seed and its identity (framework,
caller, callee, line), and each stratum takes the candidates of lowest priority. The same graph gives the same
sample, and a rebuilt graph keeps every row still in it (a removed edge's place goes to the next one in line), so a
judged record is re-judged only where the graph changed."""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Iterable

from atlas.graph.calls import edge_site, provenance_of
from atlas.graph.precision.record import NO_COMPONENT, EdgeRow, Hop, PathRow
from atlas.graph.queries import KERNEL_KINDS, AtlasGraph
from atlas.model import SymbolKind

SEED = "precision-1"
# Edges per provenance and engine: enough for a per-provenance figure where the kind is common, fewer where rare.
# Within a provenance the rows go round the caller components in turn, so each stratum gets the same number.
QUOTAS = {
    "static": 30,
    "type-inferred": 30,
    "dispatch": 30,
    "launch": 10,
    "name-match": 10,
    "registration": 8,
    "string-dispatch": 6,
}
PATHS_PER_STRATUM = 5
MIN_HOPS = 3
PATH_SOURCES = ("engine core", "scheduler", "model runner")  # where a path question starts: the engine's core
PATH_TARGETS = ("kernel", "KV-cache manager", "attention backend")  # what it asks for: one stratum each
MAX_SOURCES_TRIED = 200  # per stratum: sources that reach no target at MIN_HOPS are passed over
CODE_KINDS = (SymbolKind.FUNCTION.value, SymbolKind.METHOD.value)


def priority(*parts: object) -> int:
    """A candidate's place in line: the first 64 bits of SHA-256 over its parts (the same on every run)."""
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:8], "big")


def graph_rows(g: AtlasGraph, framework: str) -> dict[tuple, EdgeRow]:
    """Every edge of the graph between two symbols of the tree (an edge to a name outside it, `torch.empty`, is not
    sampled), as an unjudged row by key; of several edges with one key, the first the table lists."""
    table = g.table
    nodes, symbols = table.nodes, g.symbols
    commit = g.pin.commit[:12]
    out: dict[tuple, EdgeRow] = {}
    for i in range(len(table)):
        caller, callee = nodes[table.callers[i]], nodes[table.callees[i]]
        if caller not in symbols or callee not in symbols:
            continue
        attrs = table.attrs(i)
        row = EdgeRow(
            framework,
            commit,
            caller,
            callee,
            attrs["path"],
            attrs["line"],
            attrs["provenance"],
            attrs["confidence"],
            symbols[caller].component,
        )
        out.setdefault(row.key, row)
    return out


def strata_sizes(rows: Iterable[EdgeRow]) -> dict[str, int]:
    """ "provenance/component" -> the number of edges of that stratum (the population a stratum's rows stand for)."""
    sizes: dict[str, int] = {}
    for r in rows:
        name = "/".join(r.stratum)
        sizes[name] = sizes.get(name, 0) + 1
    return dict(sorted(sizes.items()))


def draw_edges(rows: Iterable[EdgeRow], quotas: dict[str, int], seed: str = SEED) -> list[EdgeRow]:
    """Per provenance, `quotas[provenance]` rows taken in turn from its component strata (sorted by name), each
    stratum's rows in priority order; a stratum with too few rows leaves its turns to the others."""
    by_stratum: dict[tuple[str, str], list[EdgeRow]] = {}
    for r in rows:
        by_stratum.setdefault(r.stratum, []).append(r)
    out: list[EdgeRow] = []
    for provenance, quota in quotas.items():
        queues = [
            heapq.nsmallest(quota, members, key=lambda r: (priority(seed, *r.key), r.key))
            for (p, _), members in sorted(by_stratum.items())
            if p == provenance
        ]
        taken = 0
        for turn in range(quota):
            for queue in queues:
                if taken < quota and turn < len(queue):
                    out.append(queue[turn])
                    taken += 1
    return out


def draw_paths(g: AtlasGraph, framework: str, per_stratum: int = PATHS_PER_STRATUM, seed: str = SEED) -> list[PathRow]:
    """Per target stratum, `per_stratum` questions: a source of the core (PATH_SOURCES, in priority order, each
    used once) and, of the targets of the stratum it reaches at MIN_HOPS or more hops, the one of lowest priority;
    the row holds the chain `AtlasGraph.path` answers (the one path of `atlas graph path`), hop by hop as
    `AtlasGraph.hops` reads it."""
    successors: dict[str, set[str]] = {}
    table = g.table
    for i in range(len(table)):
        successors.setdefault(table.nodes[table.callers[i]], set()).add(table.nodes[table.callees[i]])
    symbols = g.symbols
    sources = [
        sid
        for sid, s in symbols.items()
        if s.kind.value in CODE_KINDS and s.component in PATH_SOURCES and sid in successors
    ]
    used: set[str] = set()
    out: list[PathRow] = []
    for stratum in PATH_TARGETS:
        found = 0
        ordered = sorted(sources, key=lambda sid: (priority(seed, framework, "source", stratum, sid), sid))
        for source in [s for s in ordered if s not in used][:MAX_SOURCES_TRIED]:
            if found == per_stratum:
                break
            reached = [n for n, d in _distances(successors, source).items() if d >= MIN_HOPS]
            targets = [n for n in reached if _is_target(g, stratum, n)]
            if not targets:
                continue
            target = min(targets, key=lambda n: (priority(seed, framework, source, n), n))
            chain = g.path(source, target)
            if len(chain) - 1 < MIN_HOPS:
                continue
            hops = tuple(Hop(a, b, *edge_site(e), provenance_of(e)) for a, b, e in g.hops(chain))
            out.append(PathRow(framework, g.pin.commit[:12], stratum, source, target, hops))
            used.add(source)
            found += 1
    return out


def _is_target(g: AtlasGraph, stratum: str, node: str) -> bool:
    s = g.symbols.get(node)
    if s is None:
        return False
    if stratum == "kernel":
        return s.kind.value in KERNEL_KINDS
    return s.kind.value in CODE_KINDS and (s.component or NO_COMPONENT) == stratum


def _distances(successors: dict[str, set[str]], source: str) -> dict[str, int]:
    """Hops from `source` to each node it reaches (breadth first, every edge)."""
    dist = {source: 0}
    frontier = [source]
    while frontier:
        nxt = []
        for n in frontier:
            for m in successors.get(n, ()):
                if m not in dist:
                    dist[m] = dist[n] + 1
                    nxt.append(m)
        frontier = nxt
    return dist
