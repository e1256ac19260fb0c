"""Assembling the call graph of one pinned tree: resolution (to its fixpoint), the kernel layer, the edge table
(atlas.graph.table: node id = symbol id, edge columns = provenance, confidence, site path/line, contexts) and the
unresolved call sites, counted per component."""

from __future__ import annotations

import time
from collections.abc import Mapping

from atlas.graph import background, components, sites
from atlas.graph.queries import AtlasGraph
from atlas.graph.resolve import Solver
from atlas.graph.resolve.rules import load as load_rules
from atlas.graph.resolve.solver import Resolution
from atlas.graph.table import STATUSES, EdgeBuilder, SiteTable
from atlas.model import Provenance, SiteStatus, Symbol, SymbolKind
from atlas.parse.kernels import kernel_layer
from atlas.parse.python import ModuleFacts

# A resolved edge's confidence: the share of its provenance's edges that can happen in the precision record
# (results/precision/edges.yaml, judged current rows; benchmarks/precision_report.py), so a 0.74 edge is right about
# 74% of the time. Re-set from the report when the record is re-judged: tests/graph/test_precision.py fails when one
# leaves the 95% interval of its share. The kernel layer's edges (C++ calls and launches, and every registration and
# name-match edge: the resolver makes none) carry the confidence of the rule that made them (atlas.parse.kernels).
CONFIDENCE = {
    Provenance.STATIC: 0.99,  # 72 of 72 (lower bound of the 95% interval: 0.95)
    Provenance.TYPE_INFERRED: 0.78,  # 73 of 93
    Provenance.LAUNCH: 1.0,  # 20 of 20
    Provenance.DISPATCH: 0.62,  # 37 of 60
    Provenance.REGISTRATION: 1.0,  # 16 of 16
    Provenance.NAME_MATCH: 1.0,  # 20 of 20
    Provenance.RUNTIME: 1.0,  # never judged: an observed call happened
    Provenance.STRING_DISPATCH: 1.0,  # 6 of 6, too few for the test to hold it to
}
_COMMON = frozenset(
    {
        "get",
        "items",
        "keys",
        "values",
        "append",
        "extend",
        "pop",
        "update",
        "copy",
        "format",
        "join",
        "split",
        "add",
        "remove",
        "clear",
        "insert",
        "index",
        "count",
        "sort",
        "startswith",
        "endswith",
        "strip",
        "replace",
        "lower",
        "upper",
        "to",
        "view",
        "size",
        "item",
        "numel",
        "contiguous",
        "reshape",
        "tolist",
        "cpu",
        "cuda",
        "fill_",
        "copy_",
        "zero_",
        "sum",
        "max",
        "min",
        "mean",
        "dim",
        "float",
        "int",
        "long",
        "half",
        "type",
        "wait",
        "result",
        "read",
        "write",
        "close",
        "put",
        "set",
        "send",
        "recv",
        "flatten",
        "unsqueeze",
        "squeeze",
        "permute",
        "transpose",
        "expand",
        "repeat",
        "narrow",
        "chunk",
        "split_with_sizes",
        "clone",
        "detach",
        "numpy",
    }
)


def assemble(
    facts: list[ModuleFacts],
    checkout,
    manifest,
    timings: dict | None = None,
    kernel_facts: list | None = None,
    cpp=None,
) -> AtlasGraph:
    """Resolve calls over all facts (their symbols already tagged with components, see atlas.graph.parsing), run
    the kernel layer when present (on `kernel_facts`, the kernel-layer facts of the Python files, when the parse
    stage made them), and store the graph as an edge table. With `cpp` (a function giving the
    C++ files' part, atlas.parse.kernels.layer.cpp_file), the kernel layer runs here after resolution; without, in
    a forked child beside it."""
    timings = timings if timings is not None else {}
    symbols: dict[str, Symbol] = {}
    path_of: dict[str, str] = {}
    for f in facts:
        for s in f.symbols:
            if s.id not in symbols:
                symbols[s.id] = s
        for s in f.scopes:
            path_of[s.id] = f.path
    t = time.process_time()  # CPU seconds: what a stage costs whatever else the machine runs
    kernel_result = background.start(_kernel_layer, checkout, manifest, symbols, kernel_facts) if cpp is None else None
    solver = Solver(facts, rules=load_rules(components.rules_path(manifest.name)))
    resolution = solver.solve()
    timings["resolve"] = time.process_time() - t
    t = time.process_time()
    kernel = kernel_result() if kernel_result else _kernel_layer(checkout, manifest, symbols, kernel_facts, cpp())
    timings["kernels"] = time.process_time() - t
    g, num_edges, clones = tabulate(resolution, symbols, path_of, solver.scopes)
    for s in kernel.symbols if kernel else ():
        symbols.setdefault(s.id, s)
        g.add_node(s.id)
    for e in kernel.edges if kernel else ():
        g.add_edge(
            e.caller,
            e.callee,
            e.provenance.value,
            e.confidence,
            e.site.path if e.site else "",
            e.site.start if e.site else 0,
        )
        num_edges[e.provenance.value] += 1
    table = g.table()
    called = {table.nodes[i] for i in set(table.callees)}
    site_table = sites.build_table(resolution, {f.module: f.path for f in facts}, symbols, called)
    unresolved = list(site_table.sites(SiteStatus.UNRESOLVED))
    unresolved.extend(kernel.unresolved if kernel else ())
    stats = {
        "rounds": resolution.rounds,
        "fixpoint": resolution.reached_fixpoint,
        "num_sites": len(site_table),
        "num_resolved": len(site_table) - site_table.counts()[SiteStatus.UNRESOLVED.value],
        "num_edges": num_edges,
        **sites.site_stats(site_table, symbols),
        "internal": internal_stats(site_table, symbols),
        "num_kernel_symbols": len(kernel.symbols) if kernel else 0,
        "clones": {sid: origin for sid, origin in clones.items() if sid in g},
        "stubs": stub_overrides(solver, symbols),
    }
    background.retain(solver, resolution, g, path_of)
    return AtlasGraph(checkout.pin, None, symbols, unresolved, stats, table, site_table)


