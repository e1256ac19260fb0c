"""Call resolution: an abstract interpreter over the scope IR of every module (atlas.parse.python.facts).

Values are tuples: ('f', id) function, ('bm', id, receiver) bound method, ('c', id) class, ('i', id) instance,
('r', id) an instance a dispatch rule names (atlas.graph.resolve.rules: calls through it are DISPATCH edges),
('m', id) module, ('x', name) external name, ('xr', library) an object a library call returned,
('b', name) builtin, ('bt', name) method of a builtin type,
('k', constant), ('o', alloc) list/tuple/dict object, ('g', id) generator, ('sup', class id) super().
Cells hold the values written to variables, attributes, container slots, parameters and returns; each write
remembers its scope, statement line and whether it ran unconditionally, so a read later in the same scope sees
the last unconditional write and what follows it (flow-sensitive within a scope, flow-insensitive across scopes).
Scopes are evaluated in rounds; after the first, a statement runs again only when a cell it read changed since it
last ran, until nothing grows (a fixpoint) or `max_rounds` is reached.

Modules by role: state (what the parts share), solver (set-up, rounds, statements), cells (write/read), names
(lookup, attributes, MRO), values (expressions), summaries (higher-order calls), calls (invocation, edges), bindings
(assignment, def, class), dispatch (by-name calls), rules (dispatch rules as data). cpp/ holds the same solver in C++
(native: NativeSolver, make_solver), which real builds use when it is built."""

import atlas.parse.python  # noqa: F401 - its guard (atlas.parse.python.compiled) runs before a compiled module loads
from atlas.graph.resolve.native import NativeSolver, make_solver
from atlas.graph.resolve.solver import Solver
from atlas.graph.resolve.state import Resolution

__all__ = ["NativeSolver", "Resolution", "Solver", "make_solver"]
