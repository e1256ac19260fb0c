"""Expressions for the Python walker: tree-sitter expression and target nodes -> the IR of atlas.parse.python.ir
(calls with their sites, displays with allocation ids, lambdas as scopes, comprehensions as loops in the enclosing
scope), parameters, and the types an annotation names."""

from __future__ import annotations

import re
import sys
from typing import Any, Final

from atlas.model import SymbolKind
from atlas.parse.python.grammar import (
    ANNOT_WRAPPERS,
    BINARY_METHODS,
    CLASS_WRAPPERS,
    COMPARISON_METHODS,
    CONTAINER_ANNOTATIONS,
    DOTTED,
    F_ARGUMENT,
    F_ARGUMENTS,
    F_ATTRIBUTE,
    F_BODY,
    F_FUNCTION,
    F_KEY,
    F_LEFT,
    F_NAME,
    F_OBJECT,
    F_OPERATOR,
    F_PARAMETERS,
    F_RIGHT,
    F_TYPE,
    F_VALUE,
    FORMAT_CONVERSIONS,
    UNARY_METHODS,
)
from atlas.parse.python.ir import (
    UNKNOWN,
    Annotation,
    Assign,
    Attribute,
    Call,
    Constant,
    ConstantValue,
    DictDisplay,
    DictEntry,
    Display,
    Either,
    Elements,
    Evaluate,
    Expr,
    For,
    If,
    Keyword,
    Lambda,
    Loop,
    Name,
    NameTarget,
    Operation,
    Param,
    Return,
    Scope,
    Site,
    Slice,
    Starred,
    StarTarget,
    Stmt,
    Subscript,
    Target,
    Unknown,
    Unpack,
    Yield,
)
from atlas.parse.python.walk import FileWalk

_JIT_NAMES: Final = ("triton.jit", "jit")
_CONSTANTS: Final[dict[str, ConstantValue]] = {"true": True, "false": False, "none": None, "float": 0.0}


def target(w: FileWalk, node: Any) -> Target:
    t: str = node.type
    if t == "identifier":
        name = w.name(node)
        name = w.renames.get(name, name) if w.renames else name
        w.bind(name)
        return NameTarget(name)
    if t == "attribute":
        return Attribute(expr(w, node.child_by_field_id(F_OBJECT)), w.name(node.child_by_field_id(F_ATTRIBUTE)))
    if t == "subscript":
        return Subscript(expr(w, node.child_by_field_id(F_VALUE)), index(w, node), node.start_point[0] + 1)
    if t in ("pattern_list", "tuple_pattern", "list_pattern", "expression_list", "tuple", "list"):
        return Unpack(tuple(target(w, c) for c in kids(node)))
    inner = first(node)
    if t in ("list_splat_pattern", "list_splat") and inner is not None:
        return StarTarget(target(w, inner))
    if t == "parenthesized_expression" and inner is not None:
        return target(w, inner)
    rest(w, node)
    return UNKNOWN


