"""Statements for the Python walker: simple statements, `def` and `class` (symbols with signatures and spans,
scopes with parameters, decorators and bases), and compound statements as the structured IR the flow pass reads
(branches, loops, try)."""

from __future__ import annotations

import re
import sys
from typing import Any, Final

from atlas.model import SymbolKind
from atlas.parse.python.expressions import (
    annotation,
    expr,
    first,
    generic,
    index,
    kids,
    parameters,
    rest,
    target,
    yield_expr,
)
from atlas.parse.python.expressions import types as annotated_types
from atlas.parse.python.grammar import (
    BINARY_METHODS,
    F_ALIAS,
    F_ARGUMENT,
    F_ARGUMENTS,
    F_ATTRIBUTE,
    F_BODY,
    F_CONDITION,
    F_CONSEQUENCE,
    F_DEFINITION,
    F_FUNCTION,
    F_KEY,
    F_LEFT,
    F_NAME,
    F_OBJECT,
    F_OPERATOR,
    F_PARAMETERS,
    F_RETURN_TYPE,
    F_RIGHT,
    F_SUPERCLASSES,
    F_TYPE,
    F_VALUE,
    IN_PLACE_METHODS,
    TRITON_DECORATORS,
)
from atlas.parse.python.imports import import_statement
from atlas.parse.python.ir import (
    UNKNOWN,
    Annotation,
    Assign,
    Attribute,
    Break,
    Call,
    Continue,
    Define,
    Display,
    Either,
    Evaluate,
    Exit,
    Expr,
    For,
    If,
    Loop,
    Name,
    NameTarget,
    Narrow,
    Operation,
    Raise,
    Return,
    Scope,
    Site,
    Stmt,
    Subscript,
    Try,
    With,
)
from atlas.parse.python.walk import FileWalk

NOT_FIELDS: Final = re.compile(r"[\"']?(\w+\.)*(ClassVar|InitVar)\b")  # annotations of class names that are no field


def block(w: FileWalk, node: Any) -> None:
    for child in node.named_children:
        statement(w, child)


def statement(w: FileWalk, node: Any) -> None:
    t: str = node.type
    line = node.start_point[0] + 1
    if t == "expression_statement":
        for child in node.named_children:
            expression_statement(w, child)
    elif t in ("function_definition", "class_definition", "decorated_definition"):
        definition(w, node)
    elif t == "return_statement":
        value = first(node)
        if value is not None:
            w.emit(Return(expr(w, value), line))
        w.emit(Exit())
    elif t in ("import_statement", "import_from_statement", "future_import_statement"):
        import_statement(w, node)
    elif t == "raise_statement":
        parts = kids(node)
        if parts:
            w.emit(Raise(expr(w, parts[0]), line))
            for cause in parts[1:]:  # `raise E from cause`
                w.emit(Evaluate(expr(w, cause), line))
        w.emit(Exit())
    elif t in ("global_statement", "nonlocal_statement"):
        names = w.scope.global_names if t == "global_statement" else w.scope.nonlocal_names
        for child in node.named_children:
            if child.type == "identifier":
                names.add(w.name(child))
                w.scope.local_names.discard(w.name(child))
    elif t == "if_statement":
        if_statement(w, node)
    elif t in ("for_statement", "while_statement"):
        loop(w, node, t)
    elif t == "try_statement":
        try_statement(w, node)
    elif t == "with_statement":
        with_statement(w, node)
    elif t == "match_statement":
        match_statement(w, node)
    elif t == "block":
        block(w, node)
    elif t == "break_statement":
        w.emit(Break(line))
    elif t == "continue_statement":
        w.emit(Continue(line))
    elif t in ("assert_statement", "delete_statement", "print_statement", "exec_statement"):
        for child in kids(node):
            w.emit(Evaluate(expr(w, child), line))
        if t == "assert_statement" and node.named_children:
            for check in type_checks(w, node.named_children[0])[0]:
                w.emit(narrowed(w, check, line, asserted=True))
    elif t == "type_alias_statement" and type_call_assignment(w, node):
        pass
    elif t not in ("comment", "pass_statement"):  # any other statement (a syntax error's pieces, `type X = ...`):
        rest(w, node)  # the calls inside it run


