"""Definitions for the Python extractor: def and class statements (symbols with signatures, scopes with parameters,
decorators and bases) and the candidate types an annotation names."""

from __future__ import annotations

import re
import sys

from atlas.model import SymbolKind
from atlas.parse.python.facts import Scope
from atlas.parse.python.grammar import (
    ANNOT_WRAPPERS, CLASS_WRAPPERS, DOTTED, F_BODY, F_DEFINITION, F_LEFT, F_NAME, F_PARAMETERS, F_RETURN_TYPE, F_RIGHT,
    F_SUPERCLASSES, F_TYPE, F_VALUE, TRITON_DECORATORS,
)
from atlas.parse.python.expressions import dotted_expr
from atlas.parse.python.statements import Statements


class Definitions(Statements):
    """A part of the walker (atlas.parse.python.walker): `def`, `class`, parameters and annotations."""

    def definition(self, node) -> None:
        decorators = []
        outer = node  # the span covers the decorators too
        if node.type == "decorated_definition":
            decorators = [d for d in node.named_children if d.type == "decorator"]
            node = node.child_by_field_id(F_DEFINITION)
        name = self.name(node.child_by_field_id(F_NAME))
        parent = self.scope
        sid = sys.intern(f"{parent.id}.{name}")
        deco_exprs = tuple(self.expr(d.named_children[0]) for d in decorators if d.named_children)
        deco_names = tuple(self.text(d.named_children[0]) for d in decorators if d.named_children)
        self.bind(name)
        if node.type == "class_definition":
            supers = node.child_by_field_id(F_SUPERCLASSES)
            bases = [c for c in supers.named_children if c.type != "keyword_argument"] if supers else []
            base_exprs = tuple(self.expr(b) for b in bases)
            for kw in (c for c in (supers.named_children if supers else []) if c.type == "keyword_argument"):
                self.emit(("e", self.expr(kw.child_by_field_id(F_VALUE)), self.idx))
            self.add_symbol(sid, SymbolKind.CLASS, outer, f"class {name}" + (self.text(supers) if supers else ""),
                            deco_names, tuple(self.text(b) for b in bases))
            scope = Scope(sid, "class", parent.id, self.module, node.start_point[0] + 1, node.end_point[0] + 1,
                          decorators=deco_exprs, decorator_names=deco_names, bases=base_exprs)
            self.emit(("cls", sid, name, self.idx, self.strong))
            self.enter(scope, node.child_by_field_id(F_BODY))
            return
        params_node = node.child_by_field_id(F_PARAMETERS)
        ret = node.child_by_field_id(F_RETURN_TYPE)
        params = self.parameters(params_node)
        is_method = parent.kind == "class"
        triton = any(n.split("(")[0] in TRITON_DECORATORS for n in deco_names)
        kind = SymbolKind.TRITON_KERNEL if triton else SymbolKind.METHOD if is_method else SymbolKind.FUNCTION
        is_async = self.src[node.start_byte:node.start_byte + 5] == b"async"
        signature = ("async def " if is_async else "def ") + name + self.text(params_node) + (
            f" -> {self.text(ret)}" if ret is not None else "")
        self.add_symbol(sid, kind, outer, signature, deco_names)
        scope = Scope(sid, "function", parent.id, self.module, node.start_point[0] + 1, node.end_point[0] + 1,
                      params=params, decorators=deco_exprs, decorator_names=deco_names,
                      returns=self.annotation(ret) if ret is not None else ())
        self.emit(("def", sid, name, self.idx, self.strong))
        self.enter(scope, node.child_by_field_id(F_BODY))

    def enter(self, scope: Scope, body) -> None:
        saved = (self.scope, self.idx, self.strong)
        self.scopes.append(scope)
        self.scope = scope
        for p in scope.params:
            scope.local_names.add(p[0])
        if body is not None:
            self.block(body)
        self.scope, self.idx, self.strong = saved

    def parameters(self, node) -> tuple:
        if node is None:
            return ()
        out: list[tuple] = []
        for p in node.named_children:
            t: str = p.type
            if t == "identifier":
                out.append((self.name(p), None, (), ""))
            elif t in ("typed_parameter", "typed_default_parameter", "default_parameter"):
                name_node = p.child_by_field_id(F_NAME) or p.named_children[0]
                kind = ""
                if name_node.type == "list_splat_pattern":
                    kind, name_node = "*", name_node.named_children[0]
                elif name_node.type == "dictionary_splat_pattern":
                    kind, name_node = "**", name_node.named_children[0]
                annot = p.child_by_field_id(F_TYPE)
                default = p.child_by_field_id(F_VALUE)
                out.append((self.name(name_node), self.expr(default) if default is not None else None,
                            self.annotation(annot) if annot is not None else (), kind))
            elif t == "list_splat_pattern" and p.named_children:
                out.append((self.name(p.named_children[0]), None, (), "*"))
            elif t == "dictionary_splat_pattern" and p.named_children:
                out.append((self.name(p.named_children[0]), None, (), "**"))
        return tuple(out)

    def annotation(self, node) -> tuple:
        """The candidate types an annotation names: `X`, `Optional[X]`, `X | None`, `"X"`, `Union[X, Y]`."""
        if node is None:
            return ()
        t: str = node.type
        if t == "type":
            return self.annotation(node.named_children[0]) if node.named_children else ()
        if t in ("identifier", "attribute"):
            return (self.expr(node),)
        if t == "binary_operator":
            return self.annotation(node.child_by_field_id(F_LEFT)) + self.annotation(
                node.child_by_field_id(F_RIGHT))
        if t in ("subscript", "generic_type"):
            head = self.text(node.child_by_field_id(F_VALUE) or node.named_children[0]).rsplit(".", 1)[-1]
            if head in ANNOT_WRAPPERS or head in CLASS_WRAPPERS:
                out: tuple = ()
                for child in node.named_children[1:]:
                    out += self.annotation(child)
                return tuple(("type", e) for e in out) if head in CLASS_WRAPPERS else out
            return ()
        if t in ("type_parameter", "union_type"):
            found: tuple = ()
            for child in node.named_children:
                found += self.annotation(child)
            return found
        if t == "string":
            return string_annotation(self.text(node).strip("\"'"))
        return ()


def string_annotation(raw: str) -> tuple:
    """The candidate types a quoted annotation names; a name inside `type[...]` is the class itself."""
    out = []
    for match in _PART.finditer(raw):
        name = match.group(0).strip()
        last = name.rsplit(".", 1)[-1]
        if not DOTTED.match(name) or last in ANNOT_WRAPPERS or last in CLASS_WRAPPERS or name == "None":
            continue
        is_class = _CLASS_OF.search(raw, 0, match.start()) is not None
        out.append(("type", dotted_expr(name)) if is_class else dotted_expr(name))
    return tuple(out)


_PART = re.compile(r"[^|,\[\]]+")
_CLASS_OF = re.compile(r"\b(?:typing\.)?[Tt]ype\[\s*$")