def expr(w: FileWalk, node: Any) -> Expr:
    t: str = node.type
    if t == "identifier":
        name = sys.intern(w.chars[node.start_byte : node.end_byte]) if w.ascii else w.name(node)
        return Name(w.renames.get(name, name) if w.renames else name)
    if t == "attribute":
        attribute = node.child_by_field_id(F_ATTRIBUTE)
        value = expr(w, node.child_by_field_id(F_OBJECT))
        attr = sys.intern(w.chars[attribute.start_byte : attribute.end_byte]) if w.ascii else w.name(attribute)
        if w.narrowed and isinstance(value, Name):
            name = f"{value.id}.{attr}"
            if name in w.narrowed:
                return Name(sys.intern(name))
        return Attribute(value, attr)
    if t == "call":
        return call(w, node)
    if t == "string" or t == "concatenated_string":
        return string(w, node, t)
    if t == "integer":
        try:
            return Constant(int(w.text(node), 0))
        except ValueError:
            return UNKNOWN
    if t in _CONSTANTS:
        return Constant(_CONSTANTS[t])
    if t == "subscript":
        return subscript(w, node)
    if t in ("list", "tuple", "set", "expression_list"):
        return Display(tuple(element(w, c) for c in kids(node)), w.alloc(node))
    if t == "dictionary":
        entries: list[DictEntry] = []
        for c in node.named_children:
            if c.type == "pair":
                entries.append(DictEntry(expr(w, c.child_by_field_id(F_KEY)), expr(w, c.child_by_field_id(F_VALUE))))
            elif c.type == "dictionary_splat" and c.named_children:
                entries.append(DictEntry(None, expr(w, c.named_children[0])))
        return DictDisplay(tuple(entries), w.alloc(node))
    if t in ("parenthesized_expression", "await", "type"):
        inner = first(node)
        return expr(w, inner) if inner is not None else UNKNOWN
    if t == "lambda":
        return lambda_expr(w, node)
    if t in ("conditional_expression", "boolean_operator"):
        return either(w, node, t)
    if t == "binary_operator":
        method, reflected = BINARY_METHODS.get(node.child_by_field_id(F_OPERATOR).type, ("", ""))
        operands = (expr(w, node.child_by_field_id(F_LEFT)), expr(w, node.child_by_field_id(F_RIGHT)))
        return (
            Operation(method, operands, reflected, method == "__add__", node.start_point[0] + 1)
            if method
            else evaluated(w, operands, node)
        )
    if t == "comparison_operator":
        return comparison(w, node)
    if t == "unary_operator":
        method = UNARY_METHODS.get(node.child_by_field_id(F_OPERATOR).type, "")
        operand = expr(w, node.child_by_field_id(F_ARGUMENT))
        return (
            Operation(method, (operand,), "", False, node.start_point[0] + 1)
            if method
            else evaluated(w, (operand,), node)
        )
    if t == "not_operator":  # takes the operand's truth value: its __bool__ (atlas.graph.resolve.expressions.operation)
        operand = expr(w, node.child_by_field_id(F_ARGUMENT))
        return Operation("__bool__", (operand,), "", False, node.start_point[0] + 1)
    if t in ("list_comprehension", "set_comprehension", "generator_expression", "dictionary_comprehension"):
        return comprehension(w, node)
    if t == "named_expression":  # binds in the enclosing function, even inside a comprehension
        value = expr(w, node.child_by_field_id(F_VALUE))
        name = w.name(node.child_by_field_id(F_NAME))
        w.bind(name)
        w.emit(Assign((NameTarget(name),), value, (), node.start_point[0] + 1))
        return value
    if t == "yield":
        return yield_expr(w, node)
    if t in ("list_splat", "dictionary_splat") and first(node) is not None:
        return Elements(expr(w, first(node)))
    if t == "keyword_argument":
        return expr(w, node.child_by_field_id(F_VALUE))
    return rest(w, node)


def kids(node: Any) -> list[Any]:
    """The node's named children less comments (a comment may sit anywhere inside brackets)."""
    return [c for c in node.named_children if c.type != "comment"]


def first(node: Any) -> Any:
    """The node's first named child that is no comment, or None."""
    for c in node.named_children:
        if c.type != "comment":
            return c
    return None


def rest(w: FileWalk, node: Any) -> Expr:
    """A node the IR does not model (a slice, a syntax error's pieces, a newer construct): its value is not
    followed, but the calls inside it run all the same, so its parts are evaluated where it stands."""
    line = node.start_point[0] + 1
    for c in kids(node):
        e = expr(w, c)
        if not isinstance(e, (Name, Constant, Unknown)):
            w.emit(Evaluate(e, line))
    return UNKNOWN


def index(w: FileWalk, node: Any) -> Expr:
    """The index of subscript `node`: one expression, else (`x[a, b:c]`) a value the IR does not follow, its parts
    evaluated."""
    subs = kids(node)[1:]
    if len(subs) == 1:
        return expr(w, subs[0])
    line = node.start_point[0] + 1
    for sub in subs:
        e = expr(w, sub)
        if not isinstance(e, (Name, Constant, Unknown)):
            w.emit(Evaluate(e, line))
    return UNKNOWN


