"""The stored form of a call graph: node ids in graph order and the edges as columns (caller, callee, provenance,
confidence, site path, line), so loading it is a few array reads; the networkx graph is rebuilt only when asked.

An edge made in contexts (atlas.graph.resolve.contexts: a method run for one receiver class, a function for one
function or class it was given) lists them as (caller's context, callee's context) pairs: a path follows an edge only
in the context the previous edge entered (AtlasGraph.path). An edge with none holds in any context.

Beside it, the site table: every call expression of the tree's Python files with its status (atlas.model.SiteStatus),
its targets or the reason it has none, as columns too."""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # networkx loads (~0.3 s) only where a query needs it
    import networkx as nx

from atlas.model import CallSite, Provenance, SiteStatus, Span, Symbol, SymbolKind, Unresolved

PROVENANCES = tuple(p.value for p in Provenance)
STATUSES = tuple(SiteStatus)
REASONS = (None, *Unresolved)  # code 0: no reason (the site reached something)
PROVENANCE_CODE = {p: i for i, p in enumerate(PROVENANCES)}
EXTERNAL_ATTRS = {
    "kind": SymbolKind.EXTERNAL.value,
    "path": "",
    "start": 0,
    "end": 0,
    "signature": "",
    "component": "",
    "decorators": (),
    "bases": (),
}


@dataclass(frozen=True, slots=True)
class EdgeTable:
    """`nodes` in graph order; per edge, indices into `nodes` (caller, callee), `PROVENANCES` and `paths`."""

    nodes: tuple[str, ...]
    callers: array
    callees: array
    provenances: bytes
    confidences: array
    paths: tuple[str, ...]
    path_ids: array
    lines: array
    contexts: tuple[str, ...] = ("",)  # context names; 0 is "none"
    context_starts: array = field(default_factory=lambda: array("i"))  # per edge, where its pairs start (+1 at end)
    context_pairs: array = field(default_factory=lambda: array("i"))  # (caller's, callee's) context, flattened

    def __len__(self) -> int:
        return len(self.callers)

    def attrs(self, i: int) -> dict:
        return {
            "provenance": PROVENANCES[self.provenances[i]],
            "confidence": self.confidences[i],
            "path": self.paths[self.path_ids[i]],
            "line": self.lines[i],
        }

    def contexts_of(self, i: int) -> list[tuple[str, str]]:
        """The (caller's context, callee's context) pairs edge `i` was made in ([]: any)."""
        if not self.context_starts:
            return []
        names, pairs = self.contexts, self.context_pairs
        return [
            (names[pairs[k]], names[pairs[k + 1]]) for k in range(self.context_starts[i], self.context_starts[i + 1], 2)
        ]

    def adjacency(self, forward: bool) -> dict[int, list[int]]:
        """Node index -> the indices of its outgoing (forward) or incoming edges."""
        out: dict[int, list[int]] = {}
        for i, n in enumerate(self.callers if forward else self.callees):
            out.setdefault(n, []).append(i)
        return out