def expression_statement(w: FileWalk, node: Any) -> None:
    t: str = node.type
    line = node.start_point[0] + 1
    if t == "assignment":
        assignment(w, node)
    elif t == "augmented_assignment":
        left = node.child_by_field_id(F_LEFT)
        method, reflected = BINARY_METHODS.get(node.child_by_field_id(F_OPERATOR).type.rstrip("="), ("", ""))
        operands = (expr(w, left), expr(w, node.child_by_field_id(F_RIGHT)))  # `a += b` tries a.__iadd__ first
        value = Operation(IN_PLACE_METHODS[method], operands, reflected, True, line) if method else Either(operands)
        w.emit(If(((Assign((target(w, left),), value, (), line),),), False, line))  # `+=` may keep the old value
    elif t == "yield":
        yield_expr(w, node)
    else:
        w.emit(Evaluate(expr(w, node), line))


def assignment(w: FileWalk, node: Any) -> None:
    targets, holders = [], []  # a symbol made by a target spans the assignment that holds it
    annot = value = None
    while node is not None and node.type == "assignment":
        targets.append(node.child_by_field_id(F_LEFT))
        holders.append(node)
        annot = node.child_by_field_id(F_TYPE)
        value = node.child_by_field_id(F_RIGHT)
        if value is None or value.type != "assignment":
            break
        node = value
    annotations = annotation(w, annot) if annot is not None else ()
    checks = None  # `ok = isinstance(x, T) and ...`, the first binding of `ok` here: `if ok:` checks x (name_checks)
    if len(targets) == 1 and targets[0].type == "identifier" and value is not None and value.type in CONDITIONS:
        name = w.name(targets[0])
        scope = w.scope
        if name not in scope.local_names and name not in scope.global_names and name not in scope.nonlocal_names:
            checks = type_checks(w, value)
    if (
        annot is not None
        and w.scope.kind == "class"
        and targets[0].type == "identifier"
        and not NOT_FIELDS.match(w.text(annot))
    ):
        w.scope.fields.append(w.name(targets[0]))
    value_expr = expr(w, value) if value is not None else UNKNOWN
    w.emit(Assign(tuple(target(w, t) for t in targets), value_expr, annotations, holders[0].start_point[0] + 1))
    if checks is not None and (checks[0] or checks[1]):
        w.name_checks(w.name(targets[0]), checks)
    for t, holder in zip(targets, holders):
        attribute_symbols(w, t, annot, holder)


def type_call_assignment(w: FileWalk, node: Any) -> bool:
    """`type(x).name = value`, which the grammar reads as a `type` alias statement (`type` then `(x).name`): the
    assignment to an attribute of what `type(x)` returns. False for a real alias (`type Name = ...`)."""
    parts = kids(node)
    left = first(parts[0]) if len(parts) == 2 else None
    if left is None or left.type not in ("attribute", "subscript"):
        return False
    inner = left
    while inner.type in ("attribute", "subscript"):
        inner = inner.child_by_field_id(F_OBJECT if inner.type == "attribute" else F_VALUE)
    if inner.type != "parenthesized_expression" or first(inner) is None:
        return False
    start, end = node.start_point, inner.end_point
    w.scope.called_names.add("type")
    call = Call(Name("type"), (expr(w, first(inner)),), (), Site(start[0] + 1, end[0] + 1, "type", start[1], end[1]))

    def rebuilt(n: Any) -> Expr:
        if n.type == "attribute":
            return Attribute(rebuilt(n.child_by_field_id(F_OBJECT)), w.name(n.child_by_field_id(F_ATTRIBUTE)))
        if n.type == "subscript":
            return Subscript(rebuilt(n.child_by_field_id(F_VALUE)), index(w, n), n.start_point[0] + 1)
        return call

    holder = rebuilt(left)
    assert isinstance(holder, (Attribute, Subscript))
    w.emit(Assign((holder,), expr(w, first(parts[1])), (), start[0] + 1))
    return True


