"""What the pages need of an engine's index and call graph on every build, small enough to keep in the build's memo:
the graph's components, each component's most connected symbols, its number of edges and its nodes outside the
index, and the number of symbols. Made once per engine fingerprint (atlas.render.site), so a rebuild whose other
units are kept loads neither the index nor the graph."""

from __future__ import annotations

from dataclasses import dataclass, field

from atlas.render import graphdata

PAGED = 30  # per component, the most connected symbols get a page of their own; the rest open in the browser


@dataclass(frozen=True, slots=True)
class EngineSummary:
    components: tuple[str, ...] = ()  # the component names the nodes carry, sorted
    members: dict[str, list[str]] = field(default_factory=dict)  # component -> its PAGED most connected nodes
    num_edges: int = 0
    num_symbols: int = 0
    outside: dict[str, dict] = field(default_factory=dict)  # node -> attributes, for nodes that are not symbols of
    # the index (external names, ops)


def summarize(graph, symbols) -> EngineSummary:
    """The summary of an engine's symbols and networkx call graph (None when the graph is not built)."""
    if graph is None:
        return EngineSummary(num_symbols=len(symbols))
    names = tuple(graphdata.components(graph))
    return EngineSummary(
        names,
        {c: graphdata.members(graph, c, PAGED) for c in names},
        graph.number_of_edges(),
        len(symbols),
        {n: attrs for n, attrs in graph.nodes(data=True) if n not in symbols},
    )
