"""Statements for the Python extractor: expression statements, assignments (and the attribute symbols they
define), yield, and imports made absolute."""

from __future__ import annotations

import sys

from atlas.model import SymbolKind
from atlas.parse.python.facts import Scope
from atlas.parse.python.grammar import (
    F_ALIAS, F_ATTRIBUTE, F_LEFT, F_MODULE_NAME, F_NAME, F_OBJECT, F_RIGHT, F_TYPE, UNKNOWN,
)
from atlas.parse.python.expressions import Expressions


class Statements(Expressions):
    """A part of the walker (atlas.parse.python.walker): simple statements -> IR statements."""

    # -- statements ---------------------------------------------------------------------------------------------
    def expression_statement(self, node) -> None:
        t: str = node.type
        if t == "assignment":
            self.assignment(node)
        elif t == "augmented_assignment":
            left = node.child_by_field_id(F_LEFT)
            self.emit(("=", (self.target(left),), ("u", (self.expr(left), self.expr(node.child_by_field_name(
                "right")))), self.idx, False, ()))
        elif t == "yield":
            self.yield_expr(node)
        else:
            self.emit(("e", self.expr(node), self.idx, self.strong))

    def assignment(self, node) -> None:
        targets, assignments = [], []  # a symbol made by a target spans the assignment that holds it
        while node is not None and node.type == "assignment":
            targets.append(node.child_by_field_id(F_LEFT))
            assignments.append(node)
            annot = node.child_by_field_id(F_TYPE)
            value = node.child_by_field_id(F_RIGHT)
            if value is None or value.type != "assignment":
                break
            node = value
        annotations = self.annotation(annot) if annot is not None else ()
        value_expr = self.expr(value) if value is not None else UNKNOWN
        ir_targets = tuple(self.target(t) for t in targets)
        self.emit(("=", ir_targets, value_expr, self.idx, self.strong, annotations))
        for t, holder in zip(targets, assignments):
            self.attribute_symbols(t, annot, holder)

    def attribute_symbols(self, target, annot, holder) -> None:
        """Module and class attributes, and `self.x` attributes assigned in methods (spanning `holder`, the node
        that holds the target)."""
        scope = self.scope
        sid = None
        if target.type == "identifier" and scope.kind in ("module", "class"):
            sid = f"{scope.id}.{self.text(target)}"
        elif target.type == "attribute" and scope.kind == "function" and scope.params:
            obj = target.child_by_field_id(F_OBJECT)
            parent = self._scope_by_id(scope.parent)
            if obj.type == "identifier" and self.text(obj) == scope.params[0][0] and parent is not None \
                    and parent.kind == "class":
                sid = f"{parent.id}.{self.text(target.child_by_field_id(F_ATTRIBUTE))}"
        elif target.type in ("pattern_list", "tuple_pattern", "expression_list"):
            for child in target.named_children:
                self.attribute_symbols(child, None, target)
            return
        if sid and sid not in self.seen_attrs and sid not in self.defined:
            self.seen_attrs.add(sid)
            sig = f"{sid.rsplit('.', 1)[1]}: {self.text(annot)}" if annot is not None else ""
            self.add_symbol(sid, SymbolKind.ATTRIBUTE, holder, sig)

    def _scope_by_id(self, sid: str) -> Scope | None:
        for scope in reversed(self.scopes):
            if scope.id == sid:
                return scope
        return None

    def yield_expr(self, node) -> tuple:
        self.scope.is_generator = True
        value = node.named_children[0] if node.named_children else None
        if value is None:
            return UNKNOWN
        e = self.expr(value)
        if self.src[node.start_byte:node.start_byte + 10].replace(b" ", b"").startswith(b"yieldfrom"):
            e = ("it", e)
        self.emit(("y", e))
        return UNKNOWN

    def import_statement(self, node) -> None:
        if node.type == "import_statement":
            for child in node.named_children:
                if child.type == "aliased_import":
                    mod = self.name(child.child_by_field_id(F_NAME))
                    alias = self.name(child.child_by_field_id(F_ALIAS))
                    self.bind(alias)
                    self.emit(("imp", mod, alias, self.idx, self.strong))
                else:
                    mod = self.name(child)
                    self.bind(mod.split(".")[0])
                    self.emit(("imp", mod, None, self.idx, self.strong))
            return
        if node.type == "future_import_statement":
            return
        mod_node = node.child_by_field_id(F_MODULE_NAME)
        mod = sys.intern(self.absolute(self.text(mod_node).replace(" ", "")))
        names: list[tuple[str, str | None]] = []
        for child in node.named_children:
            if child == mod_node:
                continue
            if child.type == "wildcard_import":
                names.append(("*", None))
            elif child.type == "aliased_import":
                names.append((self.name(child.child_by_field_id(F_NAME)),
                              self.name(child.child_by_field_id(F_ALIAS))))
            elif child.type == "dotted_name":
                names.append((self.name(child), None))
        for name, asname in names:
            if name != "*":
                self.bind(asname or name)
        self.emit(("from", mod, tuple(names), self.idx, self.strong))

    def absolute(self, mod: str) -> str:
        if not mod.startswith("."):
            return mod
        level = len(mod) - len(mod.lstrip("."))
        parts = self.module.split(".")
        base = parts if self.is_package else parts[:-1]
        if level > 1:
            base = base[:len(base) - (level - 1)]
        rest = mod[level:]
        return ".".join([*base, rest] if rest else base)