def attribute_symbols(w: FileWalk, node: Any, annot: Any, holder: Any) -> None:
    """Module and class attributes, and `self.x` attributes assigned in methods (spanning `holder`, the node that
    holds the target)."""
    scope = w.scope
    sid = None
    if node.type == "identifier" and scope.kind in ("module", "class"):
        sid = f"{scope.id}.{w.text(node)}"
    elif node.type == "attribute" and scope.kind == "function" and scope.params:
        obj = node.child_by_field_id(F_OBJECT)
        parent = scope_by_id(w, scope.parent)
        if (
            obj.type == "identifier"
            and w.text(obj) == scope.params[0].name
            and parent is not None
            and parent.kind == "class"
        ):
            sid = f"{parent.id}.{w.text(node.child_by_field_id(F_ATTRIBUTE))}"
    elif node.type in ("pattern_list", "tuple_pattern", "expression_list"):
        for child in node.named_children:
            attribute_symbols(w, child, None, node)
        return
    if sid and sid not in w.seen_attrs and sid not in w.defined:
        w.seen_attrs.add(sid)
        sig = f"{sid.rsplit('.', 1)[1]}: {w.text(annot)}" if annot is not None else ""
        w.add_symbol(sid, SymbolKind.ATTRIBUTE, holder, sig)


def scope_by_id(w: FileWalk, sid: str) -> Scope | None:
    for scope in reversed(w.scopes):
        if scope.id == sid:
            return scope
    return None


def definition(w: FileWalk, node: Any) -> None:
    decorators = []
    outer = node  # the span covers the decorators too
    if node.type == "decorated_definition":
        decorators = [d for d in node.named_children if d.type == "decorator"]
        node = node.child_by_field_id(F_DEFINITION)
    name = w.name(node.child_by_field_id(F_NAME))
    parent = w.scope
    sid = sys.intern(f"{parent.id}.{name}")
    deco_nodes = [first(d) for d in decorators if first(d) is not None]
    deco_exprs = tuple(expr(w, d) for d in deco_nodes)
    deco_names = tuple(w.text(d) for d in deco_nodes)
    w.bind(name)
    line = outer.start_point[0] + 1
    if node.type == "class_definition":
        supers = node.child_by_field_id(F_SUPERCLASSES)
        bases = [c for c in kids(supers) if c.type != "keyword_argument"] if supers else []
        base_exprs = tuple(expr(w, b) for b in bases)
        for kw in (c for c in (supers.named_children if supers else []) if c.type == "keyword_argument"):
            w.emit(Evaluate(expr(w, kw.child_by_field_id(F_VALUE)), line))
        w.add_symbol(
            sid,
            SymbolKind.CLASS,
            outer,
            f"class {name}" + (w.text(supers) if supers else ""),
            deco_names,
            tuple(w.text(b) for b in bases),
        )
        scope = Scope(
            sid,
            "class",
            parent.id,
            w.module,
            node.start_point[0] + 1,
            node.end_point[0] + 1,
            decorators=deco_exprs,
            decorator_names=deco_names,
            bases=base_exprs,
        )
        w.emit(Define(sid, NameTarget(name), True, line))
    else:
        params_node = node.child_by_field_id(F_PARAMETERS)
        ret = node.child_by_field_id(F_RETURN_TYPE)
        params = parameters(w, params_node)
        triton = any(n.split("(")[0] in TRITON_DECORATORS for n in deco_names)
        kind = (
            SymbolKind.TRITON_KERNEL if triton else SymbolKind.METHOD if parent.kind == "class" else SymbolKind.FUNCTION
        )
        is_async = w.src[node.start_byte : node.start_byte + 5] == b"async"
        signature = (
            ("async def " if is_async else "def ")
            + name
            + w.text(params_node)
            + (f" -> {w.text(ret)}" if ret is not None else "")
        )
        w.add_symbol(sid, kind, outer, signature, deco_names)
        scope = Scope(
            sid,
            "function",
            parent.id,
            w.module,
            node.start_point[0] + 1,
            node.end_point[0] + 1,
            params=params,
            decorators=deco_exprs,
            decorator_names=deco_names,
            returns=annotation(w, ret) if ret is not None else (),
        )
        scope.guards, scope.guard_negates = guards(w, ret)
        w.emit(Define(sid, NameTarget(name), False, line))
    saved = w.enter(scope)
    body = node.child_by_field_id(F_BODY)
    if body is not None:
        block(w, body)
    w.leave(saved)


# -- compound statements --------------------------------------------------------------------------------------------


