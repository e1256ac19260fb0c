"""One Python file -> ModuleFacts: tree-sitter parse, then one pass over the tree that records symbols (with exact
spans and signatures) and the statement IR of every scope (see atlas.parse.python.facts for the IR)."""

from __future__ import annotations

import re

import tree_sitter as ts
import tree_sitter_python as tsp

from atlas.model import Span, Symbol, SymbolKind
from atlas.parse.python.facts import ModuleFacts, Scope

LANGUAGE = ts.Language(tsp.language())
_COMPOUND = {"if_statement", "for_statement", "while_statement", "try_statement", "with_statement",
             "match_statement"}
_CONDITIONAL = {"if_statement", "for_statement", "while_statement", "try_statement", "match_statement"}
_UNKNOWN = ("?",)
_DOTTED = re.compile(r"^[A-Za-z_][\w.]*$")
_ANNOT_WRAPPERS = {"Optional", "Union", "Annotated", "ClassVar", "Final", "Type", "type"}
TRITON_DECORATORS = ("triton.jit", "triton.autotune", "triton.heuristics", "jit", "autotune", "heuristics")


def parser() -> ts.Parser:
    return ts.Parser(LANGUAGE)


def module_name(path: str, package_root: str = "") -> tuple[str, bool]:
    """(dotted module id, is_package) of a repository-relative .py path; `package_root` is stripped first."""
    rel = path[len(package_root) + 1:] if package_root and path.startswith(package_root + "/") else path
    parts = rel[:-3].split("/")
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def extract(source: bytes, path: str, module: str, is_package: bool, ts_parser: ts.Parser | None = None
            ) -> ModuleFacts:
    """Parse `source` (the file at repository-relative `path`, importable as `module`) into facts."""
    tree = (ts_parser or parser()).parse(source)
    walker = _Walker(source, path, module, is_package)
    walker.run(tree.root_node)
    return ModuleFacts(module, path, is_package, walker.symbols, walker.scopes, source.count(b"\n") + 1)


