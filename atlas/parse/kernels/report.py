"""The unresolved sites of a kernel layer as plain rows, for `atlas graph unresolved --kind kernel` and
`atlas kernels unresolved`: what could not be linked, where, and why."""

from __future__ import annotations

from atlas.model import CallSite


def reason(site: CallSite) -> str:
    """Why a kernel-layer site stayed unresolved, in words (also tells kernel sites from Python ones: "")."""
    expression = site.expression
    if expression.startswith("torch.ops."):
        return "op not registered in the tree"
    if " impl " in expression or expression.startswith("op_func="):
        return "registered function not found"
    if expression.startswith("load_jit wrapper"):
        return "JIT wrapper not found in its files"
    if expression.startswith("load_jit("):
        return "JIT load not followable"
    if expression.endswith("<<<...>>>"):
        return "launched kernel not named"
    return "unresolved" if site.caller.startswith(("op:", "jit:", "cpp:", "cuda:")) else ""


def unresolved_report(layer) -> list[dict]:
    """One row per unresolved site: kind, caller, expression, path, line; sorted by path and line."""
    rows = [
        {
            "kind": reason(site),
            "caller": site.caller,
            "expression": site.expression,
            "path": site.span.path,
            "line": site.span.start,
        }
        for site in layer.unresolved
    ]
    return sorted(rows, key=lambda r: (r["path"], r["line"], r["expression"]))
