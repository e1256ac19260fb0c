"""Call sites the graph could not resolve, with the reason and file:line: a whole tree's, or those inside one
symbol or folder."""

from __future__ import annotations

from dataclasses import dataclass

from atlas.parse.kernels import reason
from atlas.query.session import Atlas, PinRef

KINDS = ("python", "kernel", "all")


@dataclass(frozen=True, slots=True)
class Unresolved:
    kind: str  # "python call", or the kernel layer's reason (an op use, a launch, ...)
    caller: str
    expression: str
    path: str
    line: int
    reason: str = ""  # why a Python call site reached nothing (atlas.model.Unresolved's wording)


@dataclass(frozen=True, slots=True)
class UnresolvedSites:
    pin: PinRef
    kind: str
    sites: tuple[Unresolved, ...]  # by file and line


def unresolved(
    atlas: Atlas, framework: str, pin_set: str, kind: str = "all", under: str = "", symbol: str = ""
) -> UnresolvedSites:
    """The unresolved sites of `kind` (python, kernel or all), in files under `under` and callers that are
    `symbol` or inside it."""
    graph = atlas.graph(framework, pin_set)
    rows = []
    for site in graph.unresolved:
        why = reason(site)
        if kind != "all" and (kind == "kernel") != bool(why):
            continue
        if under and not (site.span.path + "/").startswith(under.rstrip("/") + "/"):
            continue
        if symbol and not (site.caller == symbol or site.caller.startswith(symbol + ".")):
            continue
        because = why or (site.reason.value if site.reason else "")
        rows.append(
            Unresolved(why or "python call", site.caller, site.expression, site.span.path, site.span.start, because)
        )
    rows.sort(key=lambda r: (r.path, r.line, r.expression))
    return UnresolvedSites(PinRef.of(graph.pin, pin_set), kind, tuple(rows))
