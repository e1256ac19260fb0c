"""SGLang's JIT kernels: each `load_jit(marker, cuda_files=[...], cuda_wrappers=[(export, "Cpp<...>::fn")])`
exports C++ functions to Python. Nodes `jit:<marker>::<export>` (the marker as spelled, `*` for what is computed
at run time; `jit:<marker>@<path>:<line>::<export>` when another load's export of that name is another function);
edges loader -> export (REGISTRATION), export -> C++ wrapper (REGISTRATION), and Python functions that call the
loader and then `.export(...)` -> export (NAME_MATCH). Each load is a build unit: the files it compiles together."""

from __future__ import annotations

import fnmatch
import re

from atlas.model import CallSite, Edge, Provenance, Span, Symbol, SymbolKind
from atlas.parse.kernels.cppindex import CppIndex
from atlas.parse.kernels.python_side import PyFacts
from atlas.parse.kernels.scopes import Scopes

_EXPORT_MACRO = re.compile(r"TVM_FFI_DLL_EXPORT_TYPED_FUNC\s*\(\s*(\w+)\s*,\s*&?\s*([\w:<>, ]+?)\s*\)")


def jit_id(marker: str, export: str) -> str:
    return f"jit:{marker}::{export}"


def _files(index: CppIndex, listed: tuple[str, ...]) -> list[str]:
    """The tree's files a load_jit lists (relative to the JIT csrc folder); a `*` (a name computed at run time)
    matches every file it could be."""
    found = []
    for name in listed:
        if "*" in name:
            found += sorted(p for p in index.files if fnmatch.fnmatchcase(p, f"*/jit/csrc/{name}"))
            continue
        path = index.find_file(f"jit/csrc/{name}") or index.find_file(name)
        if path:
            found.append(path)
    return found


def jit_units(facts: list[PyFacts], index: CppIndex) -> dict[str, list[str]]:
    """Each load_jit call (a build unit, `jit:<path>:<line>`) -> the files it compiles together."""
    return {f"jit:{fact.path}:{load.line}": _files(index, load.files) for fact in facts for load in fact.jit_loads}


def _wrapper_targets(index: CppIndex, target: str, visible: frozenset[str]):
    if "*" not in target:
        return index.lookup_qualified(target, visible) or index.lookup_qualified(target)
    name = target.rsplit("::", 1)[-1]
    pool = index.by_name.get(name, []) if "*" not in name else [d for ds in index.by_name.values() for d in ds]
    matches = [
        d
        for d in pool
        if fnmatch.fnmatchcase(d.function.qualname, target) or fnmatch.fnmatchcase(d.function.qualname, "*::" + target)
    ]
    return [d for d in matches if d.path in visible] or matches


def jit_layer(facts: list[PyFacts], scopes: Scopes, index: CppIndex, sources: dict[str, str]):
    """(symbols, edges, unresolved, stats) of every load_jit call site."""
    symbols, edges, unresolved = {}, [], []
    num_sites = num_linked = num_wrappers = num_wrappers_linked = 0
    exports_by_path: dict[str, dict[str, list[str]]] = {}  # python path -> loader function -> export ids
    owners: dict[str, str] = {}  # export id -> the C++ function it was first made for
    for fact in facts:
        for load in fact.jit_loads:
            num_sites += 1
            loader = scopes.enclosing(fact.path, load.line)
            site = Span(fact.path, load.line, load.line)
            marker = load.marker or scopes.module_of(fact.path).rsplit(".", 1)[-1]
            files = _files(index, load.files)
            visible = frozenset().union(*(index.closure(f) for f in files)) if files else frozenset()
            wrappers = list(load.wrappers)
            if not wrappers:
                for path in files:
                    wrappers += [
                        (m.group(1), re.sub(r"<.*>|\s+", "", m.group(2)))
                        for m in _EXPORT_MACRO.finditer(sources.get(path, ""))
                    ]
            complete = len(files) >= len(load.files) and not load.is_dynamic
            linked = bool(wrappers) and complete
            for export, target in wrappers:
                num_wrappers += 1
                jid = jit_id(marker, export)
                if owners.setdefault(jid, target) != target:  # another load exports another function by that name
                    jid = jit_id(f"{marker}@{fact.path}:{load.line}", export)
                symbols.setdefault(jid, Symbol(jid, SymbolKind.OP, site, signature=target))
                edges.append(Edge(loader, jid, Provenance.REGISTRATION, 1.0, site))
                loader_name = loader.rsplit(".", 1)[-1]
                exports_by_path.setdefault(fact.path, {}).setdefault(loader_name, []).append(jid)
                definitions = _wrapper_targets(index, target, visible)
                if not definitions:
                    linked = False
                    unresolved.append(CallSite(jid, f"load_jit wrapper {target}", site))
                    continue
                num_wrappers_linked += 1
                for d in definitions:
                    edges.append(Edge(jid, d.id, Provenance.REGISTRATION, 1.0 / len(definitions), site))
            if not wrappers or not complete:
                missing = [f for f in load.files if not _files(index, (f,))]
                what = f"files {missing}" if missing else "wrappers built at run time"
                unresolved.append(CallSite(loader, f"load_jit({marker!r}): {what}", site))
            num_linked += linked
    edges += _export_users(facts, scopes, exports_by_path)
    stats = {
        "load_jit_sites": num_sites,
        "load_jit_sites_linked": num_linked,
        "jit_wrappers": num_wrappers,
        "jit_wrappers_linked": num_wrappers_linked,
    }
    return symbols, edges, unresolved, stats


def _export_users(facts: list[PyFacts], scopes: Scopes, exports_by_path) -> list[Edge]:
    """A function of the loader's module that calls the loader and `.export(...)` calls that export."""
    edges = {}
    for fact in facts:
        loaders = exports_by_path.get(fact.path)
        if not loaders:
            continue
        calls_by_caller: dict[str, list[tuple[str, int, bool]]] = {}
        for name, line, is_attribute in fact.calls:
            calls_by_caller.setdefault(scopes.enclosing(fact.path, line), []).append((name, line, is_attribute))
        for caller, calls in calls_by_caller.items():
            called = {name for name, _, is_attribute in calls if not is_attribute}
            for loader, exports in loaders.items():
                if loader not in called and not caller.endswith("." + loader):
                    continue
                for name, line, is_attribute in calls:
                    for jid in exports:
                        if is_attribute and jid.endswith("::" + name):
                            edges.setdefault(
                                (caller, jid),
                                Edge(caller, jid, Provenance.NAME_MATCH, 0.9, Span(fact.path, line, line)),
                            )
    return list(edges.values())
