"""What the pages need of an engine's call graph on every build, small enough to keep in the build's memo: its
components, each component's most connected symbols, its number of edges and its nodes outside the symbol index.
Made once per engine fingerprint (atlas.render.site), so a rebuild whose other units are kept never loads the graph."""

from __future__ import annotations

from dataclasses import dataclass, field

from atlas.render import graphdata

PAGED = 30  # per component, the most connected symbols get a page of their own; the rest open in the browser


@dataclass(frozen=True, slots=True)
class GraphSummary:
    components: tuple[str, ...] = ()  # the component names the nodes carry, sorted
    members: dict[str, list[str]] = field(default_factory=dict)  # component -> its PAGED most connected nodes
    num_edges: int = 0
    outside: dict[str, dict] = field(default_factory=dict)  # node -> attributes, for nodes that are not symbols of
    # the index (external names, ops)


def summarize(graph, symbols) -> GraphSummary:
    """The summary of a networkx call graph (an empty one when the graph is not built)."""
    if graph is None:
        return GraphSummary()
    names = tuple(graphdata.components(graph))
    return GraphSummary(names, {c: graphdata.members(graph, c, PAGED) for c in names}, graph.number_of_edges(),
                        {n: attrs for n, attrs in graph.nodes(data=True) if n not in symbols})
