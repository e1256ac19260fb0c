"""Call paths you steer: from one symbol to another through `via` symbols and around `avoid` ones; one path is the
most specific (fewest hops, a hop through a site of many targets or a weak edge counting more), k paths are the k
most confident of the most specific few (their weakest edge, then all edges together) then the shortest. Each hop
says which call site makes it and how many targets that site may reach ("1 of N", the others listed). No path:
what comes nearest (the symbols that do reach the target, closest to the source in the code first, and the
unresolved call sites that may be the way)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from atlas.errors import SymbolNotFound
from atlas.graph import AtlasGraph, Index
from atlas.graph.calls import edge_site, provenance_of
from atlas.query.lookup import locate
from atlas.query.session import Atlas, PinRef

KINDS = {"cuda_kernel": "__global__ kernel", "triton_kernel": "Triton kernel"}
ALL = 20  # paths `--all` lists at most
CANDIDATES = 10  # k paths are ranked among this many (or 3k) most specific ones
NEAREST = 5


@dataclass(frozen=True, slots=True)
class Hop:
    caller: str
    callee: str
    provenance: str
    confidence: float
    path: str  # the call site
    line: int
    alternatives: tuple[str, ...]  # the site's other possible targets (a dispatch: one of N)

    @property
    def num_targets(self) -> int:
        return 1 + len(self.alternatives)


@dataclass(frozen=True, slots=True)
class CallPath:
    hops: tuple[Hop, ...]

    @property
    def confidence(self) -> float:
        """The weakest edge's."""
        return min((h.confidence for h in self.hops), default=1.0)

    @property
    def joint(self) -> float:
        """Every edge's together (their product): of two paths with the same weakest edge, the surer."""
        return math.prod(h.confidence for h in self.hops)

    @property
    def symbols(self) -> list[str]:
        return [self.hops[0].caller, *(h.callee for h in self.hops)] if self.hops else []


@dataclass(frozen=True, slots=True)
class Near:
    """Something that comes near a path that is not there."""

    kind: str  # reaches: a symbol that reaches the target; unresolved: a call site left unresolved on the way
    symbol: str  # the symbol that reaches the target, or the caller holding the unresolved site
    detail: str  # hops to the target, or the site's expression
    path: str
    line: int


@dataclass(frozen=True, slots=True)
class PathAnswer:
    pin: PinRef
    source: str
    target: str
    via: tuple[str, ...]
    avoid: tuple[str, ...]
    paths: tuple[CallPath, ...]  # best first
    end_kind: str  # the last symbol's kind when it is a kernel ("__global__ kernel", "Triton kernel"), else ""
    end_path: str  # where that kernel is defined
    end_line: int
    near: tuple[Near, ...]  # when there is no path
    notes: tuple[str, ...] = ()  # how names were read


def _target(graph: AtlasGraph, index: Index, name: str, source: str) -> tuple[str, str]:
    """(id, note) of what TO names. Several (the same op as Python wrapper, op and C++ function): the lowest layer
    FROM reaches; otherwise SymbolNotFound listing them."""
    found = index.find(name)
    if len(found) == 1:
        return found[0], ""
    if not found:
        raise SymbolNotFound(
            f"no symbol {name!r} in {graph.pin.framework} {graph.pin.ref}; search names with `atlas find "
            f"{name.rsplit('.', 1)[-1]}`"
        )
    deepest = graph.deepest(source, found)
    if deepest is None:
        shown = "\n  ".join(found[:25]) + ("\n  ..." if len(found) > 25 else "")
        raise SymbolNotFound(
            f"{name!r} names {len(found)} symbols that do not lie on one chain from {source}; give a longer "
            f"suffix:\n  {shown}"
        )
    return (
        deepest,
        f"{name!r} names {len(found)} symbols on one chain; the path goes to the lowest layer {source} "
        f"reaches: {deepest}",
    )


def _hops(graph: AtlasGraph, chain: list[str]) -> tuple[Hop, ...]:
    """Each hop of the chain: its edge as AtlasGraph.hops reads it (the precision sample records the same), with the
    site's other targets."""
    hops = []
    for a, b, best in graph.hops(chain):
        out = [(callee, attrs) for _, _, callee, attrs in graph.callees(a)]
        site = edge_site(best)
        others = sorted({callee for callee, attrs in out if callee != b and edge_site(attrs) == site and site[1]})
        hops.append(Hop(a, b, provenance_of(best), float(best.get("confidence", 0.0)), site[0], site[1], tuple(others)))
    return tuple(hops)


def _chains(graph: AtlasGraph, stops: list[str], k: int, avoid: frozenset[str]) -> list[list[str]]:
    """Up to `k` loop-free chains through `stops` in order, each leg's best few combined."""
    legs = [graph.paths(a, b, k, avoid) for a, b in zip(stops, stops[1:])]
    if not all(legs):
        return []
    chains = []
    for parts in itertools.product(*legs):
        chain = list(parts[0])
        for part in parts[1:]:
            chain += part[1:]
        if len(set(chain)) == len(chain):
            chains.append(chain)
    return chains


