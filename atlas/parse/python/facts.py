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

from collections.abc import Callable
from dataclasses import dataclass, field

from atlas.model import Span, Symbol, SymbolKind


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
    called_names: set = field(default_factory=set)  # every `name(...)` met while filling the scope (a superset of
    # the direct calls its statements hold: a quick test before looking through them)


@dataclass(slots=True)
class ModuleFacts:
    """Everything one file says: its symbols for the index and its scopes for call resolution."""

    module: str
    path: str
    is_package: bool
    symbols: list[Symbol]
    scopes: list[Scope]
    num_lines: int


_KINDS = {k.value: k for k in SymbolKind}


def pack(facts: ModuleFacts) -> tuple:
    """`facts` as nested tuples of plain values (marshal-able: a parse worker sends them and the cache stores them
    without pickling dataclasses, which costs more than the parse)."""
    return (facts.module, facts.path, facts.is_package, facts.num_lines,
            tuple((s.id, s.kind.value, *_lines(s.span), s.signature, s.decorators, s.bases) for s in facts.symbols),
            pack_scopes(facts.scopes))


def pack_scopes(scopes: list[Scope]) -> tuple:
    return tuple((c.id, c.kind, c.parent, c.module, c.start, c.end, c.params, c.decorators, c.decorator_names, c.bases,
                  c.returns, c.is_generator, c.local_names, c.global_names, c.statements, c.called_names)
                 for c in scopes)


def _lines(span: Span | None) -> tuple[int, int]:
    assert span is not None  # every symbol the parser makes has its span
    return span.start, span.end


def unpack(data: tuple, component: Callable[[str], str] | None = None) -> ModuleFacts:
    """The ModuleFacts `pack` flattened; `component` (symbol id -> component name) tags the symbols on the way."""
    module, path, is_package, num_lines, symbols, scopes = data
    kinds = _KINDS
    return ModuleFacts(
        module, path, is_package,
        [Symbol(sid, kinds[kind], Span(path, start, end), signature, decorators, bases,
                component(sid) if component else "")
         for sid, kind, start, end, signature, decorators, bases in symbols],
        [Scope(*row) for row in scopes], num_lines)
