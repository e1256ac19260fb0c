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
    """C++ calls and launches. A kernel a function only names (no launch in it) is NAME_MATCH: it hands the pointer
    out. Where a caller of such a function launches what it cannot name (`kernel = pick_kernel(...);
    kernel<<<...>>>(...)`), the launch is that caller's: the named kernels become its LAUNCH edges at that launch,
    and the picker keeps none."""
    edges: dict[tuple[str, str], Edge] = {}
    unresolved = []
    named: dict[str, list[Edge]] = {}  # function -> its NAME_MATCH edges to kernels it only names
    open_sites: dict[str, list[CallSite]] = {}  # function -> its launches of what it cannot name
    called: dict[str, set[str]] = {}  # function -> the functions it calls
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
                            named.setdefault(caller.id, []).append(edge)
                    elif ref.is_call:
                        called.setdefault(caller.id, set()).add(callee.id)
                        if target.how == "global":
                            edge = Edge(caller.id, callee.id, Provenance.NAME_MATCH, 0.5, site)
                        else:
                            edge = Edge(caller.id, callee.id, Provenance.STATIC, 1.0 / len(targets) ** 0.5, site)
                    else:
                        continue
                    _keep(edges, edge)
            if not linked_kernel and open_launches:
                open_sites[caller.id] = [
                    CallSite(caller.id, f"{ref.qualifier}{ref.name}<<<...>>>", Span(path, ref.line, ref.line))
                    for ref in open_launches
                ]
    for launcher, sites in open_sites.items():
        pickers = [f for f in sorted(called.get(launcher, ())) if f in named]
        if not pickers:
            unresolved.extend(sites)
            continue
        for picker in pickers:
            for e in named[picker]:
                edges.pop((picker, e.callee), None)
                _keep(edges, Edge(launcher, e.callee, Provenance.LAUNCH, 0.8, sites[0].span))
    return list(edges.values()), unresolved


def _keep(edges: dict[tuple[str, str], Edge], edge: Edge) -> None:
    """Add `edge` unless the same caller -> callee is already held with at least its confidence."""
    key = (edge.caller, edge.callee)
    if key not in edges or edges[key].confidence < edge.confidence:
        edges[key] = edge