def evaluated(w: FileWalk, operands: tuple[Expr, ...], node: Any) -> Expr:
    """The operands' calls run (where a statement before this one evaluates them); the result is a value the IR does
    not follow (`not x`, `a is b`)."""
    for e in operands:
        if not isinstance(e, (Name, Constant, Unknown)):
            w.emit(Evaluate(e, node.start_point[0] + 1))
    return UNKNOWN


def comparison(w: FileWalk, node: Any) -> Expr:
    """`a < b`, `x in c`, chains of them: each pair an Operation (`in` asks the container, `__contains__`); a
    chain's are evaluated first, its value a bool the IR does not follow."""
    operands: list[Expr] = []
    operators: list[str] = []
    for c in node.children:
        if c.type == "comment":
            continue
        if c.is_named:
            operands.append(expr(w, c))
        elif operators and len(operators) >= len(operands):  # `not in`, `is not`: one operator of two words
            operators[-1] += " " + c.type
        else:
            operators.append(c.type)
    line = node.start_point[0] + 1
    pairs: list[Expr] = []
    for op, (left, right) in zip(operators, zip(operands, operands[1:])):
        if op in ("in", "not in"):
            pairs.append(Operation("__contains__", (right, left), "", False, line))
        elif op in COMPARISON_METHODS:
            method, reflected = COMPARISON_METHODS[op]
            pairs.append(Operation(method, (left, right), reflected, False, line))
        else:  # is, is not
            pairs.append(evaluated(w, (left, right), node))
    if len(pairs) == 1:
        return pairs[0]
    return evaluated(w, tuple(pairs), node)


def string(w: FileWalk, node: Any, t: str) -> Expr:
    """A plain string is a constant (its first piece: enough for a name dispatched by string); the calls an
    f-string's interpolations make are evaluated (in each piece of a concatenation)."""
    parts = node.named_children
    if t == "string":
        content = None
        for c in parts:
            ct: str = c.type
            if ct == "interpolation":
                break
            if ct == "string_content" and content is None:
                content = c
        else:
            return Constant(w.text(content) if content is not None else "")
    for c in parts:
        if c.type == "interpolation":
            interpolation(w, c)
        elif c.type == "string":
            string(w, c, "string")
    return Constant("")


def interpolation(w: FileWalk, node: Any) -> None:
    """`{value!r:spec}` in an f-string: Python formats the value, through `__repr__` / `__str__` for a conversion
    (and `__repr__` for a bare `{value=}`), else `__format__` (object's calls `__str__`: the resolver falls back
    to it); interpolations inside the spec are formatted too."""
    parts = node.named_children
    if not parts:
        return
    method = "__repr__" if any(c.type == "=" for c in node.children) else "__format__"
    for c in parts[1:]:
        if c.type == "type_conversion":
            method = FORMAT_CONVERSIONS.get(w.text(c), "__format__")
        elif c.type == "format_specifier":
            if method == "__repr__" and not any(p.type == "type_conversion" for p in parts):
                method = "__format__"  # `{value=:spec}` formats the value with the spec
            for nested in c.named_children:
                if nested.type in ("interpolation", "format_expression"):
                    interpolation(w, nested)
    line = parts[0].start_point[0] + 1
    w.emit(Evaluate(Operation(method, (expr(w, parts[0]),), "", False, line), line))


def subscript(w: FileWalk, node: Any) -> Expr:
    value = expr(w, node.child_by_field_id(F_VALUE))
    subs = kids(node)[1:]
    if len(subs) == 1 and subs[0].type == "slice":
        bounds: list[Expr | None] = [None, None]
        seen = 0
        for c in subs[0].children:
            if c.type == ":":
                seen += 1
            elif c.type == "comment":
                continue
            elif seen < 2:
                bounds[seen] = expr(w, c)
            else:  # the step: not followed, its calls run
                step = expr(w, c)
                if not isinstance(step, (Name, Constant, Unknown)):
                    w.emit(Evaluate(step, node.start_point[0] + 1))
        return Slice(value, bounds[0], bounds[1], node.start_point[0] + 1)
    return Subscript(value, index(w, node), node.start_point[0] + 1)


