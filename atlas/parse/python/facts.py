"""The per-file facts the Python parser produces and the resolver consumes: scopes with a small statement IR.

Expressions and statements are plain tuples (cheap to build, pickle and cache by git blob id):

  expression  ('n', name) | ('a', expr, attr) | ('c', func, args, kwargs, site) | ('s', expr, key) |
              ('sl', expr, lo, hi) | ('k', constant) | ('l', elems, alloc) | ('d', pairs, alloc) |
              ('lam', scope_id) | ('u', exprs) | ('it', expr) | ('?',)
              args: expr or ('*', expr); kwargs: (name | None, expr); site: (line, end_line, text)
  annotation  a tuple of expressions, each the type it names, or ('type', expr) for `type[X]` (the class itself)
  target      ('n', name) | ('a', expr, attr) | ('s', expr, key) | ('t', targets) | ('*', target)
  statement   ('=', targets, value, idx, strong, annotations) | ('e', expr, idx) | ('ret', expr) |
              ('y', expr) | ('for', target, iter, idx) | ('raise', expr, idx) |
              ('imp', module, asname, idx, strong) | ('from', module, ((name, asname), ...), idx, strong) |
              ('def', scope_id, name, idx, strong) | ('cls', scope_id, name, idx, strong)

`idx` is the line of the top-level statement of the scope that holds the statement; `strong` says the statement
runs unconditionally in that scope (not under if/for/while/try), so an assignment replaces earlier values.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from atlas.model import Symbol


@dataclass(slots=True)
class Scope:
    """A module, class, function or lambda body."""

    id: str
    kind: str  # module | class | function | lambda
    parent: str  # "" for a module
    module: str
    start: int
    end: int
    params: tuple = ()  # (name, default expr | None, annotation exprs, kind "" | "*" | "**")
    decorators: tuple = ()  # expressions
    decorator_names: tuple[str, ...] = ()  # as written, without "@"
    bases: tuple = ()  # expressions (classes)
    returns: tuple = ()  # annotation expressions
    is_generator: bool = False
    local_names: set = field(default_factory=set)
    global_names: set = field(default_factory=set)
    statements: list = field(default_factory=list)


@dataclass(slots=True)
class ModuleFacts:
    """Everything one file says: its symbols for the index and its scopes for call resolution."""

    module: str
    path: str
    is_package: bool
    symbols: list[Symbol]
    scopes: list[Scope]
    num_lines: int
