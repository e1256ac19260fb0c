"""Statement anchors: a code pattern written as Python, matched structurally against the syntax tree of the
anchored symbol at each pin, so no line number is ever stored by hand.

The language (annotations/README.md has examples): the pattern is one Python expression or statement; names,
attributes, constants and operators must be equal; `...` matches any one expression, or any run of items in a
list (arguments, elements, statements) and `...: ...` any run of dict entries; a call's keyword arguments in the
pattern must be present, others may be added; an empty or `...` block matches any block. `....attr` matches an
attribute `attr` of anything."""

from __future__ import annotations

import ast
import functools
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

_IGNORED = frozenset({"ctx", "type_comment", "kind", "lineno", "col_offset", "end_lineno", "end_col_offset"})
_BLOCKS = frozenset({"body", "orelse", "finalbody", "handlers", "decorator_list", "cases", "type_params"})


@dataclass(frozen=True, slots=True)
class Pattern:
    text: str
    node: ast.AST  # an expression, or a statement when the pattern is one


@functools.lru_cache(maxsize=4096)
def compile_pattern(text: str) -> Pattern:
    """Parse a pattern (once per text: a pattern repeated through a YAML alias is parsed once); a ValueError says
    what is wrong with it."""
    try:
        module = ast.parse(text.strip())
    except SyntaxError as exc:
        hint = (
            "; drop the `...` after keyword arguments: a call pattern's keywords need not be all of them"
            if "follows keyword argument" in (exc.msg or "")
            else "; write one expression or statement, using ... for the parts that may vary"
        )
        raise ValueError(f"pattern {text!r} is not Python ({exc.msg}){hint}") from None
    if len(module.body) != 1:
        raise ValueError(f"pattern {text!r} holds {len(module.body)} statements; write exactly one")
    stmt = module.body[0]
    node = stmt.value if isinstance(stmt, ast.Expr) else stmt
    if _is_wild(node):
        raise ValueError("pattern `...` alone matches everything; name the call, assignment or statement")
    return Pattern(text=text, node=node)


class NodeTable:
    """The nodes of one parsed file by type, in source order, so each pattern looks only at candidates."""

    def __init__(self, tree: ast.AST):
        by_kind: dict[type, list[ast.AST]] = {}
        for node in ast.walk(tree):
            if hasattr(node, "lineno"):
                by_kind.setdefault(type(node), []).append(node)
        self._nodes = {k: sorted(v, key=lambda n: (n.lineno, n.col_offset)) for k, v in by_kind.items()}
        self._starts = {k: [n.lineno for n in v] for k, v in self._nodes.items()}

    def within(self, kind: type, start: int, end: int) -> list[ast.AST]:
        nodes, starts = self._nodes.get(kind, []), self._starts.get(kind, [])
        return [n for n in nodes[bisect_left(starts, start) : bisect_right(starts, end)] if n.end_lineno <= end]


def find(pattern: Pattern, tree: ast.AST | NodeTable, start: int, end: int) -> list[ast.AST]:
    """Every node of `tree` lying within lines start..end (1-based, inclusive) that the pattern matches, in
    source order."""
    table = tree if isinstance(tree, NodeTable) else NodeTable(tree)
    return [n for n in table.within(type(pattern.node), start, end) if _match(pattern.node, n)]


def _is_wild(node) -> bool:
    if isinstance(node, tuple):  # a dict entry: `...: ...` matches any run of entries
        return all(_is_wild(part) for part in node)
    if isinstance(node, ast.Expr):
        node = node.value
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _match(p, n) -> bool:
    if isinstance(p, tuple):
        return isinstance(n, tuple) and len(p) == len(n) and all(_match(a, b) for a, b in zip(p, n))
    if _is_wild(p) and not isinstance(p, ast.stmt):
        return True
    if p is None or n is None or not isinstance(p, ast.AST):
        return p == n and type(p) is type(n)
    if type(p) is not type(n):
        return False
    if isinstance(p, ast.Dict):
        return _match_list(list(zip(p.keys, p.values)), list(zip(n.keys, n.values)))
    for name in p._fields:
        if name in _IGNORED:
            continue
        pv, nv = getattr(p, name, None), getattr(n, name, None)
        if name in _BLOCKS and (pv == [] or (isinstance(pv, list) and len(pv) == 1 and _is_wild(pv[0]))):
            continue
        if isinstance(p, ast.Call) and name == "keywords":
            if not _match_keywords(pv, nv):
                return False
        elif isinstance(pv, list):
            if not isinstance(nv, list) or not _match_list(pv, nv):
                return False
        elif not _match(pv, nv):
            return False
    return True


def _match_list(ps: list, ns: list) -> bool:
    if not ps:
        return not ns
    if _is_wild(ps[0]):
        return any(_match_list(ps[1:], ns[i:]) for i in range(len(ns) + 1))
    return bool(ns) and _match(ps[0], ns[0]) and _match_list(ps[1:], ns[1:])


def _match_keywords(ps: list[ast.keyword], ns: list[ast.keyword]) -> bool:
    by_name = {k.arg: k.value for k in ns}
    return all(k.arg in by_name and _match(k.value, by_name[k.arg]) for k in ps)