def either(w: FileWalk, node: Any, t: str) -> Expr:
    """`a if c else b` -> one of a, b (the condition evaluated, conditionally, as it is); `a or b`, `a and b` -> one
    of their operands."""
    operands = [expr(w, c) for c in kids(node)]
    if t == "conditional_expression" and len(operands) == 3:
        line = node.start_point[0] + 1
        w.emit(If(((Evaluate(operands[1], line),),), False, line))
        return Either((operands[0], operands[2]))
    return Either(tuple(operands))


def element(w: FileWalk, node: Any) -> Expr:
    inner = first(node) if node.type == "list_splat" else None
    return Starred(expr(w, inner)) if inner is not None else expr(w, node)


def call(w: FileWalk, node: Any) -> Call:
    func = node.child_by_field_id(F_FUNCTION)
    fexpr = expr(w, func)
    if isinstance(fexpr, Name):
        w.scope.called_names.add(fexpr.id)
    args: list[Expr] = []
    keywords: list[Keyword] = []
    arguments = node.child_by_field_id(F_ARGUMENTS)
    if arguments is not None and arguments.type == "generator_expression":
        args.append(expr(w, arguments))
    elif arguments is not None:
        for a in arguments.named_children:
            t: str = a.type
            if t == "keyword_argument":
                keywords.append(Keyword(w.name(a.child_by_field_id(F_NAME)), expr(w, a.child_by_field_id(F_VALUE))))
            elif t == "list_splat" and first(a) is not None:
                args.append(Starred(expr(w, first(a))))
            elif t == "dictionary_splat" and first(a) is not None:
                keywords.append(Keyword(None, expr(w, first(a))))
            elif t != "comment":
                args.append(expr(w, a))
    text = w.text(func)
    start, end = node.start_point, node.end_point
    site = Site(start[0] + 1, end[0] + 1, text if len(text) < 120 else text[:117] + "...", start[1], end[1])
    jit = fexpr.func if isinstance(fexpr, Call) else fexpr  # triton.jit(fn) or triton.jit(**options)(fn)
    if args and isinstance(args[0], Name) and dotted(jit) in _JIT_NAMES:
        w.jit_calls.add(f"{w.scope.id}.{args[0].id}")
    return Call(fexpr, tuple(args), tuple(keywords), site)


def dotted(e: Expr) -> str:
    """`a.b.c` for a name or an attribute chain over one, else ""."""
    if isinstance(e, Name):
        return e.id
    if isinstance(e, Attribute):
        head = dotted(e.value)
        return f"{head}.{e.attr}" if head else ""
    return ""


def lambda_expr(w: FileWalk, node: Any) -> Lambda:
    owner = w.scope.id
    n = w.lambda_counts.get(owner, 0) + 1
    w.lambda_counts[owner] = n
    sid = sys.intern(f"{owner}.<lambda{n}>")
    params_node = node.child_by_field_id(F_PARAMETERS)
    params = parameters(w, params_node)
    scope = Scope(sid, "lambda", owner, w.module, node.start_point[0] + 1, node.end_point[0] + 1, params=params)
    w.add_symbol(sid, SymbolKind.FUNCTION, node, "lambda " + (w.text(params_node) if params_node is not None else ""))
    saved = w.enter(scope)
    renames = w.renames
    if renames:  # a parameter hides a comprehension variable of the same name
        w.renames = {k: v for k, v in renames.items() if all(p.name != k for p in params)}
    body = node.child_by_field_id(F_BODY)
    if body is not None:
        w.emit(Return(expr(w, body), body.start_point[0] + 1))
    w.renames = renames
    w.leave(saved)
    return Lambda(sid)