class _Walker:
    def __init__(self, source: bytes, path: str, module: str, is_package: bool):
        self.src = source
        self.path = path
        self.module = module
        self.is_package = is_package
        self.symbols: list[Symbol] = []
        self.scopes: list[Scope] = []
        self.seen_attrs: set[str] = set()
        self.lambda_counts: dict[str, int] = {}
        self.scope: Scope | None = None
        self.idx = 0
        self.strong = True

    # -- helpers ------------------------------------------------------------------------------------------------
    def text(self, node) -> str:
        return self.src[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def span(self, node) -> Span:
        return Span(self.path, node.start_point[0] + 1, node.end_point[0] + 1)

    def add_symbol(self, sid: str, kind: SymbolKind, node, signature: str = "", decorators=(), bases=()) -> None:
        self.symbols.append(Symbol(sid, kind, self.span(node), signature, tuple(decorators), tuple(bases)))

    def emit(self, stmt) -> None:
        self.scope.statements.append(stmt)

    def bind(self, name: str) -> None:
        if name not in self.scope.global_names:
            self.scope.local_names.add(name)

    # -- scopes -------------------------------------------------------------------------------------------------
    def run(self, root) -> None:
        mod = Scope(self.module, "module", "", self.module, 1, root.end_point[0] + 1)
        self.scopes.append(mod)
        self.symbols.append(Symbol(self.module, SymbolKind.MODULE, Span(self.path, 1, root.end_point[0] + 1)))
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
        t = node.type
        if t == "expression_statement":
            for child in node.named_children:
                self.expression_statement(child)
        elif t in ("function_definition", "class_definition", "decorated_definition"):
            self.definition(node)
        elif t == "return_statement":
            value = node.named_children[0] if node.named_children else None
            if value is not None:
                self.emit(("ret", self.expr(value)))
        elif t in ("import_statement", "import_from_statement", "future_import_statement"):
            self.import_statement(node)
        elif t == "raise_statement":
            if node.named_children:
                self.emit(("raise", self.expr(node.named_children[0]), self.idx))
        elif t in ("global_statement", "nonlocal_statement"):
            for child in node.named_children:
                if child.type == "identifier" and t == "global_statement":
                    self.scope.global_names.add(self.text(child))
        elif t in _COMPOUND:
            self.compound(node, t)
        elif t in ("block", "else_clause", "elif_clause", "finally_clause", "except_clause", "case_clause"):
            self.compound(node, t)
        elif t in ("assert_statement", "delete_statement", "print_statement", "exec_statement"):
            for child in node.named_children:
                self.emit(("e", self.expr(child), self.idx))

    def compound(self, node, t: str) -> None:
        conditional = t in _CONDITIONAL or t in ("else_clause", "elif_clause", "except_clause", "case_clause")
        saved = self.strong
        if conditional:
            self.strong = False
        if t == "for_statement":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            self.strong = saved
            iterable = self.expr(right)
            self.strong = False
            self.emit(("for", self.target(left), iterable, self.idx))
        elif t == "with_statement":
            for clause in node.named_children:
                if clause.type != "with_clause":
                    continue
                for item in clause.named_children:
                    value = item.child_by_field_name("value") or (item.named_children[0] if item.named_children
                                                                  else None)
                    if value is None:
                        continue
                    if value.type == "as_pattern":
                        ctx = self.expr(value.named_children[0])
                        alias = value.child_by_field_name("alias")
                        target = alias.named_children[0] if alias is not None and alias.named_children else alias
                        if target is not None:
                            self.emit(("=", (self.target(target),), ctx, self.idx, self.strong, ()))
                        else:
                            self.emit(("e", ctx, self.idx))
                    else:
                        self.emit(("e", self.expr(value), self.idx))
        for child in node.named_children:
            ct = child.type
            if ct == "block":
                self.nested_block(child, False)
            elif ct in ("else_clause", "elif_clause", "except_clause", "finally_clause", "case_clause",
                        "except_group_clause"):
                self.compound(child, ct)
            elif ct in ("with_clause", "as_pattern") or child in (node.child_by_field_name("left"),
                                                                 node.child_by_field_name("right")):
                continue
            elif ct in ("identifier", "expression_list") and t == "except_clause":
                continue
            elif t in ("if_statement", "while_statement", "elif_clause") and child == node.child_by_field_name(
                    "condition"):
                self.emit(("e", self.expr(child), self.idx))
            elif t == "except_clause" and ct not in ("block",):
                self.emit(("e", self.expr(child), self.idx))
            elif ct == "match_statement" or ct.endswith("_statement") or ct == "expression_statement":
                self.statement(child)
        self.strong = saved

    def definition(self, node) -> None:
        decorators = []
        outer = node  # the span covers the decorators too
        if node.type == "decorated_definition":
            decorators = [d for d in node.named_children if d.type == "decorator"]
            node = node.child_by_field_name("definition")
        name = self.text(node.child_by_field_name("name"))
        parent = self.scope
        sid = f"{parent.id}.{name}"
        deco_exprs = tuple(self.expr(d.named_children[0]) for d in decorators if d.named_children)
        deco_names = tuple(self.text(d.named_children[0]) for d in decorators if d.named_children)
        self.bind(name)
        if node.type == "class_definition":
            supers = node.child_by_field_name("superclasses")
            bases = [c for c in supers.named_children if c.type != "keyword_argument"] if supers else []
            base_exprs = tuple(self.expr(b) for b in bases)
            for kw in (c for c in (supers.named_children if supers else []) if c.type == "keyword_argument"):
                self.emit(("e", self.expr(kw.child_by_field_name("value")), self.idx))
            self.add_symbol(sid, SymbolKind.CLASS, outer, f"class {name}" + (self.text(supers) if supers else ""),
                            deco_names, tuple(self.text(b) for b in bases))
            scope = Scope(sid, "class", parent.id, self.module, node.start_point[0] + 1, node.end_point[0] + 1,
                          decorators=deco_exprs, decorator_names=deco_names, bases=base_exprs)
            self.emit(("cls", sid, name, self.idx, self.strong))
            self.enter(scope, node.child_by_field_name("body"))
            return
        params_node = node.child_by_field_name("parameters")
        ret = node.child_by_field_name("return_type")
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
        self.enter(scope, node.child_by_field_name("body"))

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
        out = []
        for p in node.named_children:
            t = p.type
            if t == "identifier":
                out.append((self.text(p), None, (), ""))
            elif t in ("typed_parameter", "typed_default_parameter", "default_parameter"):
                name_node = p.child_by_field_name("name") or p.named_children[0]
                kind = ""
                if name_node.type == "list_splat_pattern":
                    kind, name_node = "*", name_node.named_children[0]
                elif name_node.type == "dictionary_splat_pattern":
                    kind, name_node = "**", name_node.named_children[0]
                annot = p.child_by_field_name("type")
                default = p.child_by_field_name("value")
                out.append((self.text(name_node), self.expr(default) if default is not None else None,
                            self.annotation(annot) if annot is not None else (), kind))
            elif t == "list_splat_pattern" and p.named_children:
                out.append((self.text(p.named_children[0]), None, (), "*"))
            elif t == "dictionary_splat_pattern" and p.named_children:
                out.append((self.text(p.named_children[0]), None, (), "**"))
        return tuple(out)

    def annotation(self, node) -> tuple:
        """The candidate types an annotation names: `X`, `Optional[X]`, `X | None`, `"X"`, `Union[X, Y]`."""
        if node is None:
            return ()
        t = node.type
        if t == "type":
            return self.annotation(node.named_children[0]) if node.named_children else ()
        if t in ("identifier", "attribute"):
            return (self.expr(node),)
        if t == "binary_operator":
            return self.annotation(node.child_by_field_name("left")) + self.annotation(
                node.child_by_field_name("right"))
        if t in ("subscript", "generic_type"):
            head = node.child_by_field_name("value") or node.named_children[0]
            if self.text(head).rsplit(".", 1)[-1] in _ANNOT_WRAPPERS:
                out = ()
                for child in node.named_children[1:]:
                    out += self.annotation(child)
                return out
            return ()
        if t == "type_parameter":
            out = ()
            for child in node.named_children:
                out += self.annotation(child)
            return out
        if t == "string":
            raw = self.text(node).strip("\"'")
            return tuple(_dotted_expr(part.strip()) for part in re.split(r"[|,\[\]]", raw)
                         if _DOTTED.match(part.strip()) and part.strip() not in _ANNOT_WRAPPERS | {"None"})
        return ()

    # -- statements ---------------------------------------------------------------------------------------------
    def expression_statement(self, node) -> None:
        t = node.type
        if t == "assignment":
            self.assignment(node)
        elif t == "augmented_assignment":
            left = node.child_by_field_name("left")
            self.emit(("=", (self.target(left),), ("u", (self.expr(left), self.expr(node.child_by_field_name(
                "right")))), self.idx, False, ()))
        elif t == "yield":
            self.yield_expr(node)
        else:
            self.emit(("e", self.expr(node), self.idx, self.strong))

    def assignment(self, node) -> None:
        targets = []
        while node is not None and node.type == "assignment":
            targets.append(node.child_by_field_name("left"))
            annot = node.child_by_field_name("type")
            value = node.child_by_field_name("right")
            if value is None or value.type != "assignment":
                break
            node = value
        annotations = self.annotation(annot) if annot is not None else ()
        value_expr = self.expr(value) if value is not None else _UNKNOWN
        ir_targets = tuple(self.target(t) for t in targets)
        self.emit(("=", ir_targets, value_expr, self.idx, self.strong, annotations))
        for t in targets:
            self.attribute_symbols(t, annot)

    def attribute_symbols(self, target, annot) -> None:
        """Module and class attributes, and `self.x` attributes assigned in methods."""
        scope = self.scope
        sid = None
        if target.type == "identifier" and scope.kind in ("module", "class"):
            sid = f"{scope.id}.{self.text(target)}"
        elif target.type == "attribute" and scope.kind == "function" and scope.params:
            obj = target.child_by_field_name("object")
            parent = self._scope_by_id(scope.parent)
            if obj.type == "identifier" and self.text(obj) == scope.params[0][0] and parent is not None \
                    and parent.kind == "class":
                sid = f"{parent.id}.{self.text(target.child_by_field_name('attribute'))}"
        elif target.type in ("pattern_list", "tuple_pattern", "expression_list"):
            for child in target.named_children:
                self.attribute_symbols(child, None)
            return
        if sid and sid not in self.seen_attrs:
            self.seen_attrs.add(sid)
            sig = f"{sid.rsplit('.', 1)[1]}: {self.text(annot)}" if annot is not None else ""
            self.add_symbol(sid, SymbolKind.ATTRIBUTE, target.parent if target.parent is not None else target, sig)

    def _scope_by_id(self, sid: str) -> Scope | None:
        for scope in reversed(self.scopes):
            if scope.id == sid:
                return scope
        return None

    def yield_expr(self, node) -> tuple:
        self.scope.is_generator = True
        value = node.named_children[0] if node.named_children else None
        if value is None:
            return _UNKNOWN
        e = self.expr(value)
        if self.src[node.start_byte:node.start_byte + 10].replace(b" ", b"").startswith(b"yieldfrom"):
            e = ("it", e)
        self.emit(("y", e))
        return _UNKNOWN

    def import_statement(self, node) -> None:
        if node.type == "import_statement":
            for child in node.named_children:
                if child.type == "aliased_import":
                    mod = self.text(child.child_by_field_name("name"))
                    alias = self.text(child.child_by_field_name("alias"))
                    self.bind(alias)
                    self.emit(("imp", mod, alias, self.idx, self.strong))
                else:
                    mod = self.text(child)
                    self.bind(mod.split(".")[0])
                    self.emit(("imp", mod, None, self.idx, self.strong))
            return
        if node.type == "future_import_statement":
            return
        mod_node = node.child_by_field_name("module_name")
        mod = self.absolute(self.text(mod_node).replace(" ", ""))
        names = []
        for child in node.named_children:
            if child == mod_node:
                continue
            if child.type == "wildcard_import":
                names.append(("*", None))
            elif child.type == "aliased_import":
                names.append((self.text(child.child_by_field_name("name")),
                              self.text(child.child_by_field_name("alias"))))
            elif child.type == "dotted_name":
                names.append((self.text(child), None))
        for name, alias in names:
            if name != "*":
                self.bind(alias or name)
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

    # -- targets and expressions --------------------------------------------------------------------------------
    def target(self, node) -> tuple:
        t = node.type
        if t == "identifier":
            self.bind(self.text(node))
            return ("n", self.text(node))
        if t == "attribute":
            return ("a", self.expr(node.child_by_field_name("object")),
                    self.text(node.child_by_field_name("attribute")))
        if t == "subscript":
            subs = node.named_children[1:]
            key = self.expr(subs[0]) if len(subs) == 1 else _UNKNOWN
            return ("s", self.expr(node.child_by_field_name("value")), key)
        if t in ("pattern_list", "tuple_pattern", "list_pattern", "expression_list", "tuple", "list"):
            return ("t", tuple(self.target(c) for c in node.named_children))
        if t in ("list_splat_pattern", "list_splat") and node.named_children:
            return ("*", self.target(node.named_children[0]))
        if t == "parenthesized_expression" and node.named_children:
            return self.target(node.named_children[0])
        return ("?",)

    def expr(self, node) -> tuple:
        t = node.type
        if t == "identifier":
            return ("n", self.text(node))
        if t == "attribute":
            return ("a", self.expr(node.child_by_field_name("object")),
                    self.text(node.child_by_field_name("attribute")))
        if t == "call":
            return self.call(node)
        if t == "string" or t == "concatenated_string":
            if t == "string" and not any(c.type == "interpolation" for c in node.named_children):
                content = [c for c in node.named_children if c.type == "string_content"]
                return ("k", self.text(content[0]) if content else "")
            for c in node.named_children:
                if c.type == "interpolation":
                    for e in c.named_children:
                        self.emit(("e", self.expr(e), self.idx))
            return ("k", "")
        if t == "integer":
            try:
                return ("k", int(self.text(node), 0))
            except ValueError:
                return _UNKNOWN
        if t in ("float", "true", "false", "none"):
            return ("k", {"true": True, "false": False, "none": None}.get(t, 0.0))
        if t == "subscript":
            value = self.expr(node.child_by_field_name("value"))
            subs = node.named_children[1:]
            if len(subs) == 1 and subs[0].type == "slice":
                bounds = [c for c in subs[0].children if c.type != ":"]
                parts, seen = [None, None], 0
                for c in subs[0].children:
                    if c.type == ":":
                        seen += 1
                    elif seen < 2:
                        parts[seen] = self.expr(c)
                return ("sl", value, parts[0], parts[1]) if bounds is not None else ("sl", value, None, None)
            return ("s", value, self.expr(subs[0]) if len(subs) == 1 else _UNKNOWN)
        if t in ("list", "tuple", "set", "expression_list"):
            return ("l", tuple(self.element(c) for c in node.named_children), self.alloc(node))
        if t == "dictionary":
            pairs = []
            for c in node.named_children:
                if c.type == "pair":
                    pairs.append((self.expr(c.child_by_field_name("key")), self.expr(c.child_by_field_name("value"))))
                elif c.type == "dictionary_splat" and c.named_children:
                    pairs.append((None, self.expr(c.named_children[0])))
            return ("d", tuple(pairs), self.alloc(node))
        if t in ("parenthesized_expression", "await", "not_operator", "type") and node.named_children:
            inner = self.expr(node.named_children[0])
            return ("k", False) if t == "not_operator" else inner
        if t == "lambda":
            return self.lambda_expr(node)
        if t in ("conditional_expression", "boolean_operator"):
            parts = tuple(self.expr(c) for c in node.named_children)
            if t == "conditional_expression" and len(parts) == 3:
                self.emit(("e", parts[1], self.idx))
                return ("u", (parts[0], parts[2]))
            return ("u", parts)
        if t in ("binary_operator", "comparison_operator", "unary_operator"):
            for c in node.named_children:
                e = self.expr(c)
                if e[0] in ("c", "lam"):
                    self.emit(("e", e, self.idx))
            return _UNKNOWN
        if t in ("list_comprehension", "set_comprehension", "generator_expression", "dictionary_comprehension"):
            return self.comprehension(node)
        if t == "named_expression":
            value = self.expr(node.child_by_field_name("value"))
            self.emit(("=", (self.target(node.child_by_field_name("name")),), value, self.idx, False, ()))
            return value
        if t == "yield":
            return self.yield_expr(node)
        if t in ("list_splat", "dictionary_splat") and node.named_children:
            return ("it", self.expr(node.named_children[0]))
        if t == "keyword_argument":
            return self.expr(node.child_by_field_name("value"))
        return _UNKNOWN

    def element(self, node) -> tuple:
        if node.type == "list_splat" and node.named_children:
            return ("*", self.expr(node.named_children[0]))
        return self.expr(node)

    def alloc(self, node) -> str:
        return f"{self.module}:{node.start_byte}"

    def call(self, node) -> tuple:
        func = node.child_by_field_name("function")
        fexpr = self.expr(func)
        args, kwargs = [], []
        arguments = node.child_by_field_name("arguments")
        if arguments is not None and arguments.type == "generator_expression":
            args.append(self.expr(arguments))
        elif arguments is not None:
            for a in arguments.named_children:
                if a.type == "keyword_argument":
                    kwargs.append((self.text(a.child_by_field_name("name")),
                                   self.expr(a.child_by_field_name("value"))))
                elif a.type == "list_splat" and a.named_children:
                    args.append(("*", self.expr(a.named_children[0])))
                elif a.type == "dictionary_splat" and a.named_children:
                    kwargs.append((None, self.expr(a.named_children[0])))
                elif a.type != "comment":
                    args.append(self.expr(a))
        text = self.text(func)
        site = (node.start_point[0] + 1, node.end_point[0] + 1, text if len(text) < 120 else text[:117] + "...")
        return ("c", fexpr, tuple(args), tuple(kwargs), site)

    def lambda_expr(self, node) -> tuple:
        owner = self.scope.id
        n = self.lambda_counts.get(owner, 0) + 1
        self.lambda_counts[owner] = n
        sid = f"{owner}.<lambda{n}>"
        params = self.parameters(node.child_by_field_name("parameters"))
        scope = Scope(sid, "lambda", owner, self.module, node.start_point[0] + 1, node.end_point[0] + 1,
                      params=params)
        self.add_symbol(sid, SymbolKind.FUNCTION, node, "lambda " + (self.text(node.child_by_field_name(
            "parameters")) if node.child_by_field_name("parameters") else ""))
        saved = (self.scope, self.idx, self.strong)
        self.scopes.append(scope)
        self.scope = scope
        for p in params:
            scope.local_names.add(p[0])
        body = node.child_by_field_name("body")
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
                left, right = clause.child_by_field_name("left"), clause.child_by_field_name("right")
                self.emit(("for", self.target(left), self.expr(right), self.idx))
            elif clause.type == "if_clause":
                for c in clause.named_children:
                    self.emit(("e", self.expr(c), self.idx))
        body = node.child_by_field_name("body") or node.named_children[0]
        if body.type == "pair":
            elem = ("d", ((self.expr(body.child_by_field_name("key")), self.expr(body.child_by_field_name("value"))),),
                    self.alloc(node))
            self.strong = saved
            return elem
        value = self.expr(body)
        self.strong = saved
        return ("l", (value,), self.alloc(node))


def _dotted_expr(name: str) -> tuple:
    parts = name.split(".")
    e: tuple = ("n", parts[0])
    for p in parts[1:]:
        e = ("a", e, p)
    return e