def if_statement(w: FileWalk, node: Any) -> None:
    """`if`/`elif`/`else`: the conditions evaluated, one arm per branch; the type checks a branch's condition makes
    narrow their names at its head (`if isinstance(x, T):`, `elif x is C:`), and what the conditions before it being
    false says narrows them too (an `else` made for it when there is none: what follows the `if` sees x narrowed when
    the branch returns or raises)."""
    line = node.start_point[0] + 1
    condition = node.child_by_field_id(F_CONDITION)
    w.emit(Evaluate(expr(w, condition), line, True))
    when_true, when_false = type_checks(w, condition)
    arms = [w.nested(narrowing_block, when_true, line, node.child_by_field_id(F_CONSEQUENCE))]
    before = list(when_false)  # what holds once every condition so far was false
    exhaustive = False
    for clause in node.named_children:
        if clause.type == "elif_clause":
            when_true, when_false = type_checks(w, clause.child_by_field_id(F_CONDITION))
            arms.append(w.nested(elif_clause, before, clause, when_true))
            before += when_false
        elif clause.type == "else_clause":
            arms.append(w.nested(narrowing_block, before, line, clause))
            exhaustive = True
    if not exhaustive and before:
        arms.append(w.nested(narrowing_block, before, line, None))
        exhaustive = True
    w.emit(If(tuple(arms), exhaustive, line))


def elif_clause(w: FileWalk, before: list[Check], clause: Any, when_true: list[Check]) -> None:
    """An `elif` arm: what the conditions before it being false says, its condition, what that being true says."""
    line = clause.start_point[0] + 1
    for check in before:
        w.emit(narrowed(w, check, line))
    w.emit(Evaluate(expr(w, clause.child_by_field_id(F_CONDITION)), line, True))
    narrowing_block(w, when_true, line, clause.child_by_field_id(F_CONSEQUENCE))


Check = tuple[str, Any, bool, str]  # (name, a node, negative: the check fails, kind): "isinstance" (the node names
# the types), "identity" (`is`: the node is the class), "guard" (the node is a function called on the name, whose
# TypeIs or TypeGuard annotation names the types) or "hasattr" (the node is the attribute's name, a string)


def narrowing_block(w: FileWalk, checks: list[Check], line: int, body: Any) -> None:
    """A branch: the names the type checks that hold there narrow, then its statements (`body`: a block, an else
    clause, or None)."""
    for check in checks:
        w.emit(narrowed(w, check, line))
    if body is None:
        return
    if body.type == "else_clause":
        clause_body(w, body)
    else:
        block(w, body)


def type_checks(w: FileWalk, node: Any) -> tuple[list[Check], list[Check]]:
    """The type checks a condition makes of local names: those that hold when it is true, and those that hold when
    it is false. `isinstance(x, T)` (x is a T, or is not), `type(x) is T` / `== T` (x is a T when true), `x is C` /
    `x == C` (x is the class C, or is not), `hasattr(x, "name")` and `f(x, ...)` (f perhaps a TypeIs or TypeGuard
    function), the last two only for an x whose attributes the scope reads or that it calls (_receivers), each
    negated by `not`, `is not` and `!=`; a name bound to such a condition makes its checks (FileWalk.name_checks).
    `and` keeps what holds when true, `or` what holds when false; where either operand may have held (`or` true,
    `and` false), x is one of the types both operands say it is (either_instance)."""
    t = node.type
    if t == "parenthesized_expression" and node.named_children:
        return type_checks(w, node.named_children[0])
    if t == "identifier" and w.check_names:
        held = w.check_names.get(w.name(node))
        return (list(held[0]), list(held[1])) if held is not None else ([], [])
    if t == "not_operator":
        when_true, when_false = type_checks(w, node.child_by_field_id(F_ARGUMENT))
        return when_false, when_true
    if t == "boolean_operator":
        first = type_checks(w, node.child_by_field_id(F_LEFT))
        second = type_checks(w, node.child_by_field_id(F_RIGHT))
        if node.child_by_field_id(F_OPERATOR).type == "and":
            return first[0] + second[0], either_instance(first[1], second[1])
        return either_instance(first[0], second[0]), first[1] + second[1]
    if t == "call":
        func = node.child_by_field_id(F_FUNCTION)
        args = [a for a in node.child_by_field_id(F_ARGUMENTS).named_children if a.type != "comment"]
        called = w.text(func) if func.type == "identifier" else ""
        if called == "isinstance" and len(args) == 2:
            name = _local(w, args[0])
            if name:
                return [(name, args[1], False, called)], [(name, args[1], True, called)]
        elif called == "hasattr" and len(args) == 2:
            name = _local(w, args[0])
            if name and _attribute_name(w, args[1]) and name in _receivers(w, node):
                return [(name, args[1], False, called)], [(name, args[1], True, called)]
        elif func.type in ("identifier", "attribute") and args and args[0].type not in ("keyword_argument", "comment"):
            name = _local(w, args[0])  # a user-defined type guard perhaps (the resolver looks at what `func` is)
            if name and name in _receivers(w, node):
                return [(name, func, False, "guard")], [(name, func, True, "guard")]
    if t == "comparison_operator" and len(node.named_children) == 2:
        operator = " ".join(c.type for c in node.children if not c.is_named)
        left, right = node.named_children
        if operator in ("is", "==") and left.type == "call":
            func = left.child_by_field_id(F_FUNCTION)
            args = left.child_by_field_id(F_ARGUMENTS).named_children
            if func.type == "identifier" and w.text(func) == "type" and len(args) == 1:
                name = _local(w, args[0])
                return ([(name, right, False, "isinstance")], []) if name else ([], [])
        name = _local(w, left)
        if name and right.type in ("identifier", "attribute") and operator in ("is", "==", "is not", "!="):
            checks = [(name, right, False, "identity")], [(name, right, True, "identity")]
            return checks if operator in ("is", "==") else (checks[1], checks[0])
    return [], []