def _near(graph: AtlasGraph, source: str, target: str, avoid: frozenset[str]) -> list[Near]:
    """What comes nearest when `source` does not reach `target`: the symbols that reach the target by a path an
    execution can take (AtlasGraph.paths, which follows contexts, where the plain edges may join hops that cannot
    follow one another), those sharing the longest part of their id with the source first (a sibling method that
    does the work); the unresolved call sites of the source and its callees two levels down whose called name is
    the name of one of them."""
    up = graph.reach(target, False, avoid) - {target}
    near_source = {source} | {b for _, _, b, _ in graph.callees(source, 2)}
    names = {s.rsplit(".", 1)[-1] for s in up} | {target.rsplit(".", 1)[-1].rsplit("::", 1)[-1]}
    out = []
    for site in graph.unresolved:
        if site.caller in near_source:
            called = site.expression.split("(", 1)[0].rsplit(".", 1)[-1]
            if called in names and not called.startswith("__"):
                out.append(Near("unresolved", site.caller, site.expression, site.span.path, site.span.start))
    closest = sorted(up, key=lambda s: (-len(_common_prefix(s, source)), s))[: NEAREST * 4]
    found = 0
    for sid in closest:
        if found == NEAREST:
            break
        paths = graph.paths(sid, target, 1, avoid)
        if not paths:  # reaches the target only through hops no execution takes one after the other (contexts)
            continue
        found += 1
        hops = len(paths[0]) - 1
        attrs = graph.node(sid)
        out.append(
            Near(
                "reaches",
                sid,
                f"{hops} hop{'s' if hops != 1 else ''} to the target",
                attrs.get("path", ""),
                attrs.get("start", 0),
            )
        )
    return out[: NEAREST * 2]


def _common_prefix(a: str, b: str) -> list[str]:
    return [x for x, y in itertools.takewhile(lambda p: p[0] == p[1], zip(a.split("."), b.split(".")))]


def call_paths(
    atlas: Atlas,
    source_name: str,
    target_name: str,
    framework: str | None,
    pin_set: str,
    via: tuple[str, ...] = (),
    avoid: tuple[str, ...] = (),
    k: int = 1,
    exact: bool = False,
) -> PathAnswer:
    """The `k` best call paths from `source_name` to `target_name` through every `via` (in order) and no `avoid`
    symbol. An op or C++ function as the target is followed down the kernel layer to the kernel it launches
    unless `exact`; a method that only raises NotImplementedError, with no callers, is reached through the overrides
    that implement it."""
    found = locate(atlas, source_name, framework, pin_set)
    fw, source = found.framework, found.id
    graph = atlas.graph(fw, pin_set)
    notes = [found.note] if found.note else []
    target, note = _target(graph, atlas.index(fw, pin_set), target_name, source)
    notes += [note] if note else []
    stops = [source, *(locate(atlas, v, fw, pin_set).id for v in via), target]
    avoided = frozenset(locate(atlas, a, fw, pin_set).id for a in avoid)
    budget = k if k == 1 else max(3 * k, CANDIDATES)
    chains = _chains(graph, stops, budget, avoided)
    if not chains and target in graph.stubs and not graph.callers(target):  # calls that may reach it are drawn to
        for override in graph.stubs[target]:  # the overrides that implement it (AtlasGraph.stubs)
            chains += _chains(graph, [*stops[:-1], override], budget, avoided)
        notes.append(
            f"{target} only raises NotImplementedError and no call is drawn to it: the paths go to the overrides "
            f"that implement it ({len(graph.stubs[target])})"
        )
    end_kind, end_path, end_line = "", "", 0
    if chains and not exact and target.startswith(("op:", "cpp:", "jit:")):
        below = graph.kernel_below(target)[1:]
        chains = [c + below for c in chains]
    if chains:
        last = graph.node(chains[0][-1])
        if last.get("path") and last.get("kind") in KINDS:
            end_kind, end_path, end_line = KINDS[last["kind"]], last["path"], last["start"]
    ranked = sorted(
        (CallPath(_hops(graph, c)) for c in chains),
        key=lambda p: (-round(p.confidence, 2), -round(p.joint, 4), len(p.hops)),
    )
    paths = ranked[:k]
    return PathAnswer(
        PinRef.of(graph.pin, pin_set),
        source,
        target,
        tuple(stops[1:-1]),
        tuple(sorted(avoided)),
        tuple(paths),
        end_kind,
        end_path,
        end_line,
        () if paths else tuple(_near(graph, source, target, avoided)),
        tuple(notes),
    )
