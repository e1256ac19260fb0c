"""torch ops as graph nodes: C++ registrations (op -> impl), Python-made ops (op -> Python function), and Python
uses `torch.ops.<ns>.<op>` (enclosing function -> op). Ops of namespaces no source in the tree registers become
named external nodes."""

from __future__ import annotations

import re

from atlas.model import CallSite, Edge, Provenance, Span, Symbol, SymbolKind
from atlas.parse.kernels.cppindex import CppIndex, Definition
from atlas.parse.kernels.python_side import PyFacts
from atlas.parse.kernels.registrations import Registration
from atlas.parse.kernels.scopes import Scopes

GPU_KEYS = ("CUDA",)


def op_id(namespace: str, op: str) -> str:
    return f"op:{namespace}::{op}"


def external_op_id(namespace: str, op: str) -> str:
    return f"ext:{namespace}.{op}"


def _impl_candidates(index: CppIndex, reg: Registration) -> list[Definition]:
    """The C++ function an impl registration names: CPU registrations prefer csrc/cpu, others avoid it; then the
    files nearest the registration."""
    name = reg.impl.rsplit("::", 1)[-1]
    found = index.lookup_qualified(reg.impl) or index.by_name.get(name, [])
    if not found:
        return []
    is_cpu = reg.dispatch_key == "CPU" or "/cpu/" in f"/{reg.path}"
    preferred = [d for d in found if ("/cpu/" in f"/{d.path}") == is_cpu] or found
    visible = index.closure(reg.path)
    local = [d for d in preferred if d.path in visible]
    if local:
        return local
    best = max(len(_common_dir(d.path, reg.path)) for d in preferred)
    return [d for d in preferred if len(_common_dir(d.path, reg.path)) == best]


def _common_dir(a: str, b: str) -> str:
    parts = []
    for x, y in zip(a.split("/")[:-1], b.split("/")[:-1]):
        if x != y:
            break
        parts.append(x)
    return "/".join(parts)


def registered_ops(index: CppIndex, registrations: list[Registration]):
    """(op symbols, op -> impl edges, unresolved impls, CUDA-registered op ids)."""
    symbols: dict[str, Symbol] = {}
    for reg in sorted(registrations, key=lambda r: (r.kind != "def", "/cpu/" in f"/{r.path}", r.path, r.line)):
        oid = op_id(reg.namespace, reg.op)
        if oid not in symbols:
            symbols[oid] = Symbol(
                oid, SymbolKind.OP, Span(reg.path, reg.line, reg.line), signature=re.sub(r"\s+", " ", reg.schema)
            )
    edges, unresolved, gpu_ops = {}, [], set()
    for reg in registrations:
        if not reg.impl:
            continue
        oid = op_id(reg.namespace, reg.op)
        if reg.dispatch_key in GPU_KEYS:
            gpu_ops.add(oid)
        targets = _impl_candidates(index, reg)
        if not targets:
            unresolved.append(CallSite(oid, f"{reg.dispatch_key} impl {reg.impl}", Span(reg.path, reg.line, reg.line)))
        for target in targets:
            edges.setdefault(
                (oid, target.id),
                Edge(oid, target.id, Provenance.REGISTRATION, 1.0 / len(targets), Span(reg.path, reg.line, reg.line)),
            )
    return symbols, list(edges.values()), unresolved, gpu_ops


def python_ops(facts: list[PyFacts], scopes: Scopes):
    """(op symbols, op -> Python function edges, unresolved op functions) for ops made in Python."""
    symbols, edges, unresolved = {}, [], []
    for fact in facts:
        module = scopes.module_of(fact.path)
        for custom in fact.custom_ops:
            oid = op_id(custom.namespace, custom.op)
            symbols.setdefault(oid, Symbol(oid, SymbolKind.OP, Span(fact.path, custom.line, custom.line)))
            target = (
                scopes.enclosing(fact.path, custom.defined_at)
                if custom.defined_at
                else scopes.resolve_name(custom.func, module, fact.imports)
            )
            if target:
                edges.append(Edge(oid, target, Provenance.REGISTRATION, 1.0, Span(fact.path, custom.line, custom.line)))
            else:
                unresolved.append(CallSite(oid, f"op_func={custom.func}", Span(fact.path, custom.line, custom.line)))
    return symbols, edges, unresolved


def op_uses(facts: list[PyFacts], scopes: Scopes, ops: dict[str, Symbol], tree_namespaces: set[str]):
    """Edges from the Python function around each `torch.ops.<ns>.<op>` to the op (or an external op node), the
    external symbols, and the uses of an in-tree namespace whose op nothing registers (unresolved)."""
    edges, external, unresolved = {}, {}, []
    for fact in facts:
        for use in fact.op_uses:
            caller = scopes.enclosing(fact.path, use.line)
            site = Span(fact.path, use.line, use.line)
            oid = op_id(use.namespace, use.op)
            if oid in ops:
                edges.setdefault((caller, oid), Edge(caller, oid, Provenance.STATIC, 1.0, site))
            elif use.namespace in tree_namespaces:
                unresolved.append(CallSite(caller, f"torch.ops.{use.namespace}.{use.op}", site))
            else:
                eid = external_op_id(use.namespace, use.op)
                external.setdefault(eid, Symbol(eid, SymbolKind.EXTERNAL, None))
                edges.setdefault((caller, eid), Edge(caller, eid, Provenance.STATIC, 1.0, site))
    return list(edges.values()), external, unresolved