CONDITIONS: Final = ("call", "boolean_operator", "not_operator", "comparison_operator", "parenthesized_expression")


def either_instance(first: list[Check], second: list[Check]) -> list[Check]:
    """What holds where the checks `first` or the checks `second` hold: for each name both make isinstance checks
    of, that it is an instance of one of the types either names (their nodes, a tuple that narrowed makes one)."""
    out: list[Check] = []
    for name in dict.fromkeys(c[0] for c in first):
        types, more = _instance_types(first, name), _instance_types(second, name)
        if types and more:
            out.append((name, tuple(types + more), False, "isinstance"))
    return out


def _instance_types(checks: list[Check], name: str) -> list[Any]:
    """The type nodes of the isinstance checks among `checks` that hold for `name` (not negated)."""
    found: list[Any] = []
    for c in checks:
        if c[0] == name and c[3] == "isinstance" and not c[2]:
            found.extend(c[1] if isinstance(c[1], tuple) else (c[1],))
    return found


OWNERS: Final = ("function_definition", "class_definition", "lambda", "module")


def _owner(node: Any) -> Any:
    """The node of the scope holding `node` (itself when it is one): a function, class or lambda, else the module."""
    while node.parent is not None and node.type not in OWNERS:
        node = node.parent
    return node


def _receivers(w: FileWalk, node: Any) -> frozenset[str]:
    """The names the scope holding `node` reads an attribute of or calls (`x.attr`, `x(...)`; `p.attr` for
    `p.attr.x`), not counting nested definitions: where a check that is no isinstance (`hasattr(x, ...)`, a call that
    may be a type guard) can narrow what a call reaches. Memoized per scope node (FileWalk.receivers)."""
    owner = _owner(node)
    key = owner.start_byte
    found = w.receivers.get(key)
    if found is not None:
        return found
    out: set[str] = set()
    body = owner.child_by_field_id(F_BODY) if owner.type != "module" else owner
    todo = [body] if body is not None else []
    while todo:
        n = todo.pop()
        t = n.type
        if t in OWNERS:
            continue
        held = None  # what the node reads an attribute of, or calls
        if t == "attribute":
            held = n.child_by_field_id(F_OBJECT)
        elif t == "call":
            held = n.child_by_field_id(F_FUNCTION)
        if held is not None:
            if held.type == "identifier":
                out.add(w.name(held))
            elif held.type == "attribute":
                base = held.child_by_field_id(F_OBJECT)
                if base.type == "identifier":
                    out.add(f"{w.name(base)}.{w.name(held.child_by_field_id(F_ATTRIBUTE))}")
        todo.extend(n.named_children)
    frozen = w.receivers[key] = frozenset(out)
    return frozen


