"""Where a symbol of one engine is shown: its own page when it has one (annotated, component and pipeline
symbols), else its entry in the symbol browser. Links are relative to the page they are written on. Facts come from
the symbol index (through the memo for the pages made on every build, so that they do not load it), and for the call
graph's other nodes from the engine's summary (atlas.render.summary): the graph itself is never read here."""

from __future__ import annotations

from dataclasses import dataclass, field

from atlas.model import Symbol
from atlas.render import urls
from atlas.render.excerpt import Slots
from atlas.render.inputs import EngineData
from atlas.render.memo import Memo, digest
from atlas.render.summary import EngineSummary


@dataclass(frozen=True, slots=True)
class Linker:
    engine: EngineData
    paged: frozenset[str]  # symbol ids that get a page of their own
    summary: EngineSummary = field(default_factory=EngineSummary)  # the engine's index and call graph, summarised
    slots: Slots = field(default_factory=Slots, compare=False)  # excerpts filled into the built HTML
    memo: Memo = field(default_factory=Memo, compare=False)  # units kept between builds (neighbours, excerpts)
    paged_key: str = field(init=False, compare=False)  # a digest of `paged`, for memo keys

    def __post_init__(self) -> None:
        object.__setattr__(self, "paged_key", digest(sorted(self.paged)))

    def unit_key(self, *parts: object) -> str | None:
        """The memo key of a unit made from this engine and its pages' links, and `parts`."""
        return self.memo.key(self.engine.name, self.engine.fingerprint, self.paged_key, *parts)

    def symbol(self, symbol_id: str) -> Symbol | None:
        """The index's symbol of an id: through the memo for those the pages ask about on every build (a symbol with
        a page of its own, any symbol asked outside a unit being made), so that a rebuild does not load the index;
        from the index for the many others a unit being made asks about (a call-graph neighbourhood's)."""
        if self.memo.is_making and symbol_id not in self.paged:
            return self.engine.symbols.get(symbol_id)
        key = self.memo.key("symbol", self.engine.name, self.engine.fingerprint, symbol_id)
        return self.memo.get(key, lambda: self.engine.symbols.get(symbol_id))

    def page(self, symbol_id: str) -> str:
        """The docs-relative page of a symbol, or "" when it has none."""
        return urls.symbol_page(self.engine.name, symbol_id) if symbol_id in self.paged else ""

    def path_of(self, symbol_id: str) -> str:
        symbol = self.symbol(symbol_id)
        if symbol is not None and symbol.span is not None:
            return symbol.span.path
        return self.summary.outside.get(symbol_id, {}).get("path") or ""

    def href(self, from_page: str, symbol_id: str) -> str:
        """An HTML link (relative, .html) to the symbol's page or browser entry."""
        page = self.page(symbol_id)
        if page:
            return urls.rel(from_page, page)
        path = self.path_of(symbol_id)
        if path:
            return urls.code_link(from_page, self.engine.name, path, self.line_of(symbol_id))
        return urls.browser_link(from_page, self.engine.name, path, symbol_id)

    def line_of(self, symbol_id: str) -> int:
        symbol = self.symbol(symbol_id)
        if symbol is not None and symbol.span is not None:
            return symbol.span.start
        return int(self.summary.outside.get(symbol_id, {}).get("start") or 0)

    def from_root(self, symbol_id: str) -> str:
        """The same link relative to the site root (for data files the JS resolves against the page's root)."""
        return self.href("index.md", symbol_id)

    def exists(self, symbol_id: str) -> bool:
        return self.symbol(symbol_id) is not None or symbol_id in self.summary.outside

    def facts(self, symbol_id: str) -> dict:
        """What a page says about a symbol: kind, file, lines, signature, component and the upstream permalink."""
        symbol = self.symbol(symbol_id)
        node = self.summary.outside.get(symbol_id, {}) if symbol is None else {}
        kind = symbol.kind.value if symbol else str(getattr(node.get("kind"), "value", node.get("kind") or ""))
        path = symbol.span.path if symbol and symbol.span else node.get("path") or ""
        start = symbol.span.start if symbol and symbol.span else int(node.get("start") or 0)
        end = symbol.span.end if symbol and symbol.span else int(node.get("end") or start)
        return {
            "id": symbol_id,
            "kind": kind,
            "path": path,
            "start": start,
            "end": end,
            "signature": (symbol.signature if symbol else node.get("signature")) or "",
            "component": (symbol.component if symbol else "") or node.get("component") or "",
            "permalink": self.engine.pin.permalink(path, start, end) if path else "",
            "code": urls.code_link("index.md", self.engine.name, path, start) if path else "",
            "exists": bool(symbol or node),
        }
