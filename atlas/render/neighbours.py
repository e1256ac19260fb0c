"""The call-graph neighbourhood of a symbol: who calls it and what it calls, each edge with its provenance and
confidence, as rows a page template lists. Kept in the build's memo (the linker's), so the pages made on every
build (mechanisms) do not load the graph."""

from __future__ import annotations

from atlas.graph.calls import call_rows, common_name
from atlas.render import urls
from atlas.render.linker import Linker

MAX_ROWS = 60


def _rows(linker: Linker, from_page: str, pairs) -> list[dict]:
    best: dict[str, dict] = {}
    for other, attrs in pairs:
        provenance = attrs.get("provenance")
        site = attrs.get("site")
        row = {
            "id": other,
            "href": linker.href(from_page, other),
            "provenance": str(getattr(provenance, "value", provenance or "")),
            "confidence": round(float(attrs.get("confidence") or 0.0), 2),
            "line": attrs.get("line") or getattr(site, "start", 0) or 0,
        }
        if other not in best or row["confidence"] > best[other]["confidence"]:
            best[other] = row
    return sorted(best.values(), key=lambda r: (-r["confidence"], r["id"]))[:MAX_ROWS]


def neighbourhood(linker: Linker, from_page: str, symbol_id: str) -> dict:
    """{callers, callees, calls (call sites in source order, fan-outs grouped), num_callers, num_callees}; empty
    when the graph is not built or lacks the symbol."""
    key = linker.unit_key("neighbourhood", from_page, symbol_id)
    return linker.memo.get(key, lambda: _neighbourhood(linker, from_page, symbol_id))


def _neighbourhood(linker: Linker, from_page: str, symbol_id: str) -> dict:
    graph = linker.engine.graph
    if graph is None or symbol_id not in graph:
        return {"callers": [], "callees": [], "calls": [], "num_callers": 0, "num_callees": 0}
    callers = _rows(linker, from_page, ((c, a) for c, _, a in graph.in_edges(symbol_id, data=True)))
    callees = _rows(linker, from_page, ((c, a) for _, c, a in graph.out_edges(symbol_id, data=True)))
    calls = []
    for row in call_rows((c, a) for _, c, a in graph.out_edges(symbol_id, data=True))[:MAX_ROWS]:
        calls.append(
            {
                "line": row.line,
                "name": common_name(row),
                "fan_out": row.is_fan_out,
                "at": urls.code_link(from_page, linker.engine.name, row.path, row.line) if row.line else "",
                "provenance": "/".join(row.provenances),
                "confidence": row.confidence,
                "targets": [
                    {
                        "id": t.id,
                        "href": linker.href(from_page, t.id),
                        "provenance": t.provenance,
                        "confidence": t.confidence,
                    }
                    for t in row.targets
                ],
            }
        )
    return {
        "callers": callers,
        "callees": callees,
        "calls": calls,
        "num_callers": len({c for c, _ in graph.in_edges(symbol_id)}),
        "num_callees": len({c for _, c in graph.out_edges(symbol_id)}),
    }
