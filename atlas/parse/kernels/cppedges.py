"""C++ -> C++ calls and C++ -> `__global__` launches of one tree, as graph symbols and edges; launch sites whose
kernel cannot be named are kept as unresolved call sites."""

from __future__ import annotations

from atlas.model import CallSite, Edge, Provenance, Span, Symbol, SymbolKind
from atlas.parse.kernels.cppindex import CppIndex, Definition
from atlas.parse.kernels.lookup import resolve


def cpp_symbols(index: CppIndex) -> dict[str, Symbol]:
    """One symbol per (file, qualified name): overloads and template specialisations share it (first span kept)."""
    symbols: dict[str, Symbol] = {}
    for definitions in index.by_name.values():
        for d in definitions:
            if d.id not in symbols:
                kind = SymbolKind.CUDA_KERNEL if d.function.is_kernel else SymbolKind.CPP_FUNCTION
                symbols[d.id] = Symbol(
                    d.id,
                    kind,
                    Span(d.path, d.function.start, d.function.end),
                    decorators=("__global__",) if d.function.is_kernel else (),
                )
    return symbols


def cpp_edges(index: CppIndex) -> tuple[list[Edge], list[CallSite]]:
    edges: dict[tuple[str, str], Edge] = {}
    unresolved = []
    for path, cpp_file in sorted(index.files.items()):
        for function in cpp_file.functions:
            caller = Definition(path, function)
            refs, macro_launches = index.expand(path, function)
            launches = function.has_launch or macro_launches
            linked_kernel = False
            open_launches = []
            for ref in refs:
                if not (ref.is_call or ref.is_launch or ref.name in index.by_name):
                    continue
                targets = resolve(index, ref, path, function)
                kernels = [t for t in targets if t.definition.function.is_kernel]
                if ref.is_launch and not kernels:
                    open_launches.append(ref)
                for target in targets:
                    callee = target.definition
                    if callee.id == caller.id:
                        continue
                    site = Span(path, ref.line, ref.line)
                    if callee.function.is_kernel:
                        if function.is_kernel:
                            continue  # a kernel naming another (a template argument, a comment-like use)
                        linked_kernel = True
                        if ref.is_launch:
                            edge = Edge(caller.id, callee.id, Provenance.LAUNCH, 1.0, site)
                        elif launches:
                            edge = Edge(caller.id, callee.id, Provenance.LAUNCH, 0.8, site)
                        else:
                            edge = Edge(caller.id, callee.id, Provenance.NAME_MATCH, 0.6, site)
                    elif ref.is_call:
                        if target.how == "global":
                            edge = Edge(caller.id, callee.id, Provenance.NAME_MATCH, 0.5, site)
                        else:
                            edge = Edge(caller.id, callee.id, Provenance.STATIC, 1.0 / len(targets) ** 0.5, site)
                    else:
                        continue
                    key = (caller.id, callee.id)
                    if key not in edges or edges[key].confidence < edge.confidence:
                        edges[key] = edge
            if not linked_kernel:
                unresolved.extend(
                    CallSite(caller.id, f"{ref.qualifier}{ref.name}<<<...>>>", Span(path, ref.line, ref.line))
                    for ref in open_launches
                )
    return list(edges.values()), unresolved