class EdgeBuilder:
    """Nodes and edges added one at a time, kept in the order a networkx MultiDiGraph would list them (edges grouped
    by caller in node order, then by callee in the order of its first edge), then frozen into an EdgeTable."""

    __slots__ = ("position", "_out")

    def __init__(self) -> None:
        self.position: dict[str, int] = {}  # node -> index, in insertion order
        self._out: list[dict | None] = []  # per node: callee -> [(provenance code, confidence, path, line)]

    def __contains__(self, node: str) -> bool:
        return node in self.position

    def add_node(self, node: str) -> None:
        if node not in self.position:
            self.position[node] = len(self._out)
            self._out.append(None)

    def add_edge(
        self,
        caller: str,
        callee: str,
        provenance: str,
        confidence: float,
        path: str,
        line: int,
        contexts: Iterable[tuple[str, str]] = (),
    ) -> None:
        position = self.position
        i = position.get(caller)
        if i is None:
            i = position[caller] = len(self._out)
            self._out.append(None)
        if callee not in position:
            position[callee] = len(self._out)
            self._out.append(None)
        out = self._out[i]
        if out is None:
            out = self._out[i] = {}
        rows = out.get(callee)
        if rows is None:
            rows = out[callee] = []
        rows.append((PROVENANCE_CODE[provenance], confidence, path, line, tuple(sorted(contexts))))

    def has_edge(self, caller: str, callee: str) -> bool:
        i = self.position.get(caller)
        return i is not None and callee in (self._out[i] or ())

    def edges(self):
        """(caller, callee, provenance, confidence, path, line), in graph order."""
        for caller, i in self.position.items():
            for callee, rows in (self._out[i] or {}).items():
                for code, confidence, path, line, _ in rows:
                    yield caller, callee, PROVENANCES[code], confidence, path, line

    def table(self) -> EdgeTable:
        position = self.position
        paths: dict[str, int] = {}
        callers, callees, confidences, path_ids, lines = (array("i"), array("i"), array("d"), array("i"), array("i"))
        provenances = bytearray()
        contexts: dict[str, int] = {"": 0}
        starts, pairs = array("i"), array("i")
        for i, out in enumerate(self._out):
            for callee, rows in (out or {}).items():
                j = position[callee]
                for code, confidence, path, line, made_in in rows:
                    callers.append(i)
                    callees.append(j)
                    provenances.append(code)
                    confidences.append(confidence)
                    path_ids.append(paths.setdefault(path, len(paths)))
                    lines.append(line)
                    starts.append(len(pairs))
                    for a, b in made_in:
                        pairs.append(contexts.setdefault(a, len(contexts)))
                        pairs.append(contexts.setdefault(b, len(contexts)))
        starts.append(len(pairs))
        return EdgeTable(
            tuple(position),
            callers,
            callees,
            bytes(provenances),
            confidences,
            tuple(paths),
            path_ids,
            lines,
            tuple(contexts) if pairs else ("",),
            starts if pairs else array("i"),
            pairs,
        )


def node_attrs(s: Symbol) -> dict:
    return {
        "kind": s.kind.value,
        "path": s.span.path if s.span else "",
        "start": s.span.start if s.span else 0,
        "end": s.span.end if s.span else 0,
        "signature": s.signature,
        "component": s.component,
        "decorators": s.decorators,
        "bases": s.bases,
    }


def from_networkx(g: nx.MultiDiGraph) -> EdgeTable:
    built = EdgeBuilder()
    for n in g.nodes:
        built.add_node(n)
    for a, b, attrs in g.edges(data=True):
        built.add_edge(
            a, b, attrs["provenance"], attrs["confidence"], attrs["path"], attrs["line"], attrs.get("contexts", ())
        )
    return built.table()


def to_networkx(table: EdgeTable, symbols: dict[str, Symbol], clones: dict[str, str] | None = None) -> nx.MultiDiGraph:
    """The graph `from_networkx` stored (node attrs come from the symbols, a clone's from the symbol it copies, with
    `origin` naming that symbol, or are those of an external name)."""
    import networkx as nx

    clones = clones or {}
    g = nx.MultiDiGraph()
    g.add_nodes_from((n, _attrs(symbols.get(n) or symbols.get(clones.get(n, "")))) for n in table.nodes)
    for n, origin in clones.items():
        if n in g:
            g.nodes[n]["origin"] = origin
    nodes = table.nodes
    g.add_edges_from(
        (nodes[table.callers[i]], nodes[table.callees[i]], _with_contexts(table, i)) for i in range(len(table))
    )
    return g


def _attrs(symbol: Symbol | None) -> dict:
    return node_attrs(symbol) if symbol is not None else dict(EXTERNAL_ATTRS)


def _with_contexts(table: EdgeTable, i: int) -> dict:
    attrs = table.attrs(i)
    made_in = table.contexts_of(i)
    if made_in:
        attrs["contexts"] = tuple(made_in)
    return attrs


