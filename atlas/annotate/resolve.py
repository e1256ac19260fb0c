"""Resolve annotations against the symbol index of one pin: the symbol's lines, the statement an anchor's pattern
matches inside it, the lines each claim's evidence points at. A failure is a Finding (a result), never an error."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from atlas.annotate.model import Annotation, Claim, Evidence
from atlas.annotate.pattern import NodeTable, compile_pattern, find
from atlas.errors import AtlasError
from atlas.model import Finding, Pin, Span, Symbol


class SymbolIndex(Protocol):
    """What resolution needs of atlas.graph's Index; a test builds a small one from a folder."""

    pin: Pin
    root: Path

    def get(self, id: str) -> Symbol | None: ...

    def find(self, suffix: str) -> list[str]: ...  # ids equal to suffix or ending with .suffix

    def source(self, path: str) -> str: ...


@dataclass(frozen=True, slots=True)
class Resolution:
    """Where an annotation lands at one pin: the symbol's lines and, for a statement anchor, the statement's."""

    annotation: str
    symbol: str
    path: str = ""
    line: int = 0  # the symbol's first line (its def line) at the pin
    end_line: int = 0
    anchor_line: int = 0  # the matched statement, when the annotation has an anchor
    anchor_end_line: int = 0
    finding: Finding | None = None

    @property
    def is_resolved(self) -> bool:
        return self.finding is None


@dataclass(frozen=True, slots=True)
class EvidenceResolution:
    annotation: str
    claim: str
    evidence: Evidence
    path: str = ""
    line: int = 0
    end_line: int = 0
    finding: Finding | None = None


class Resolver:
    """Resolves many annotations against one index, parsing each source file once."""

    def __init__(self, index: SymbolIndex):
        self.index = index
        self._tables: dict[Span, NodeTable] = {}
        self._lines: dict[str, list[str]] = {}
        self._hits: dict[tuple[Span, str], list] = {}  # an item repeated (a YAML alias) is matched once

    def symbol(self, symbol_id: str) -> Symbol | None:
        try:
            found = self.index.get(symbol_id)
        except (AtlasError, KeyError):
            return None
        return found if found is not None and found.span is not None else None

    def locate(self, symbol: Symbol, pattern: str, occurrence: int) -> tuple[int, int, int]:
        """(start, end, number of matches) of the occurrence-th match of pattern inside symbol; 0, 0, n if none."""
        span = symbol.span
        hits = self._hits.get((span, pattern))
        if hits is None:
            hits = self._hits[span, pattern] = find(compile_pattern(pattern), self.table(span), span.start, span.end)
        if occurrence > len(hits):
            return 0, 0, len(hits)
        node = hits[occurrence - 1]
        return node.lineno, node.end_lineno, len(hits)

    def table(self, span: Span) -> NodeTable:
        """The syntax nodes of a symbol's lines (parsed once per span), numbered as in its file."""
        if span not in self._tables:
            self._tables[span] = NodeTable(self._parse(span))
        return self._tables[span]

    def _parse(self, span: Span) -> ast.AST:
        """The syntax tree of the symbol's lines alone, numbered as in the file (parsing only the symbol keeps
        big files cheap); an indented symbol is parsed inside `if True:`. Falls back to the whole file."""
        if span.path not in self._lines:
            self._lines[span.path] = self.index.source(span.path).splitlines(keepends=True)
        lines = self._lines[span.path]
        chunk = "".join(lines[span.start - 1 : span.end])
        indented = chunk[:1] in (" ", "\t")
        try:
            tree = ast.parse("if True:\n" + chunk if indented else chunk)
        except SyntaxError:
            return ast.parse("".join(lines))
        ast.increment_lineno(tree, span.start - 2 if indented else span.start - 1)
        return tree

    def candidates(self, symbol_id: str) -> list[str]:
        parts = symbol_id.split(".")
        for suffix in (".".join(parts[-2:]), parts[-1]):
            try:
                found = list(self.index.find(suffix))
            except (AtlasError, KeyError):
                found = []
            if found:
                return sorted(found)[:5]
        return []

    def missing(self, symbol_id: str, path: str, line: int) -> Finding:
        near = self.candidates(symbol_id)
        hint = (
            f"; did you mean: {', '.join(near)}"
            if near
            else f"; search names with `atlas find {symbol_id.rsplit('.', 1)[-1]}`"
        )
        return Finding(
            "symbol-not-found",
            f"symbol {symbol_id} not found at {self.index.pin.key}{hint}",
            path,
            line,
            {"symbol": symbol_id, "pin": self.index.pin.key, "candidates": near},
        )

    def resolve(self, annotation: Annotation) -> Resolution:
        sym = self.symbol(annotation.symbol)
        if sym is None:
            return Resolution(
                annotation.id,
                annotation.symbol,
                finding=self.missing(annotation.symbol, annotation.file, annotation.line),
            )
        base = dict(
            annotation=annotation.id,
            symbol=annotation.symbol,
            path=sym.span.path,
            line=sym.span.start,
            end_line=sym.span.end,
        )
        if annotation.anchor is None:
            return Resolution(**base)
        anchor = annotation.anchor
        start, end, count = self.locate(sym, anchor.pattern, anchor.occurrence)
        if not start:
            return Resolution(
                **base,
                finding=Finding(
                    "anchor-not-found",
                    f"anchor `{anchor.pattern}` (occurrence {anchor.occurrence}) matches {count} "
                    f"statement(s) in {annotation.symbol} at {self.index.pin.key} ({sym.span.path}:{sym.span.start}-"
                    f"{sym.span.end}); update the pattern",
                    annotation.file,
                    anchor.line,
                    {"symbol": annotation.symbol, "pin": self.index.pin.key, "matches": count},
                ),
            )
        return Resolution(**base, anchor_line=start, anchor_end_line=end)

    def resolve_evidence(self, annotation: Annotation, claim: Claim, evidence: Evidence) -> EvidenceResolution:
        sym = self.symbol(evidence.symbol)
        where = dict(annotation=annotation.id, claim=claim.id, evidence=evidence)
        if sym is None:
            if evidence.is_absent:
                return EvidenceResolution(**where)
            return EvidenceResolution(**where, finding=self.missing(evidence.symbol, annotation.file, evidence.line))
        start, end, count = sym.span.start, sym.span.end, 1
        if evidence.pattern:
            start, end, count = self.locate(sym, evidence.pattern, evidence.occurrence)
        what = f"`{evidence.pattern}` in {evidence.symbol}" if evidence.pattern else evidence.symbol
        if evidence.is_absent:
            if not start:
                return EvidenceResolution(**where)
            return EvidenceResolution(
                **where,
                path=sym.span.path,
                line=start,
                end_line=end,
                finding=Finding(
                    "evidence-present",
                    f"claim {claim.id}: {what} is expected absent but exists at {self.index.pin.key} "
                    f"({sym.span.path}:{start}); revisit the verdict",
                    annotation.file,
                    evidence.line,
                ),
            )
        if not start:
            return EvidenceResolution(
                **where,
                finding=Finding(
                    "evidence-not-found",
                    f"claim {claim.id}: {what} matches {count} statement(s) at "
                    f"{self.index.pin.key}, occurrence {evidence.occurrence} asked; update the evidence or the verdict",
                    annotation.file,
                    evidence.line,
                ),
            )
        return EvidenceResolution(**where, path=sym.span.path, line=start, end_line=end)


def resolve(annotation: Annotation, index: SymbolIndex) -> Resolution:
    """Lines of one annotation at the index's pin, or a Finding saying why it does not resolve."""
    return Resolver(index).resolve(annotation)
