"""A statement pattern read from inside a function its code moved into (the helper and typed-helper rules of
atlas.diff.suggest): at a call `self.allocator.check(tree_cache=self.tree_cache)` the receiver becomes the callee's
`self` and each argument the parameter it is bound to, so `self.allocator.size() >= n` reads `self.size() >= n`.
Pure: syntax nodes in, pattern texts out."""

from __future__ import annotations

import ast
import copy
from functools import lru_cache

from atlas.diff.variants import statement_text

Rewrite = tuple[tuple[str, str], ...]  # (expression as the caller writes it, the callee's name for it)


def bindings(call: ast.Call, func: ast.FunctionDef | ast.AsyncFunctionDef) -> Rewrite:
    """What the caller's expressions are called inside `func` at this call: the receiver of `recv.method(...)` is
    the method's first parameter, each positional argument its parameter, each keyword argument its name. Only
    names and attributes are followed (a constant or a computed value has no name to carry over)."""
    params = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    keywords = {*params, *(a.arg for a in func.args.kwonlyargs)}
    out: dict[str, str] = {}
    if isinstance(call.func, ast.Attribute) and params and params[0] in ("self", "cls"):
        out[ast.unparse(call.func.value)] = params[0]
        params = params[1:]
    for arg, param in zip(call.args, params):
        if isinstance(arg, ast.Starred):
            break
        out[ast.unparse(arg)] = param
    for kw in call.keywords:
        if kw.arg in keywords:
            out[ast.unparse(kw.value)] = kw.arg
    return tuple((k, v) for k, v in out.items() if k != v and _is_named(k))


@lru_cache(maxsize=65536)
def rebase(pattern: str, rewrite: Rewrite) -> str:
    """The pattern with each expression the caller names replaced by the callee's name for it, outermost first
    (`self.allocator.size()` with `self.allocator` -> `self` gives `self.size()`); the pattern itself when nothing
    is replaced."""
    if not rewrite:
        return pattern
    names = dict(rewrite)
    try:
        root = ast.parse(pattern.strip()).body[0]
    except SyntaxError:
        return pattern
    tree = copy.deepcopy(root)
    if not _replace(tree, names):
        return pattern
    node = tree.value if isinstance(tree, ast.Expr) else tree
    return statement_text(node)


def _replace(node: ast.AST, names: dict[str, str]) -> bool:
    done = False
    for field, value in ast.iter_fields(node):
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            if not isinstance(item, ast.AST):
                continue
            new = _renamed(item, names)
            if new is not None:
                if isinstance(value, list):
                    value[i] = new
                else:
                    setattr(node, field, new)
                done = True
            else:
                done = _replace(item, names) or done
    return done


def _renamed(node: ast.AST, names: dict[str, str]) -> ast.expr | None:
    if not isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
        return None
    name = names.get(ast.unparse(node))
    return ast.Name(name, ctx=getattr(node, "ctx", ast.Load())) if name else None


def _is_named(text: str) -> bool:
    """A dotted name (`x`, `self.tree_cache`): what a callee can still call by a name of its own."""
    return all(part.isidentifier() for part in text.split("."))
