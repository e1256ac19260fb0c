"""The variants of a statement pattern that the relaxed, setter, renamed-variable, keyword, walrus and attribute
rules of atlas.diff.suggest look for, and the fill-back of a relaxed match into a precise pattern. Pure: patterns in,
pattern texts out (the pattern language is atlas.annotate.pattern's)."""

from __future__ import annotations

import ast
import copy
import keyword
import re

from atlas.annotate.pattern import compile_pattern

MAX_PATTERN = 160  # a suggested pattern longer than this keeps the relaxed form instead of the new code's text
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
COMMON = frozenset(
    {"self", "cls", "len", "int", "str", "list", "dict", "set", "max", "min", "sum", *keyword.kwlist}
)  # names too common to say which code a pattern means


def relaxations(pattern: str):
    """(pattern with one part replaced by `...`, whether that part was a constant), most specific first: constants,
    then names and attributes, then larger expressions. Patterns left with no name of 3+ letters are skipped."""
    root = compile_pattern(pattern).node
    parts = [
        n
        for n in ast.walk(root)
        if isinstance(n, ast.expr) and n is not root and not (isinstance(n, ast.Constant) and n.value is Ellipsis)
    ]
    parts.sort(
        key=lambda n: (
            not isinstance(n, ast.Constant),
            not isinstance(n, (ast.Name, ast.Attribute)),
            len(ast.unparse(n)),
        )
    )
    seen = set()
    for part in parts:
        tree = copy.deepcopy(root)
        target = _same_node(root, tree, part)
        if target is None:
            continue
        _replace(tree, target)
        text = _unparse_pattern(tree)
        if text in seen or text == pattern or not (set(WORD.findall(text)) - COMMON):
            continue
        seen.add(text)
        try:
            compile_pattern(text)
        except ValueError:
            continue
        yield text, isinstance(part, ast.Constant)


def filled(orig: str, relaxed: str, node: ast.AST) -> str:
    """The relaxed pattern with the part it left open (`...` where the original pattern had code) taken from the
    matched code, the original's own `...` kept: `flash_attn_varlen_func(..., causal=causal)` relaxed to
    `...(..., causal=causal)` and matched gives `new_name(..., causal=causal)`. "" when the shapes differ."""
    try:
        a, b = compile_pattern(orig).node, copy.deepcopy(compile_pattern(relaxed).node)
    except ValueError:
        return ""
    if type(a) is not type(b) or not _fill(a, b, node):
        return ""
    text = _unparse_pattern(b)
    return text if len(text) <= MAX_PATTERN else ""


def _fill(orig, relaxed, node) -> bool:
    """Fill `relaxed` in place; True when a hole was filled somewhere below."""
    done = False
    for name in relaxed._fields:
        r, o, n = getattr(relaxed, name, None), getattr(orig, name, None), getattr(node, name, None)
        if isinstance(r, list):
            if not (isinstance(o, list) and isinstance(n, list) and len(r) == len(o) == len(n)):
                continue
            for i, (ri, oi, ni) in enumerate(zip(r, o, n)):
                if _is_hole(ri, oi) and isinstance(ni, ast.AST):
                    r[i], done = copy.deepcopy(ni), True
                elif isinstance(ri, ast.AST) and type(ri) is type(oi) is type(ni):
                    done = _fill(oi, ri, ni) or done
        elif isinstance(r, ast.AST):
            if _is_hole(r, o) and isinstance(n, ast.AST):
                setattr(relaxed, name, copy.deepcopy(n))
                done = True
            elif type(r) is type(o) is type(n):
                done = _fill(o, r, n) or done
    return done


def _is_hole(relaxed, orig) -> bool:
    ellipsis = isinstance(relaxed, ast.Constant) and relaxed.value is Ellipsis
    return ellipsis and not (isinstance(orig, ast.Constant) and orig.value is Ellipsis)


def keyword_forms(pattern: str):
    """The forms of `_keyword_forms` that still name something (`if ...: ...` would match any `if`)."""
    seen = set()
    for form in _keyword_forms(pattern):
        if form not in seen and form != pattern and set(WORD.findall(form)) - COMMON:
            seen.add(form)
            yield form