@dataclass(frozen=True, slots=True)
class SiteTable:
    """Every call site of a tree's Python files, in (path, line, column) order, as columns: per site, indices into
    `paths` and `names` (its caller and the callee as written), its start (line, column) and end (line, column:
    (path, end line, end column) names one call), its status and reason (codes into `STATUSES`, `REASONS`), and its
    targets (symbol ids in the tree, dotted names outside it): `target_ids[target_starts[i]:target_starts[i + 1]]`,
    indices into `names`."""

    names: tuple[str, ...]
    paths: tuple[str, ...]
    path_ids: array
    caller_ids: array
    text_ids: array
    lines: array
    cols: array
    end_lines: array
    end_cols: array
    statuses: bytes
    reasons: bytes
    target_starts: array
    target_ids: array

    def __len__(self) -> int:
        return len(self.lines)

    def caller(self, i: int) -> str:
        return self.names[self.caller_ids[i]]

    def path(self, i: int) -> str:
        return self.paths[self.path_ids[i]]

    def targets(self, i: int) -> tuple[str, ...]:
        names, ids = self.names, self.target_ids
        return tuple(names[ids[k]] for k in range(self.target_starts[i], self.target_starts[i + 1]))

    def site(self, i: int) -> CallSite:
        return CallSite(
            self.names[self.caller_ids[i]],
            self.names[self.text_ids[i]],
            Span(self.paths[self.path_ids[i]], self.lines[i], self.end_lines[i]),
            STATUSES[self.statuses[i]],
            REASONS[self.reasons[i]],
            self.targets(i),
            self.cols[i],
        )

    def sites(self, status: SiteStatus | None = None):
        """The CallSites in table order (only those of `status`, when given)."""
        code = STATUSES.index(status) if status is not None else -1
        for i in range(len(self)):
            if code < 0 or self.statuses[i] == code:
                yield self.site(i)

    def counts(self) -> dict[str, int]:
        """Sites per status (every status, in STATUSES order)."""
        out = dict.fromkeys((s.value for s in STATUSES), 0)
        for code in self.statuses:
            out[STATUSES[code].value] += 1
        return out


SiteRow = tuple[str, str, int, int, int, int, str, SiteStatus, Unresolved | None, tuple[str, ...]]


def site_table(rows: list[SiteRow]) -> SiteTable:
    """The table of `rows` (caller, path, line, column, end line, end column, text, status, reason, targets), sorted
    by path and position."""
    names: dict[str, int] = {}
    paths: dict[str, int] = {}
    path_ids, caller_ids, text_ids, lines, cols, end_lines, end_cols, target_ids = (array("i") for _ in range(8))
    target_starts = array("i", [0])
    statuses, reasons = bytearray(), bytearray()
    status_code = {s: i for i, s in enumerate(STATUSES)}
    reason_code = {r: i for i, r in enumerate(REASONS)}
    for caller, path, line, col, end_line, end_col, text, status, reason, found in sorted(
        rows, key=lambda r: (r[1], r[2], r[3], r[4], r[5], r[0])
    ):
        path_ids.append(paths.setdefault(path, len(paths)))
        caller_ids.append(names.setdefault(caller, len(names)))
        text_ids.append(names.setdefault(text, len(names)))
        lines.append(line)
        cols.append(col)
        end_lines.append(end_line)
        end_cols.append(end_col)
        statuses.append(status_code[status])
        reasons.append(reason_code[reason])
        target_ids.extend(names.setdefault(t, len(names)) for t in found)
        target_starts.append(len(target_ids))
    return SiteTable(
        tuple(names),
        tuple(paths),
        path_ids,
        caller_ids,
        text_ids,
        lines,
        cols,
        end_lines,
        end_cols,
        bytes(statuses),
        bytes(reasons),
        target_starts,
        target_ids,
    )
