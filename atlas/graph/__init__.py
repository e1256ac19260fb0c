"""The Python index and call graph of a pinned tree: resolution, components, build, storage, queries.

Contracts other stages build on:
- `load_index(settings, framework, pin_set="default") -> Index`: `Index.symbols` (id -> Symbol: every module,
  class, function, method and attribute), `.pin`, `.root` (the checkout), `.get(id)`, `.find(name)` (ids equal to
  `name` or ending in `.name`), `.resolve(name)` (one id, or SymbolNotFound listing candidates), `.source(path)`.
- `load_graph(settings, framework, pin_set="default") -> AtlasGraph`: a networkx MultiDiGraph (node id = symbol
  id; node attrs kind, path, start, end, signature, component; edge attrs provenance, confidence, path, line), the
  unresolved call sites, and queries callers/callees(depth)/path/edges.
- `load_symbols(settings, framework, pin_set="default") -> Index`: the same index from the parse stage alone (no
  call resolution), for `atlas check` and `atlas diff`; the full build's when that is current.
- Both build on demand with `build(settings, framework, pin_set)` (the `atlas index` verb) when missing;
  `build_many(settings, frameworks, pin_set)` builds several trees side by side.
Ids are dotted import paths (`vllm.v1.core.sched.scheduler.Scheduler.schedule`); see atlas.parse.python."""

from atlas.graph.build import BuildReport, build, build_many, load_graph, load_index
from atlas.graph.index import Index
from atlas.graph.queries import AtlasGraph
from atlas.graph.symbols import is_built, load_symbols

__all__ = [
    "AtlasGraph",
    "BuildReport",
    "Index",
    "build",
    "build_many",
    "load_graph",
    "is_built",
    "load_index",
    "load_symbols",
]