def comprehension(w: FileWalk, node: Any) -> Expr:
    """A comprehension is a loop run in the enclosing scope (its calls belong there, as PyCG counts them); its
    value is a new container of its element (or key: value) expression. Its variables are its own, as in Python
    (a name bound by its `for` is another variable than the same name outside it): they are renamed inside it."""
    header: list[Stmt] = []
    body: list[Stmt] = []
    outer = w.renames
    for clause in kids(node):
        if clause.type == "for_in_clause":
            left, right = clause.child_by_field_id(F_LEFT), clause.child_by_field_id(F_RIGHT)
            iterable = expr(w, right)  # (the first iterable with the names around the comprehension)
            if w.renames is outer:
                w.renames = dict(outer)
            for name in bound_names(w, left):
                w.renames[name] = sys.intern(f"{name}@{clause.start_byte}")
            header.append(For(target(w, left), iterable, clause.start_point[0] + 1))
        elif clause.type == "if_clause":
            for c in kids(clause):
                body.append(Evaluate(expr(w, c), c.start_point[0] + 1))
    saved = w.block
    w.block = body
    value_node = node.child_by_field_id(F_BODY) or node.named_children[0]
    if value_node.type == "pair":
        value: Expr = DictDisplay(
            (DictEntry(expr(w, value_node.child_by_field_id(F_KEY)), expr(w, value_node.child_by_field_id(F_VALUE))),),
            w.alloc(node),
        )
    else:
        value = Display((expr(w, value_node),), w.alloc(node))
    w.block = saved
    w.renames = outer
    w.emit(Loop(tuple(header), tuple(body), (), node.start_point[0] + 1))
    return value


def bound_names(w: FileWalk, node: Any) -> list[str]:
    """The names a `for` target binds (`x`, `a, (b, *c)`); attributes and subscripts bind none."""
    t: str = node.type
    if t == "identifier":
        return [w.name(node)]
    if t in (
        "pattern_list",
        "tuple_pattern",
        "list_pattern",
        "expression_list",
        "tuple",
        "list",
        "parenthesized_expression",
        "list_splat_pattern",
        "list_splat",
    ):
        return [name for c in kids(node) for name in bound_names(w, c)]
    return []


def yield_expr(w: FileWalk, node: Any) -> Expr:
    w.scope.is_generator = True
    value = node.named_children[0] if node.named_children else None
    if value is None:
        return UNKNOWN
    e = expr(w, value)
    if w.src[node.start_byte : node.start_byte + 10].replace(b" ", b"").startswith(b"yieldfrom"):
        e = Elements(e)
    w.emit(Yield(e, node.start_point[0] + 1))
    return UNKNOWN


def parameters(w: FileWalk, node: Any) -> tuple[Param, ...]:
    if node is None:
        return ()
    out: list[Param] = []
    for p in node.named_children:
        t: str = p.type
        if t == "identifier":
            out.append(Param(w.name(p), None, (), ""))
        elif t in ("typed_parameter", "typed_default_parameter", "default_parameter"):
            name_node = p.child_by_field_id(F_NAME) or p.named_children[0]
            star = ""
            if name_node.type == "list_splat_pattern":
                star, name_node = "*", name_node.named_children[0]
            elif name_node.type == "dictionary_splat_pattern":
                star, name_node = "**", name_node.named_children[0]
            annot = p.child_by_field_id(F_TYPE)
            default = p.child_by_field_id(F_VALUE)
            out.append(
                Param(
                    w.name(name_node),
                    expr(w, default) if default is not None else None,
                    annotation(w, annot) if annot is not None else (),
                    star,
                )
            )
        elif t == "list_splat_pattern" and p.named_children:
            out.append(Param(w.name(p.named_children[0]), None, (), "*"))
        elif t == "dictionary_splat_pattern" and p.named_children:
            out.append(Param(w.name(p.named_children[0]), None, (), "**"))
    return tuple(out)


