"""One Python file -> ModuleFacts: tree-sitter parse, then one pass over the tree that records symbols (with exact
spans and signatures) and the statement IR of every scope (see atlas.parse.python.facts for the IR). The pass is the
walker in C (c/) when it is built and current (atlas.parse.python.compiled.native_walker), else the Python walker
below; both give the same facts."""

from __future__ import annotations

from typing import Any, Final

import tree_sitter as ts

from atlas.model import SymbolKind
from atlas.parse.python.compiled import native_walker
from atlas.parse.python.definitions import Definitions, string_annotation
from atlas.parse.python.facts import ModuleFacts, Scope, pack_scopes, unpack
from atlas.parse.python.grammar import COMPOUND, CONDITIONAL, F_ALIAS, F_LEFT, F_RIGHT, F_VALUE, parser

_MODULE: Final = SymbolKind.MODULE.value
_FUNCTION: Final = SymbolKind.FUNCTION.value
_TRITON_KERNEL: Final = SymbolKind.TRITON_KERNEL.value
_NATIVE: Any = native_walker()
if _NATIVE is not None:
    _NATIVE.configure(string_annotation)


def module_name(path: str, package_root: str = "") -> tuple[str, bool]:
    """(dotted module id, is_package) of a repository-relative .py path; `package_root` is stripped first."""
    rel = path[len(package_root) + 1:] if package_root and path.startswith(package_root + "/") else path
    parts = rel[:-3].split("/")
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def extract(source: bytes, path: str, module: str, is_package: bool, ts_parser: ts.Parser | None = None,
            tree: ts.Tree | None = None) -> ModuleFacts:
    """Parse `source` (the file at repository-relative `path`, importable as `module`) into facts; `tree`: its
    tree-sitter tree when the caller parsed it already."""
    if tree is None:
        tree = (ts_parser or parser()).parse(source)
    return unpack(extract_packed(source, path, module, is_package, tree))


def extract_packed(source: bytes, path: str, module: str, is_package: bool, tree: ts.Tree) -> tuple:
    """`pack(extract(...))` without the ModuleFacts and Symbol objects in between (what a parse worker sends)."""
    if _NATIVE is not None:
        return _NATIVE.extract_packed(source, path, module, is_package, tree)
    return walk_packed(source, path, module, is_package, tree)


def walk_packed(source: bytes, path: str, module: str, is_package: bool, tree: ts.Tree) -> tuple:
    """`extract_packed` by the Python walker, whether or not the C walker is in use (it must give the same)."""
    walker = _Walker(source, path, module, is_package)
    walker.run(tree.root_node)
    return (module, path, is_package, source.count(b"\n") + 1, tuple(walker.finish()), pack_scopes(walker.scopes))


class _Walker(Definitions):
    """The last part of the walk (atlas.parse.python.walker): modules, blocks and compound statements."""

    def finish(self) -> list[tuple]:
        """The symbol rows (see WalkerState.symbols), a function jit'd by a call (`triton.jit(fn)`,
        `triton.jit(**options)(fn)`) a Triton kernel."""
        return [(s[0], _TRITON_KERNEL) + s[2:] if s[0] in self.jit_calls and s[1] == _FUNCTION else s
                for s in self.symbols]

    # -- scopes -------------------------------------------------------------------------------------------------
    def run(self, root) -> None:
        mod = Scope(self.module, "module", "", self.module, 1, root.end_point[0] + 1)
        self.scopes.append(mod)
        self.symbols.append((self.module, _MODULE, 1, root.end_point[0] + 1, "", (), ()))
        self.scope = mod
        self.block(root)

    def block(self, node, top: bool = True) -> None:
        for child in node.named_children:
            if top:
                self.idx, self.strong = child.start_point[0] + 1, True
            self.statement(child)

    def nested_block(self, node, conditional: bool) -> None:
        saved = self.strong
        if conditional:
            self.strong = False
        for child in node.named_children:
            self.statement(child)
        self.strong = saved

    def statement(self, node) -> None:
        t: str = node.type
        if t == "expression_statement":
            for child in node.named_children:
                self.expression_statement(child)
        elif t in ("function_definition", "class_definition", "decorated_definition"):
            self.definition(node)
        elif t == "return_statement":
            kids = node.named_children
            if kids:
                self.emit(("ret", self.expr(kids[0])))
        elif t in ("import_statement", "import_from_statement", "future_import_statement"):
            self.import_statement(node)
        elif t == "raise_statement":
            kids = node.named_children
            if kids:
                self.emit(("raise", self.expr(kids[0]), self.idx))
        elif t in ("global_statement", "nonlocal_statement"):
            for child in node.named_children:
                if child.type == "identifier" and t == "global_statement":
                    self.scope.global_names.add(self.text(child))
        elif t in COMPOUND:
            self.compound(node, t)
        elif t in ("block", "else_clause", "elif_clause", "finally_clause", "except_clause", "case_clause"):
            self.compound(node, t)
        elif t in ("assert_statement", "delete_statement", "print_statement", "exec_statement"):
            for child in node.named_children:
                self.emit(("e", self.expr(child), self.idx))

    def compound(self, node, t: str) -> None:
        conditional = t in CONDITIONAL or t in ("else_clause", "elif_clause", "except_clause", "case_clause")
        saved = self.strong
        if conditional:
            self.strong = False
        left, right = node.child_by_field_id(F_LEFT), node.child_by_field_id(F_RIGHT)  # once, not per child
        condition = node.child_by_field_name("condition") if t in ("if_statement", "while_statement",
                                                                   "elif_clause") else None
        if t == "for_statement":
            self.strong = saved
            iterable = self.expr(right)
            self.strong = False
            self.emit(("for", self.target(left), iterable, self.idx))
        elif t == "with_statement":
            for clause in node.named_children:
                if clause.type != "with_clause":
                    continue
                for item in clause.named_children:
                    value = item.child_by_field_id(F_VALUE) or (item.named_children[0] if item.named_children
                                                                  else None)
                    if value is None:
                        continue
                    if value.type == "as_pattern":
                        ctx = self.expr(value.named_children[0])
                        alias = value.child_by_field_id(F_ALIAS)
                        target = alias.named_children[0] if alias is not None and alias.named_children else alias
                        if target is not None:
                            self.emit(("=", (self.target(target),), ctx, self.idx, self.strong, ()))
                        else:
                            self.emit(("e", ctx, self.idx))
                    else:
                        self.emit(("e", self.expr(value), self.idx))
        for child in node.named_children:
            ct: str = child.type
            if ct == "block":
                self.nested_block(child, False)
            elif ct in ("else_clause", "elif_clause", "except_clause", "finally_clause", "case_clause",
                        "except_group_clause"):
                self.compound(child, ct)
            elif ct in ("with_clause", "as_pattern") or child in (left, right):
                continue
            elif ct in ("identifier", "expression_list") and t == "except_clause":
                continue
            elif condition is not None and child == condition:
                self.emit(("e", self.expr(child), self.idx))
            elif t == "except_clause" and ct not in ("block",):
                self.emit(("e", self.expr(child), self.idx))
            elif ct == "match_statement" or ct.endswith("_statement") or ct == "expression_statement":
                self.statement(child)
        self.strong = saved