def stub_overrides(solver: Solver, symbols: Mapping[str, Symbol]) -> dict[str, list[str]]:
    """Each method of the tree that only raises NotImplementedError (summaries.not_implemented) -> the overrides in
    its subclasses that implement it: a call that may reach the stub reaches those instead, and no edge enters the
    stub (calls.unimplemented), so its callers are theirs."""
    out: dict[str, list[str]] = {}
    for sid in sorted(solver.not_implemented):
        cls = solver.class_of.get(sid, "")
        if not cls or sid not in symbols or sid.rpartition(".")[0] != cls:
            continue
        name = sid.rpartition(".")[2]
        overrides: list[str] = []
        queue, seen = [cls], {cls}
        while queue:
            for sub in solver.direct_subclasses.get(queue.pop(), {}):
                method = f"{sub}.{name}"
                if sub not in seen:
                    seen.add(sub)
                    queue.append(sub)
                    if method in symbols and method not in solver.not_implemented:
                        overrides.append(method)
        if overrides:
            out[sid] = sorted(overrides)
    return out


def tabulate(
    resolution: Resolution, symbols: dict[str, Symbol], path_of: dict[str, str], scopes: Mapping[str, object]
) -> tuple[EdgeBuilder, dict[str, int], dict[str, str]]:
    """The resolution's edges between the tree's symbols (and names outside it), each with its provenance,
    confidence, site and the contexts it was made in; the edge lines per provenance; the clone nodes kept (a closure
    per application of a decorator: `wrapper@decorated` -> the symbol it copies)."""
    g = EdgeBuilder()
    for sid in symbols:
        g.add_node(sid)
    num_edges = {p.value: 0 for p in Provenance}
    as_added = {p: (p.value, CONFIDENCE[p]) for p in Provenance}
    clones = {sid: origin for sid, origin in resolution.clones.items() if origin in symbols}
    known = symbols.keys() | clones.keys()
    contexts = resolution.contexts
    for (caller, callee), lines in resolution.edges.items():
        if callee.startswith("<") or caller not in known:
            continue
        if callee not in known and (callee in scopes or "." not in callee):
            continue
        path = path_of.get(clones.get(caller, caller), "")
        for line, prov in lines.items():
            value, confidence = as_added[prov]
            g.add_edge(caller, callee, value, confidence, path, line, contexts.get((caller, callee, line), ()))
            num_edges[value] += 1
    return g, num_edges, clones


def _kernel_layer(checkout, manifest, symbols, python=None, cpp=None):
    """The kernel layer of the tree (atlas.parse.kernels): C++/CUDA kernels, op registrations, launches."""
    return kernel_layer(checkout, manifest, symbols, python, cpp)


def internal_stats(table: SiteTable, symbols: dict) -> dict[str, dict[str, int]]:
    """Per component (of the calling symbol): call sites whose callee is defined in the framework. A site counts
    there resolved when it reached a symbol of the tree; missed when unresolved and the name it calls is the name of
    a function or class of the tree (an upper bound on what the resolver missed)."""
    names = {
        sid.rsplit(".", 1)[-1]
        for sid, s in symbols.items()
        if s.kind in (SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.CLASS, SymbolKind.TRITON_KERNEL)
    }
    internal: dict[str, dict[str, int]] = {}
    in_tree, unresolved = STATUSES.index(SiteStatus.IN_TREE), STATUSES.index(SiteStatus.UNRESOLVED)
    for i, code in enumerate(table.statuses):
        if code != in_tree and code != unresolved:
            continue
        s = symbols.get(table.caller(i))
        comp = (s.component if s else "") or "other"
        if code == in_tree:
            internal.setdefault(comp, {"resolved": 0, "missed": 0})["resolved"] += 1
            continue
        name = table.names[table.text_ids[i]].rsplit(".", 1)[-1].split("[")[0]
        if name in names and name not in _COMMON:
            internal.setdefault(comp, {"resolved": 0, "missed": 0})["missed"] += 1
    return dict(sorted(internal.items()))
