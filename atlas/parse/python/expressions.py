"""Expressions for the Python extractor: targets and expressions -> the IR tuples of atlas.parse.python.facts (calls
with their sites, literals with allocation ids, lambdas as scopes, comprehensions in the enclosing scope)."""

from __future__ import annotations

import sys

from atlas.model import SymbolKind
from atlas.parse.python.facts import Scope
from atlas.parse.python.grammar import (
    F_ARGUMENTS, F_ATTRIBUTE, F_BODY, F_FUNCTION, F_KEY, F_LEFT, F_NAME, F_OBJECT, F_PARAMETERS, F_RIGHT,
    F_VALUE, UNKNOWN,
)
from atlas.parse.python.walker import WalkerState


_JIT = (("a", ("n", "triton"), "jit"), ("n", "jit"))


class Expressions(WalkerState):
    """A part of the walker (atlas.parse.python.walker): expressions and assignment targets -> IR."""

    # -- targets and expressions --------------------------------------------------------------------------------
    def target(self, node) -> tuple:
        t: str = node.type
        if t == "identifier":
            name = self.name(node)
            self.bind(name)
            return ("n", name)
        if t == "attribute":
            return ("a", self.expr(node.child_by_field_id(F_OBJECT)),
                    self.name(node.child_by_field_id(F_ATTRIBUTE)))
        if t == "subscript":
            subs = node.named_children[1:]
            key = self.expr(subs[0]) if len(subs) == 1 else UNKNOWN
            return ("s", self.expr(node.child_by_field_id(F_VALUE)), key)
        if t in ("pattern_list", "tuple_pattern", "list_pattern", "expression_list", "tuple", "list"):
            return ("t", tuple(self.target(c) for c in node.named_children))
        if t in ("list_splat_pattern", "list_splat") and node.named_children:
            return ("*", self.target(node.named_children[0]))
        if t == "parenthesized_expression" and node.named_children:
            return self.target(node.named_children[0])
        return ("?",)

    def expr(self, node) -> tuple:
        t: str = node.type
        if t == "identifier":
            return ("n", sys.intern(self.chars[node.start_byte:node.end_byte]) if self.ascii else self.name(node))
        if t == "attribute":
            attribute = node.child_by_field_id(F_ATTRIBUTE)
            return ("a", self.expr(node.child_by_field_id(F_OBJECT)),
                    sys.intern(self.chars[attribute.start_byte:attribute.end_byte]) if self.ascii else
                    self.name(attribute))
        if t == "call":
            return self.call(node)
        if t == "string" or t == "concatenated_string":
            kids = node.named_children
            if t == "string":
                content = None
                plain = True
                for c in kids:
                    ct: str = c.type
                    if ct == "interpolation":
                        plain = False
                        break
                    if ct == "string_content" and content is None:
                        content = c
                if plain:
                    return ("k", self.text(content) if content is not None else "")
            for c in kids:
                if c.type == "interpolation":
                    for e in c.named_children:
                        self.emit(("e", self.expr(e), self.idx))
            return ("k", "")
        if t == "integer":
            try:
                return ("k", int(self.text(node), 0))
            except ValueError:
                return UNKNOWN
        if t in ("float", "true", "false", "none"):
            return ("k", {"true": True, "false": False, "none": None}.get(t, 0.0))
        if t == "subscript":
            value = self.expr(node.child_by_field_id(F_VALUE))
            subs = node.named_children[1:]
            if len(subs) == 1 and subs[0].type == "slice":
                bounds = [c for c in subs[0].children if c.type != ":"]
                parts: list[tuple | None] = [None, None]
                seen = 0
                for c in subs[0].children:
                    if c.type == ":":
                        seen += 1
                    elif seen < 2:
                        parts[seen] = self.expr(c)
                return ("sl", value, parts[0], parts[1]) if bounds is not None else ("sl", value, None, None)
            return ("s", value, self.expr(subs[0]) if len(subs) == 1 else UNKNOWN)
        if t in ("list", "tuple", "set", "expression_list"):
            return ("l", tuple(self.element(c) for c in node.named_children), self.alloc(node))
        if t == "dictionary":
            pairs: list[tuple] = []
            for c in node.named_children:
                if c.type == "pair":
                    pairs.append((self.expr(c.child_by_field_id(F_KEY)), self.expr(c.child_by_field_id(F_VALUE))))
                elif c.type == "dictionary_splat" and c.named_children:
                    pairs.append((None, self.expr(c.named_children[0])))
            return ("d", tuple(pairs), self.alloc(node))
        if t in ("parenthesized_expression", "await", "not_operator", "type") and node.named_children:
            inner = self.expr(node.named_children[0])
            return ("k", False) if t == "not_operator" else inner
        if t == "lambda":
            return self.lambda_expr(node)
        if t in ("conditional_expression", "boolean_operator"):
            operands = tuple(self.expr(c) for c in node.named_children)
            if t == "conditional_expression" and len(operands) == 3:
                self.emit(("e", operands[1], self.idx))
                return ("u", (operands[0], operands[2]))
            return ("u", operands)
        if t == "binary_operator" and node.child_by_field_name("operator").type == "+":
            return ("u", (self.expr(node.child_by_field_id(F_LEFT)), self.expr(node.child_by_field_id(F_RIGHT))))
        if t in ("binary_operator", "comparison_operator", "unary_operator"):
            for c in node.named_children:
                e = self.expr(c)
                if e[0] in ("c", "lam"):
                    self.emit(("e", e, self.idx))
            return UNKNOWN
        if t in ("list_comprehension", "set_comprehension", "generator_expression", "dictionary_comprehension"):
            return self.comprehension(node)
        if t == "named_expression":
            value = self.expr(node.child_by_field_id(F_VALUE))
            self.emit(("=", (self.target(node.child_by_field_id(F_NAME)),), value, self.idx, False, ()))
            return value
        if t == "yield":
            return self.yield_expr(node)
        if t in ("list_splat", "dictionary_splat") and node.named_children:
            return ("it", self.expr(node.named_children[0]))
        if t == "keyword_argument":
            return self.expr(node.child_by_field_id(F_VALUE))
        return UNKNOWN

    def element(self, node) -> tuple:
        if node.type == "list_splat" and node.named_children:
            return ("*", self.expr(node.named_children[0]))
        return self.expr(node)

    def alloc(self, node) -> str:
        return f"{self.module}:{node.start_byte}"

    def call(self, node) -> tuple:
        func = node.child_by_field_id(F_FUNCTION)
        fexpr = self.expr(func)
        if fexpr[0] == "n":
            self.scope.called_names.add(fexpr[1])
        args: list[tuple] = []
        kwargs: list[tuple] = []
        arguments = node.child_by_field_id(F_ARGUMENTS)
        if arguments is not None and arguments.type == "generator_expression":
            args.append(self.expr(arguments))
        elif arguments is not None:
            for a in arguments.named_children:
                t: str = a.type
                if t == "keyword_argument":
                    kwargs.append((self.name(a.child_by_field_id(F_NAME)),
                                   self.expr(a.child_by_field_id(F_VALUE))))
                elif t == "list_splat" and a.named_children:
                    args.append(("*", self.expr(a.named_children[0])))
                elif t == "dictionary_splat" and a.named_children:
                    kwargs.append((None, self.expr(a.named_children[0])))
                elif t != "comment":
                    args.append(self.expr(a))
        text = self.text(func)
        site = (node.start_point[0] + 1, node.end_point[0] + 1, text if len(text) < 120 else text[:117] + "...")
        jit = fexpr[1] if fexpr[0] == "c" else fexpr  # triton.jit(fn) or triton.jit(**options)(fn)
        if args and args[0][0] == "n" and jit in _JIT:
            self.jit_calls.add(f"{self.scope.id}.{args[0][1]}")
        return ("c", fexpr, tuple(args), tuple(kwargs), site)

    def lambda_expr(self, node) -> tuple:
        owner = self.scope.id
        n = self.lambda_counts.get(owner, 0) + 1
        self.lambda_counts[owner] = n
        sid = sys.intern(f"{owner}.<lambda{n}>")
        params = self.parameters(node.child_by_field_id(F_PARAMETERS))
        scope = Scope(sid, "lambda", owner, self.module, node.start_point[0] + 1, node.end_point[0] + 1,
                      params=params)
        self.add_symbol(sid, SymbolKind.FUNCTION, node, "lambda " + (self.text(node.child_by_field_name(
            "parameters")) if node.child_by_field_id(F_PARAMETERS) else ""))
        saved = (self.scope, self.idx, self.strong)
        self.scopes.append(scope)
        self.scope = scope
        for p in params:
            scope.local_names.add(p[0])
        body = node.child_by_field_id(F_BODY)
        self.idx, self.strong = scope.start, True
        if body is not None:
            self.emit(("ret", self.expr(body)))
        self.scope, self.idx, self.strong = saved
        return ("lam", sid)

    def comprehension(self, node) -> tuple:
        """Comprehensions run in the enclosing scope here: their calls belong to it, as PyCG counts them."""
        saved = self.strong
        self.strong = False
        for clause in node.named_children:
            if clause.type == "for_in_clause":
                left, right = clause.child_by_field_id(F_LEFT), clause.child_by_field_id(F_RIGHT)
                self.emit(("for", self.target(left), self.expr(right), self.idx))
            elif clause.type == "if_clause":
                for c in clause.named_children:
                    self.emit(("e", self.expr(c), self.idx))
        body = node.child_by_field_id(F_BODY) or node.named_children[0]
        if body.type == "pair":
            elem = ("d", ((self.expr(body.child_by_field_id(F_KEY)), self.expr(body.child_by_field_id(F_VALUE))),),
                    self.alloc(node))
            self.strong = saved
            return elem
        value = self.expr(body)
        self.strong = saved
        return ("l", (value,), self.alloc(node))


def dotted_expr(name: str) -> tuple:
    parts = name.split(".")
    e: tuple = ("n", parts[0])
    for p in parts[1:]:
        e = ("a", e, p)
    return e