def _attribute_name(w: FileWalk, node: Any) -> str:
    """The identifier a plain string literal holds (`"set_lora"`), or ""."""
    if node.type != "string" or any(c.type == "interpolation" for c in node.named_children):
        return ""
    text = w.text(node)
    quote = text[-1:]
    name = text[text.index(quote) + 1 : -1] if quote in "\"'" else ""
    return name if name.isidentifier() else ""


def _local(w: FileWalk, value: Any) -> str:
    """The local name `value` is, or "": an identifier of the scope, or in a function an attribute of one of its
    parameters (`self.worker`), which the check makes a local name of its own (FileWalk.narrowed_attribute)."""
    if value.type == "attribute" and w.scope.kind == "function":
        base = value.child_by_field_id(F_OBJECT)
        if base.type == "identifier":
            name = w.name(base)
            if not w.renames.get(name) and any(p.name == name for p in w.scope.params):
                return f"{name}.{w.name(value.child_by_field_id(F_ATTRIBUTE))}"
    if value.type != "identifier":
        return ""
    name = w.name(value)
    return name if name in w.scope.local_names else ""


def narrowed(w: FileWalk, check: Check, line: int, asserted: bool = False) -> Assign:
    """`name = Narrow(name, types)`: the name's binding for the statements a type check holds for."""
    name, node, negative, kind = check
    if "." in name:
        base, _, attr = name.partition(".")
        name = w.narrowed_attribute(base, attr, line)
    if kind == "hasattr":
        narrow = Narrow(Name(name), UNKNOWN, line, negative, asserted=asserted, attribute=_attribute_name(w, node))
    else:
        types = Display(tuple(expr(w, n) for n in node), "") if isinstance(node, tuple) else expr(w, node)
        narrow = Narrow(Name(name), types, line, negative, kind == "identity", asserted, kind == "guard")
    return Assign((NameTarget(name),), narrow, (), line)


def clause_body(w: FileWalk, clause: Any) -> None:
    """The statements of an else/finally clause (its block)."""
    for child in clause.named_children:
        if child.type == "block":
            block(w, child)


def loop(w: FileWalk, node: Any, t: str) -> None:
    line = node.start_point[0] + 1
    w.forget_checks("")  # a condition bound before the loop, or in its body, says nothing inside it or after it
    elements = unrolled(node) if t == "for_statement" else None
    header: tuple[Stmt, ...] = ()
    if elements is not None:  # the iterable is evaluated once before the loop (its calls are the loop's)
        w.emit(Evaluate(expr(w, node.child_by_field_id(F_RIGHT)), line))
        body: tuple[Stmt, ...] = (If(per_element(w, node, elements, line), True, line),)
    else:
        if t == "for_statement":
            header = (For(target(w, node.child_by_field_id(F_LEFT)), expr(w, node.child_by_field_id(F_RIGHT)), line),)
        else:
            header = w.nested(condition, node)
        body = w.nested(block, node.child_by_field_id(F_BODY))
    w.forget_checks("")
    orelse: tuple[Stmt, ...] = ()
    for clause in node.named_children:
        if clause.type == "else_clause":
            orelse = w.nested(clause_body, clause)
    w.emit(Loop(header, body, orelse, line))


MAX_UNROLLED: Final = 8  # a loop over a literal of at most this many elements runs its body once per element
SCOPES: Final = ("function_definition", "class_definition", "decorated_definition", "lambda")


