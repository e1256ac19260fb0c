"""Assemble the kernel layer of one checkout: parse its C++/CUDA and the Python files that touch ops, then join
ops, C++ functions, `__global__` kernels and JIT exports into symbols, edges and unresolved sites."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from atlas.model import CallSite, Edge, Symbol, SymbolKind
from atlas.parse.kernels.cmake import cmake_files, cmake_texts, extension_targets, extension_units
from atlas.parse.kernels.cpp import CPP_SUFFIXES, CppFile, parse_cpp
from atlas.parse.kernels.cppedges import cpp_edges, cpp_symbols
from atlas.parse.kernels.cppindex import CppIndex
from atlas.parse.kernels.jit import jit_layer, jit_units
from atlas.parse.kernels.ops import op_uses, python_ops, registered_ops
from atlas.parse.kernels.python_side import PyFacts, mentions_kernels, python_facts
from atlas.parse.kernels.registrations import Registration, find_registrations
from atlas.parse.kernels.scopes import Scopes
from atlas.sources import analysed_files


@dataclass(frozen=True, slots=True)
class KernelLayer:
    symbols: list[Symbol]
    edges: list[Edge]
    unresolved: list[CallSite]
    stats: dict = field(default_factory=dict, hash=False, compare=False)


def _read(root: Path, path: str) -> str:
    return (root / path).read_text(encoding="utf-8", errors="replace")


def cpp_paths(checkout, manifest) -> list[str]:
    """The C++/CUDA files of `checkout` the kernel layer reads (the manifest's globs)."""
    return [path for path, _ in analysed_files(manifest, checkout, CPP_SUFFIXES)]


def cpp_targets(root: Path) -> dict[str, str]:
    """Source path -> the CMake extension target compiling it (atlas.parse.kernels.cmake)."""
    return extension_targets(cmake_texts(root))


def cpp_file(root: Path, path: str, targets: dict[str, str]) -> tuple[CppFile, list[Registration]]:
    """One C++/CUDA file's part of the layer: its functions, macros and includes, and its op registrations. Files are
    independent of each other here, so a build spreads them over its processes (atlas.graph.schedule)."""
    text = _read(root, path)
    return parse_cpp(path, text), find_registrations(path, text, targets.get(path, ""))


class _Sources:
    """The C++ texts the JIT part reads (a few files), read when asked for."""

    def __init__(self, root: Path, paths: set[str]):
        self.root, self.paths = root, paths

    def get(self, path: str, default: str = "") -> str:
        return _read(self.root, path) if path in self.paths else default


def reaches_kernel(start: str, adjacency: dict[str, list[str]], kinds: dict[str, SymbolKind], depth: int = 8) -> bool:
    """Whether a CUDA kernel is reachable from `start` within `depth` edges."""
    seen, todo = {start}, deque([(start, 0)])
    while todo:
        node, hops = todo.popleft()
        if kinds.get(node) == SymbolKind.CUDA_KERNEL:
            return True
        if hops < depth:
            for nxt in adjacency.get(node, ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append((nxt, hops + 1))
    return False


def kernel_layer(
    checkout,
    manifest,
    symbols: dict[str, Symbol],
    python: list[PyFacts] | None = None,
    cpp: list[tuple[CppFile, list[Registration]]] | None = None,
) -> KernelLayer:
    """The kernel layer of `checkout` (an atlas.sources.Checkout) under `manifest`'s globs; `symbols` is the Python
    index (dotted ids with spans) that op uses and JIT loads are attributed to. `python`: the facts of the analysed
    Python files that mention kernels, in file order, when the caller has them (a build's parse stage makes them from
    the trees it parsed anyway, see atlas.graph.parsing); else those files are read and parsed here. `cpp`: the
    `cpp_file` of every path `cpp_paths` lists, in that order, when the caller made them; else they are made here."""
    started = time.perf_counter()
    root = Path(checkout.path)
    if cpp is None:
        targets = cpp_targets(root)
        cpp = [cpp_file(root, path, targets) for path in cpp_paths(checkout, manifest)]
    index = CppIndex([f for f, _ in cpp])
    registrations = [r for _, found in cpp for r in found]
    sources = _Sources(root, set(index.files))
    parsed_cpp = time.perf_counter()

    facts = python if python is not None else []
    for path, _ in analysed_files(manifest, checkout, (".py",)) if python is None else ():
        text = _read(root, path)
        if mentions_kernels(text):
            facts.append(python_facts(path, text))
    index.link_units({**extension_units(cmake_files(root)), **jit_units(facts, index)})
    parsed_py = time.perf_counter()

    scopes = Scopes(symbols, manifest.package_root)
    functions = cpp_symbols(index)
    calls, open_launches = cpp_edges(index)
    ops, op_impls, open_impls, gpu_ops = registered_ops(index, registrations)
    py_ops, py_op_edges, open_py_ops = python_ops(facts, scopes)
    all_ops = {**py_ops, **ops}
    tree_namespaces = {r.namespace for r in registrations} | {o.split("::")[0][3:] for o in py_ops}
    use_edges, external, open_uses = op_uses(facts, scopes, all_ops, tree_namespaces)
    jit_symbols, jit_edges, open_jit, jit_stats = jit_layer(facts, scopes, index, sources)

    layer_symbols = {**functions, **all_ops, **external, **jit_symbols}
    edges = calls + op_impls + py_op_edges + use_edges + jit_edges
    unresolved = open_uses + open_impls + open_py_ops + open_jit + open_launches
    stats = _stats(layer_symbols, edges, unresolved, facts, gpu_ops, tree_namespaces, registrations)
    stats.update(jit_stats)
    stats.update(
        {
            "cpp_files": len(cpp),
            "python_files_scanned": len(facts),
            "seconds_parse_cpp": round(parsed_cpp - started, 3),
            "seconds_parse_python": round(parsed_py - parsed_cpp, 3),
            "seconds_total": round(time.perf_counter() - started, 3),
        }
    )
    return KernelLayer(sorted(layer_symbols.values(), key=lambda s: s.id), edges, unresolved, stats)


def _stats(symbols, edges, unresolved, facts, gpu_ops, tree_namespaces, registrations) -> dict:
    kinds = {sid: s.kind for sid, s in symbols.items()}
    adjacency: dict[str, list[str]] = {}
    for edge in edges:
        adjacency.setdefault(edge.caller, []).append(edge.callee)
    uses = [(fact.path, use) for fact in facts for use in fact.op_uses]
    tree_uses = [(p, u) for p, u in uses if u.namespace in tree_namespaces]
    cpp_namespaces = {r.namespace for r in registrations}
    cpp_uses = [(p, u) for p, u in tree_uses if u.namespace in cpp_namespaces]
    resolved = [(p, u) for p, u in cpp_uses if f"op:{u.namespace}::{u.op}" in symbols]
    gpu_linked = [o for o in gpu_ops if reaches_kernel(o, adjacency, kinds)]
    launch_sites = {
        (e.site.path, e.site.start) for e in edges if e.provenance.value == "launch" and e.confidence == 1.0
    }
    open_launch_sites = {(c.span.path, c.span.start) for c in unresolved if c.expression.endswith("<<<...>>>")}
    cpp_edges_by_kind: dict[str, int] = {}
    for e in edges:
        if e.caller.startswith(("cpp:", "cuda:")):
            cpp_edges_by_kind[e.provenance.value] = cpp_edges_by_kind.get(e.provenance.value, 0) + 1
    wrappers = {e.callee for e in edges if e.caller.startswith("jit:") and e.callee.startswith(("cpp:", "cuda:"))}
    wrappers_linked = [w for w in wrappers if reaches_kernel(w, adjacency, kinds)]
    return {
        "cpp_functions": sum(1 for k in kinds.values() if k == SymbolKind.CPP_FUNCTION),
        "cuda_kernels": sum(1 for k in kinds.values() if k == SymbolKind.CUDA_KERNEL),
        "ops": sum(1 for k in kinds.values() if k == SymbolKind.OP),
        "external_ops": sum(1 for k in kinds.values() if k == SymbolKind.EXTERNAL),
        "registrations": len(registrations),
        "op_uses": len(uses),
        "op_uses_tree_namespaces": len(tree_uses),
        "op_uses_csrc_namespaces": len(cpp_uses),
        "op_uses_csrc_resolved": len(resolved),
        "cuda_ops": len(gpu_ops),
        "cuda_ops_reaching_kernel": len(gpu_linked),
        "cuda_ops_without_kernel": sorted(set(gpu_ops) - set(gpu_linked)),
        "cpp_edges": dict(sorted(cpp_edges_by_kind.items())),
        "launch_sites_named": len(launch_sites),
        "launch_sites_unresolved": len(open_launch_sites - launch_sites),
        "jit_wrapper_functions": len(wrappers),
        "jit_wrapper_functions_reaching_kernel": len(wrappers_linked),
    }
