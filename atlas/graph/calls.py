"""Call lists that read like the code: a symbol's call sites in source order, one row per site and line, a
dispatch fan-out (one site, several possible targets) collapsed into one row with its count. `atlas show` and the
site's source view both list calls this way."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Target:
    id: str
    provenance: str  # the Provenance value, in words
    confidence: float


@dataclass(frozen=True, slots=True)
class CallRow:
    """One call site (or one caller's site, for a callers list): its line and every target it may reach."""

    path: str
    line: int  # 0 when the edge carries no site
    targets: tuple[Target, ...]  # most confident first

    @property
    def is_fan_out(self) -> bool:
        return len(self.targets) > 1

    @property
    def confidence(self) -> float:
        return max(t.confidence for t in self.targets)

    @property
    def provenances(self) -> tuple[str, ...]:
        return tuple(sorted({t.provenance for t in self.targets}))


def edge_site(attrs: dict) -> tuple[str, int]:
    """(path, line) of an edge's call site, from the stored table's attrs or a Span under `site`."""
    site = attrs.get("site")
    if site is not None:
        return site.path, site.start
    return attrs.get("path") or "", int(attrs.get("line") or 0)


def provenance_of(attrs: dict) -> str:
    value = attrs.get("provenance", "")
    return str(getattr(value, "value", value))


def call_rows(edges: Iterable[tuple[str, dict]]) -> list[CallRow]:
    """(the other end, edge attrs) -> one row per call site, in source order (path, line). The targets of one site
    are its fan-out; an edge without a site stays a row of its own, after the sited ones."""
    by_site: dict[tuple[str, int], dict[str, Target]] = {}
    unsited: list[CallRow] = []
    for other, attrs in edges:
        path, line = edge_site(attrs)
        target = Target(other, provenance_of(attrs), round(float(attrs.get("confidence", 0.0)), 2))
        if not line:
            unsited.append(CallRow(path, 0, (target,)))
            continue
        targets = by_site.setdefault((path, line), {})
        if other not in targets or targets[other].confidence < target.confidence:
            targets[other] = target
    rows = [
        CallRow(path, line, tuple(sorted(t.values(), key=lambda t: (-t.confidence, t.id))))
        for (path, line), t in sorted(by_site.items())
    ]
    seen: set[str] = set()
    for row in sorted(unsited, key=lambda r: (-r.confidence, r.targets[0].id)):
        if row.targets[0].id not in seen:
            seen.add(row.targets[0].id)
            rows.append(row)
    return rows


def common_name(row: CallRow) -> str:
    """What a collapsed row is called: the method name its targets share (`allocate_slots`), else the first id."""
    names = {t.id.rsplit(".", 1)[-1].rsplit("::", 1)[-1] for t in row.targets}
    return names.pop() if len(names) == 1 else row.targets[0].id