def unrolled(node: Any) -> list[list[Any]] | None:
    """What each pass of `for target in <literal>:` binds, one list of nodes per element (the parts the target's
    names take), when the loop can run its body once per element: the iterable a list, tuple or set display, or a dict
    display's `.items()` (written there, or held by a local name nothing else names: _display_of), of 2 to
    MAX_UNROLLED elements, each part a name, a dotted name or a literal (_plain: the branches evaluate it again); the
    target one name, or as many names as each element has parts (a tuple display, a dict's key and value); no
    definition or lambda in the body or `else` (a copy would define it twice). None for any other loop. A body run
    per element keeps what an element pairs together (`for src, lora in {Linear: LinearWithLoRA, MoE:
    MoEWithLoRA}.items(): if isinstance(layer, src): return lora(layer)` makes each wrapper only of its own layer
    class); one body over every element would join them."""
    right, left = node.child_by_field_id(F_RIGHT), node.child_by_field_id(F_LEFT)
    names = (
        [left] if left.type == "identifier" else kids(left) if left.type in ("pattern_list", "tuple_pattern") else []
    )
    if not names or any(n.type != "identifier" for n in names):
        return None
    shown, pairs = right, False
    if right.type == "call":
        function, arguments = right.child_by_field_id(F_FUNCTION), right.child_by_field_id(F_ARGUMENTS)
        if function.type != "attribute" or function.child_by_field_id(F_ATTRIBUTE).text != b"items":
            return None
        if arguments is None or arguments.named_children:
            return None
        shown, pairs = function.child_by_field_id(F_OBJECT), True
    if shown.type == "identifier":
        shown = _display_of(node, shown)
    if pairs:
        if shown is None or shown.type != "dictionary" or len(names) != 2:
            return None
        if any(p.type != "pair" for p in kids(shown)):  # `**other`
            return None
        elements = [[p.child_by_field_id(F_KEY), p.child_by_field_id(F_VALUE)] for p in kids(shown)]
    elif shown is not None and shown.type in ("list", "tuple", "set"):
        items = kids(shown)
        if any(e.type in ("list_splat", "parenthesized_list_splat") for e in items):
            return None
        parts = [kids(e) if e.type == "tuple" else [] for e in items]
        if len(names) == 1:
            elements = [[e] for e in items]
        elif all(len(p) == len(names) and all(c.type != "list_splat" for c in p) for p in parts):
            elements = parts
        else:
            return None
    else:
        return None
    if not 2 <= len(elements) <= MAX_UNROLLED or not all(_plain(part) for parts in elements for part in parts):
        return None
    todo = [node.child_by_field_id(F_BODY), *(c for c in node.named_children if c.type == "else_clause")]
    while todo:
        n = todo.pop()
        if n.type in SCOPES:
            return None
        todo.extend(n.named_children)
    return elements


def _display_of(loop: Any, name: Any) -> Any:
    """The display a function's local `name` holds where `loop` iterates it: the name is bound once, by `name =
    <display>` before the loop, and named nowhere else but in the loop's iterable (so nothing changes the container),
    in the function holding the loop (its parameters and nested definitions counted); None otherwise."""
    owner = _owner(loop)
    if owner.type != "function_definition":
        return None
    text, found = name.text, []
    todo = [owner]  # its parameters too: a parameter of that name may be what the loop iterates
    while todo:
        n = todo.pop()
        if n.type == "identifier" and n.text == text:
            found.append(n)
            if len(found) > 2:
                return None
        todo.extend(n.children)
    bound = [n for n in found if n.id != name.id]
    if len(bound) != 1 or bound[0].start_byte > loop.start_byte:
        return None
    statement = bound[0].parent
    left, value = statement.child_by_field_id(F_LEFT), statement.child_by_field_id(F_RIGHT)
    if statement.type != "assignment" or left is None or left.id != bound[0].id:
        return None
    return value


PLAIN: Final = ("identifier", "string", "concatenated_string", "integer", "float", "true", "false", "none")


def _plain(node: Any) -> bool:
    """Whether `node` is a name, a dotted name or a literal: evaluating it again in each pass calls nothing."""
    while node.type == "attribute":
        node = node.child_by_field_id(F_OBJECT)
    return node.type in PLAIN


def per_element(w: FileWalk, node: Any, elements: list[list[Any]], line: int) -> tuple[tuple[Stmt, ...], ...]:
    """The arms of a loop `unrolled` accepted, one per element: each binds the target to the element's parts, then
    runs the body. The loop's body is one branch over them."""
    left = node.child_by_field_id(F_LEFT)
    names = [left] if left.type == "identifier" else kids(left)
    arms: list[tuple[Stmt, ...]] = []
    for parts in elements:
        w.forget_checks("")
        bindings = tuple(Assign((target(w, n),), expr(w, part), (), line) for n, part in zip(names, parts))
        arms.append(bindings + w.nested(block, node.child_by_field_id(F_BODY)))
    return tuple(arms)