def _keyword_forms(pattern: str):
    """The pattern with one named part changed: `obj.attr = VALUE` as a call passing `attr=VALUE` (a setting
    written through a setter call, e.g. `declare_resolution(server_args, ..., attr=VALUE)`); the value of an
    assignment alone (a renamed variable); a walrus unrolled; a call without one keyword argument; a condition
    without one of its `and`/`or` terms, or with one more."""
    node = compile_pattern(pattern).node
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute):
        yield f"...(..., {node.targets[0].attr}={ast.unparse(node.value)})"
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and len(ast.unparse(node.value)) > 12:
        yield ast.unparse(node.value)  # the value assigned to a renamed variable: matches wherever it appears
    for walrus in [n for n in ast.walk(node) if isinstance(n, ast.NamedExpr)]:  # `if (f := E) or ...` unrolled
        yield f"{ast.unparse(walrus.target)} = {ast.unparse(walrus.value)}"
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
    for c, call in enumerate(calls):  # a keyword argument dropped or renamed: the call without it
        for k in range(len(call.keywords)):
            tree = copy.deepcopy(node)
            del [n for n in ast.walk(tree) if isinstance(n, ast.Call)][c].keywords[k]
            yield _unparse_pattern(tree)
    if isinstance(node, (ast.If, ast.While, ast.Assert)):  # the condition gained a term: `assert C` -> `assert C or X`
        for op in ("or", "and"):
            test = _unparse_pattern(node.test)
            for grown in (f"({test}) {op} ...", f"... {op} ({test})"):
                tree = copy.deepcopy(node)
                tree.test = ast.parse(grown, mode="eval").body
                yield _unparse_pattern(tree)
    conditions = [n for n in ast.walk(node) if isinstance(n, ast.BoolOp)]
    for c, condition in enumerate(conditions):  # a condition lost a term: `while (A or B) and C` -> `while C`
        for k in range(len(condition.values)):
            tree = copy.deepcopy(node)
            op = [n for n in ast.walk(tree) if isinstance(n, ast.BoolOp)][c]
            del op.values[k]
            if len(op.values) == 1:
                tree = _put(tree, op, op.values[0])
            yield _unparse_pattern(tree)


def receiver_relaxations(pattern: str):
    """The pattern with the object of one `name.attr` replaced by `...` (`req.x += 1` -> `....x += 1`), which
    matches the attribute on any object, a sub-object (`req.kv.x`) included; and with a call of no arguments
    `f()` read as an attribute `....f` (a function become a property of an object: `is_musa()` ->
    `get_platform().is_musa`)."""
    root = compile_pattern(pattern).node
    for part in ast.walk(root):
        receiver = part.value if isinstance(part, ast.Attribute) else None
        if isinstance(receiver, ast.Name) and receiver.id not in ("self", "cls"):
            tree = copy.deepcopy(root)
            target = _same_node(root, tree, part.value)
            _replace(tree, target)
            yield _unparse_pattern(tree)
        if isinstance(part, ast.Call) and isinstance(part.func, ast.Name) and not part.args and not part.keywords:
            tree = copy.deepcopy(root)
            attribute = ast.Attribute(ast.Constant(Ellipsis), part.func.id, ast.Load())
            yield _unparse_pattern(_put(tree, _same_node(root, tree, part), attribute))


def _same_node(root, copied, part):
    for a, b in zip(ast.walk(root), ast.walk(copied)):
        if a is part:
            return b
    return None


def _put(tree, target, new):
    """`tree` with the node `target` replaced by `new` (the tree itself when it is the target)."""
    if tree is target:
        return new
    for node in ast.walk(tree):
        for name, value in ast.iter_fields(node):
            if value is target:
                setattr(node, name, new)
                return tree
            if isinstance(value, list) and any(item is target for item in value):
                value[[i for i, item in enumerate(value) if item is target][0]] = new
                return tree
    return tree


def _replace(tree, target) -> None:
    """`target`, a node below the root of `tree`, replaced by `...` in place."""
    _put(tree, target, ast.Constant(Ellipsis))


def _unparse_pattern(node) -> str:
    if isinstance(node, (ast.If, ast.While, ast.For, ast.With, ast.AsyncFor, ast.AsyncWith)):
        node = copy.copy(node)
        node.body = [ast.Expr(ast.Constant(Ellipsis))]
        if hasattr(node, "orelse"):
            node.orelse = []
    return re.sub(r"\s*\n\s*", " ", ast.unparse(node))


def statement_text(node: ast.AST) -> str:
    """The matched code as a one-line pattern: a block statement by its header (`if cond: ...`)."""
    return _unparse_pattern(node)
