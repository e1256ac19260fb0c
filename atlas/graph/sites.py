"""The per-site table of a tree's graph: each call expression resolution evaluated (atlas.graph.resolve.sites) with
one status: in the tree (its targets are symbols), outside it (builtin, standard library, torch, another library,
with the dotted names it reaches), or unresolved with the reason. Counted per status and component for the stats."""

from __future__ import annotations

import sys
from typing import Final

from atlas.graph.resolve.solver import Resolution
from atlas.graph.table import REASONS, STATUSES, SiteRow, SiteTable, site_table
from atlas.model import SiteStatus, Symbol, Unresolved

# The resolver names builtin types' methods as PyCG does; the table names them as Python does.
PYCG_TYPES: Final = {
    "<builtin>": "builtins",
    "<**PyList**>": "builtins.list",
    "<**PyDict**>": "builtins.dict",
    "<**PyStr**>": "builtins.str",
}
LIST_ATTRIBUTES: Final = frozenset(dir(list))
SET_ATTRIBUTES: Final = frozenset(dir(set))
STDLIB: Final = frozenset(sys.stdlib_module_names) - {"builtins"}
# Outside the tree, the status a site with several kinds of target takes: the first in this order.
OUTSIDE_ORDER: Final = (SiteStatus.TORCH, SiteStatus.LIBRARY, SiteStatus.STDLIB, SiteStatus.BUILTIN)


def python_name(name: str) -> str:
    """A target as Python names it (`<**PyList**>.append` -> `builtins.list.append`; the resolver's lists stand
    for sets and tuples too: `<**PyList**>.add` -> `builtins.set.add`)."""
    if name.startswith("<"):
        head, _, rest = name.partition(".")
        prefix = PYCG_TYPES.get(head)
        if prefix == "builtins.list" and rest not in LIST_ATTRIBUTES:
            prefix = "builtins.set" if rest in SET_ATTRIBUTES else "builtins.tuple"
        if prefix is not None:
            return f"{prefix}.{rest}"
    return name


def outside_status(name: str) -> SiteStatus:
    """Which kind of code outside the tree the dotted `name` (as `python_name` gives it) is."""
    top = name.split(".", 1)[0]
    if top == "builtins":
        return SiteStatus.BUILTIN
    if top == "torch":
        return SiteStatus.TORCH
    if top in STDLIB:
        return SiteStatus.STDLIB
    return SiteStatus.LIBRARY


def build_table(
    resolution: Resolution, path_of: dict[str, str], symbols: dict[str, Symbol], called: set[str]
) -> SiteTable:
    """The site table of a resolution (`path_of`: module -> its file; `called`: the symbols some edge reaches,
    telling a parameter nobody passes from one of a function nobody calls)."""
    rows: list[SiteRow] = []
    clones = resolution.clones  # a clone of a symbol (a decorator's wrapper per application) is in the tree too
    for (module, end_line, end_col), record in resolution.sites.items():
        caller = record.caller
        site = record.site
        inside = tuple(sorted(t for t in record.targets if t in symbols or clones.get(t) in symbols))
        reason: Unresolved | None = None
        if inside:
            status, targets = SiteStatus.IN_TREE, inside
        elif record.targets:
            targets = tuple(sorted({python_name(t) for t in record.targets}))
            found = {outside_status(t) for t in targets}
            status = next(s for s in OUTSIDE_ORDER if s in found)
        else:
            status, targets, reason = SiteStatus.UNRESOLVED, (), record.reason or Unresolved.NOT_CALLABLE
            if record.parameter is not None and record.parameter in resolution.capped:
                reason = Unresolved.BOUND
            elif record.parameter is not None and record.parameter[0] not in called:
                reason = Unresolved.UNCALLED
        rows.append(
            (
                caller,
                path_of.get(module, ""),
                site.line,
                site.col,
                end_line,
                end_col,
                site.text,
                status,
                reason,
                targets,
            )
        )
    return site_table(rows)


def site_stats(table: SiteTable, symbols: dict[str, Symbol]) -> dict:
    """Sites per status, unresolved ones per reason, and per component (of the calling symbol) per status."""
    per_component: dict[str, dict[str, int]] = {}
    reasons: dict[str, int] = {}
    component_of: dict[int, str] = {}
    for i in range(len(table)):
        caller = table.caller_ids[i]
        comp = component_of.get(caller)
        if comp is None:
            s = symbols.get(table.names[caller])
            comp = component_of[caller] = (s.component if s else "") or "other"
        row = per_component.get(comp)
        if row is None:
            row = per_component[comp] = dict.fromkeys((s.value for s in SiteStatus), 0)
        row[STATUSES[table.statuses[i]].value] += 1
        reason = REASONS[table.reasons[i]]
        if reason is not None:
            reasons[reason.value] = reasons.get(reason.value, 0) + 1
    return {
        "sites": table.counts(),
        "unresolved": dict(sorted(reasons.items())),
        "per_component": dict(sorted(per_component.items())),
    }