def guards(w: FileWalk, ret: Any) -> tuple[tuple[Annotation, ...], bool]:
    """What a function's return annotation says of its first argument when the result is true: the types of
    `TypeIs[X]` or `TypeGuard[X]` (each of a union of them, `TypeIs[type[X]] | TypeIs[X]`), and whether a false
    result says it is none of them (TypeIs only)."""
    found: tuple[Annotation, ...] = ()
    negates = True
    todo = [ret] if ret is not None else []
    while todo:
        node = todo.pop()
        if node.type in ("type", "binary_operator", "union_type"):
            todo.extend(c for c in node.named_children if c.type != "comment")
        elif node.type in ("subscript", "generic_type"):
            head, args = generic(w, node)
            if head in ("TypeIs", "TypeGuard") and len(args) == 1:
                found += annotated_types(w, args[0])
                negates = negates and head == "TypeIs"
    return found, negates and bool(found)


def condition(w: FileWalk, node: Any) -> None:
    w.emit(Evaluate(expr(w, node.child_by_field_id(F_CONDITION)), node.start_point[0] + 1, True))


def try_statement(w: FileWalk, node: Any) -> None:
    body = w.nested(block, node.child_by_field_id(F_BODY))
    handlers: list[tuple[Stmt, ...]] = []
    orelse: tuple[Stmt, ...] = ()
    final: tuple[Stmt, ...] = ()
    for clause in node.named_children:
        ct: str = clause.type
        if ct in ("except_clause", "except_group_clause"):
            handlers.append(w.nested(except_clause, clause))
        elif ct == "else_clause":
            orelse = w.nested(clause_body, clause)
        elif ct == "finally_clause":
            final = w.nested(clause_body, clause)
    w.emit(Try(body, tuple(handlers), orelse, final, node.start_point[0] + 1))


def except_clause(w: FileWalk, clause: Any) -> None:
    """`except E as e:`: E is evaluated, e bound (to nothing the IR follows), then the block."""
    line = clause.start_point[0] + 1
    for child in clause.named_children:
        ct: str = child.type
        if ct == "block":
            block(w, child)
        elif ct == "as_pattern":
            w.emit(Evaluate(expr(w, child.named_children[0]), line))
            alias = child.child_by_field_id(F_ALIAS)
            name = alias.named_children[0] if alias is not None and alias.named_children else alias
            if name is not None:
                w.emit(Assign((target(w, name),), UNKNOWN, (), line))
        elif ct not in ("comment",):
            w.emit(Evaluate(expr(w, child), line))


def with_statement(w: FileWalk, node: Any) -> None:
    line = node.start_point[0] + 1
    is_async = w.src[node.start_byte : node.start_byte + 5] == b"async"
    for clause in node.named_children:
        if clause.type != "with_clause":
            continue
        for item in clause.named_children:
            value = item.child_by_field_id(F_VALUE) or (item.named_children[0] if item.named_children else None)
            if value is None:
                continue
            if value.type == "as_pattern":
                context = expr(w, value.named_children[0])
                alias = value.child_by_field_id(F_ALIAS)
                name = alias.named_children[0] if alias is not None and alias.named_children else alias
                w.emit(With(context, target(w, name) if name is not None else None, is_async, line))
            else:
                w.emit(With(expr(w, value), None, is_async, line))
    body = node.child_by_field_id(F_BODY)
    if body is not None:
        block(w, body)


def match_statement(w: FileWalk, node: Any) -> None:
    subject = node.child_by_field_name("subject")
    if subject is not None:
        w.emit(Evaluate(expr(w, subject), node.start_point[0] + 1))
    arms = []
    for child in node.named_children:
        if child.type == "block":
            for case in child.named_children:
                if case.type == "case_clause":
                    arms.append(w.nested(case_body, case))
        elif child.type == "case_clause":
            arms.append(w.nested(case_body, child))
    w.emit(If(tuple(arms), False, node.start_point[0] + 1))


def case_body(w: FileWalk, case: Any) -> None:
    for child in case.named_children:
        if child.type == "block":
            block(w, child)
        elif child.type == "if_clause":  # a guard
            for c in child.named_children:
                w.emit(Evaluate(expr(w, c), c.start_point[0] + 1))
