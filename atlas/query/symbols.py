"""`show`: one symbol at one pin, everything atlas knows of it: where it is (file:line, permalink at the pin),
its signature and component, its calls in source order, its callers, its contracts and claims, and what the
runtime saw of it."""

from __future__ import annotations

from dataclasses import dataclass

from atlas.graph.calls import CallRow, call_rows
from atlas.query.contracts import ContractView, citing, contracts_at, contracts_of
from atlas.query.lookup import locate
from atlas.query.runtime import RuntimeView, runtime_of
from atlas.query.session import Atlas, PinRef


@dataclass(frozen=True, slots=True)
class Place:
    """Lines of one file at the pin, with the upstream permalink."""

    path: str
    start: int
    end: int
    permalink: str


@dataclass(frozen=True, slots=True)
class SymbolView:
    pin: PinRef
    id: str
    kind: str
    component: str
    signature: str
    decorators: tuple[str, ...]
    place: Place | None  # None for a symbol outside the tree (torch.cat)
    calls: tuple[CallRow, ...]  # one per call site, in source order
    callers: tuple[CallRow, ...]  # one per calling site, by caller then line
    contracts: tuple[ContractView, ...]
    elsewhere: tuple[ContractView, ...]  # the same annotations at the other pin sets asked, evidence resolved there
    cited_by: tuple[tuple[str, str, str], ...]  # (annotation, claim, verdict) whose evidence lies here
    runtime: RuntimeView | None
    note: str = ""  # how the name was read, when it named more than one symbol

    @property
    def num_targets(self) -> int:
        return len({t.id for row in self.calls for t in row.targets})

    @property
    def num_callers(self) -> int:
        return len({t.id for row in self.callers for t in row.targets})


def place_of(atlas: Atlas, framework: str, pin_set: str, sid: str) -> Place | None:
    graph = atlas.graph(framework, pin_set)
    attrs = graph.node(sid)
    if not attrs.get("path"):
        return None
    return Place(
        attrs["path"], attrs["start"], attrs["end"], graph.pin.permalink(attrs["path"], attrs["start"], attrs["end"])
    )


def show(
    atlas: Atlas,
    name: str,
    framework: str | None,
    pin_set: str,
    with_runtime: bool = True,
    also: tuple[str, ...] = (),
) -> SymbolView:
    """The symbol `name` means (atlas.query.lookup.locate) and all that is known of it at `pin_set`; its contracts
    also as they read at the pin sets `also` (where the code may have moved)."""
    found = locate(atlas, name, framework, pin_set)
    fw, sid = found.framework, found.id
    graph = atlas.graph(fw, pin_set)
    attrs = graph.node(sid)
    callers = call_rows((a, e) for _, a, _, e in graph.callers(sid))
    contracts = contracts_of(atlas, fw, pin_set, sid)
    ids = [c.annotation for c in contracts]
    elsewhere = [view for other in also if other != pin_set for view in contracts_at(atlas, fw, other, ids)]
    return SymbolView(
        PinRef.of(graph.pin, pin_set),
        sid,
        attrs.get("kind", ""),
        attrs.get("component", ""),
        attrs.get("signature", ""),
        tuple(attrs.get("decorators", ())),
        place_of(atlas, fw, pin_set, sid),
        tuple(call_rows((b, e) for _, _, b, e in graph.callees(sid))),
        tuple(sorted(callers, key=lambda r: (r.targets[0].id, r.line))),
        tuple(contracts),
        tuple(elsewhere),
        tuple(citing(atlas, fw, pin_set, sid)),
        runtime_of(atlas, fw, pin_set, sid) if with_runtime else None,
        found.note,
    )