def annotation(w: FileWalk, node: Any) -> tuple[Annotation, ...]:
    """The types an annotation names (`types`); the calls it makes (`Annotated[T, Field(...)]`) are evaluated where
    it stands."""
    if node is None:
        return ()
    todo = [node]
    while todo:
        n = todo.pop()
        if n.type == "call":
            w.emit(Evaluate(call(w, n), n.start_point[0] + 1))
        elif n.type != "string":
            todo.extend(reversed(n.named_children))
    return types(w, node)


def types(w: FileWalk, node: Any) -> tuple[Annotation, ...]:
    """The types an annotation names: `X`, `Optional[X]`, `X | None`, `"X"`, `Union[X, Y]`, `type[X]` (the class),
    `list[X]`, `Sequence[X]`, `dict[K, X]` (containers of X)."""
    if node is None:
        return ()
    t: str = node.type
    if t == "type":
        return types(w, node.named_children[0]) if node.named_children else ()
    if t in ("identifier", "attribute"):
        return (Annotation(expr(w, node)),)
    if t == "binary_operator":
        return types(w, node.child_by_field_id(F_LEFT)) + types(w, node.child_by_field_id(F_RIGHT))
    if t in ("subscript", "generic_type"):
        head, args = generic(w, node)
        if head in ANNOT_WRAPPERS or head in CLASS_WRAPPERS:
            out: tuple[Annotation, ...] = ()
            for child in args:
                out += types(w, child)
            return tuple(Annotation(a.type, True, a.container) for a in out) if head in CLASS_WRAPPERS else out
        container = CONTAINER_ANNOTATIONS.get(head, "")
        if container and args:
            elements: tuple[Annotation, ...] = ()
            for child in args[-1:] if container == "dict" else args[:1] if container == "list" else args:
                elements += types(w, child)
            kind = "dict" if container == "dict" else "list"
            return tuple(Annotation(a.type, a.is_class, kind) for a in elements if not a.container)
        return ()
    if t in ("type_parameter", "union_type"):
        found: tuple[Annotation, ...] = ()
        for child in node.named_children:
            found += types(w, child)
        return found
    if t == "string":
        return string_annotation(w.text(node).strip("\"'"))
    return ()


def generic(w: FileWalk, node: Any) -> tuple[str, list[Any]]:
    """A subscripted annotation (`Optional[X]`, `typing.TypeIs[X]`): the last part of its head's name, and its
    arguments' nodes."""
    head = w.text(node.child_by_field_id(F_VALUE) or node.named_children[0]).rsplit(".", 1)[-1]
    args = [c for c in node.named_children[1:] if c.type != "comment"]
    if len(args) == 1 and args[0].type == "type_parameter":
        args = list(args[0].named_children)
    return head, args


def string_annotation(raw: str) -> tuple[Annotation, ...]:
    """The types a quoted annotation names; a name inside `type[...]` is the class itself, one inside a container
    (`list[...]`) the container's elements."""
    out = []
    for match in _PART.finditer(raw):
        name = match.group(0).strip()
        last = name.rsplit(".", 1)[-1]
        if (
            not DOTTED.match(name)
            or last in ANNOT_WRAPPERS
            or last in CLASS_WRAPPERS
            or name == "None"
            or last in CONTAINER_ANNOTATIONS
        ):
            continue
        before = raw[: match.start()]
        is_class = _CLASS_OF.search(before) is not None
        container = _CONTAINER_OF.search(before)
        kind = CONTAINER_ANNOTATIONS.get(container.group(1), "") if container else ""
        out.append(Annotation(dotted_expr(name), is_class, "dict" if kind == "dict" else "list" if kind else ""))
    return tuple(out)


def dotted_expr(name: str) -> Expr:
    parts = name.split(".")
    e: Expr = Name(sys.intern(parts[0]))
    for p in parts[1:]:
        e = Attribute(e, sys.intern(p))
    return e


_PART = re.compile(r"[^|,\[\]]+")
_CLASS_OF = re.compile(r"\b(?:typing\.)?[Tt]ype\[\s*$")
_CONTAINER_OF = re.compile(r"\b(?:typing\.|collections\.abc\.)?(\w+)\[\s*(?:[^\[\],]+,\s*)?$")
