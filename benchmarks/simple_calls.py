"""Calls of the simplest kind, held or missed, and every call site's status, on the default pinned trees.

A call of the simplest kind is `name(...)` where `name`, by Python's own scoping (`symtable`: not local to the
calling function or any function around it), is the module's binding of the name, bound exactly once at module level
(anywhere outside a def or class body, no function rebinding it through `global`), by a `def` or `class`, or by
`from M import name` of a module M of the tree that itself defines it with a `def` or `class` (through any chain of
such imports). The graph holds it when the call's row in the site table (atlas.graph.table.SiteTable; matched by
file, end line and end column, as Python's `ast` gives them) reaches the function, or, for a class, the class or
a constructor (`__init__`, `__new__`, `__post_init__`: inherited ones count), or, for a function decorated in the
tree, anything in the tree (its wrapper).

Prints, per framework and component (of the module the call is in: atlas/data/components), held / all and each
miss as file:line with the row's status, targets or reason; then, for every Python file the graph covers, the
call sites per status and reason, and how many `ast.Call`s have no row (must be 0). Exits 1 when a core component
(every component but `model` and `kernels`) holds less than TARGET or a call has no row.

Usage: ATLAS_MIRROR=... python benchmarks/simple_calls.py [FRAMEWORK ...] [--pins default] [--misses N]
Builds a tree's graph first when it is not built (atlas.graph.load_graph)."""

from __future__ import annotations

import argparse
import ast
import symtable
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from atlas.env import settings as load_settings
from atlas.graph import components, load_graph, load_index
from atlas.graph.table import STATUSES, SiteTable
from atlas.model import SiteStatus
from atlas.parse.python import module_name
from atlas.sources import load_all

TARGET = 0.999
NOT_CORE = ("model", "kernels", "")
CONSTRUCTORS = ("__init__", "__new__", "__post_init__")


@dataclass(frozen=True)
class Binding:
    """A module-level binding: a def or class (`symbol`), or `from module import name`."""

    symbol: str = ""
    module: str = ""
    name: str = ""
    decorated: bool = False


@dataclass(frozen=True)
class SimpleCall:
    path: str
    line: int
    end: tuple[int, int]
    target: str
    decorated: bool
    module: str


def module_bindings(tree: ast.Module, module: str, is_package: bool) -> dict[str, Binding | None]:
    """Name -> its one module-level binding (None: bound more than once, or by anything else)."""
    count: Counter[str] = Counter()
    found: dict[str, Binding] = {}

    def bind(name: str, binding: Binding | None = None) -> None:
        count[name] += 1
        if binding is not None:
            found[name] = binding

    def visit(stmts: list[ast.stmt]) -> None:
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bind(s.name, Binding(f"{module}.{s.name}", decorated=bool(s.decorator_list)))
            elif isinstance(s, ast.ImportFrom):
                base = absolute(s, module, is_package)
                for a in s.names:
                    bind(a.asname or a.name, Binding(module=base, name=a.name))
            elif isinstance(s, ast.Import):
                for a in s.names:
                    bind(a.asname or a.name.split(".")[0])
            else:
                for part in own_parts(s):
                    for n in ast.walk(part):
                        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                            bind(n.id)
                        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
                            bind(n.name)
                        elif isinstance(n, ast.MatchMapping) and n.rest:
                            bind(n.rest)
                for block in ("body", "orelse", "finalbody"):
                    visit(getattr(s, block, []))
                for handler in getattr(s, "handlers", []):
                    if handler.name:
                        bind(handler.name)
                    visit(handler.body)
                for case in getattr(s, "cases", []):
                    visit(case.body)

    visit(tree.body)
    for node in ast.walk(tree):  # a function's `global name` may rebind it
        if isinstance(node, ast.Global):
            for name in node.names:
                count[name] += 1
    return {name: found.get(name) if n == 1 else None for name, n in count.items()}


def own_parts(s: ast.stmt) -> list[ast.AST]:
    """A statement's expressions, targets and patterns, not the statements nested in it."""
    out: list[ast.AST] = []
    for _, value in ast.iter_fields(s):
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, ast.match_case):
                out.append(v.pattern)
            elif isinstance(v, ast.AST) and not isinstance(v, (ast.stmt, ast.excepthandler)):
                out.append(v)
    return out


def absolute(s: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not s.level:
        return s.module or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (s.level - 1)] if s.level > 1 else base
    return ".".join([*base, s.module] if s.module else base)


def resolve(binding: Binding | None, exports: dict[str, dict[str, Binding | None]], hops: int = 8) -> Binding | None:
    """The def or class a binding comes to through `from M import name` chains of the tree (None: elsewhere)."""
    while binding is not None and not binding.symbol and hops:
        binding = exports.get(binding.module, {}).get(binding.name)
        hops -= 1
    return binding if binding is not None and binding.symbol else None


def module_scoped(table: symtable.SymbolTable, name: str) -> bool:
    """Whether `name`, read in the scope `table`, is the module's (a global: no function around binds it)."""
    try:
        sym = table.lookup(name)
    except KeyError:
        return table.get_type() != "function"
    if table.get_type() == "module":
        return True
    if sym.is_local() or sym.is_free() or sym.is_parameter():
        return False
    return sym.is_global() or table.get_type() == "class"


def simple_calls(path: str, tree: ast.Module, source: str, module: str, exports: dict) -> list[SimpleCall]:
    """The calls of the simplest kind in one module, each with the def or class it reaches."""
    bindings = exports[module]
    top = symtable.symtable(source, path, "exec")
    out: list[SimpleCall] = []

    def visit(nodes: list[ast.AST], table: symtable.SymbolTable, children: list[symtable.SymbolTable]) -> None:
        for node in nodes:
            inner = scope_of(node, children)
            if inner is not None:
                visit(scope_parts(node), table, children)  # defaults, decorators, bases: evaluated outside
                visit(inside(node), inner, list(inner.get_children()))
                continue
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                found = resolve(bindings.get(node.func.id), exports)
                if found is not None and module_scoped(table, node.func.id):
                    end = (node.end_lineno or 0, node.end_col_offset or 0)
                    out.append(SimpleCall(path, node.lineno, end, found.symbol, found.decorated, module))
            visit(list(ast.iter_child_nodes(node)), table, children)

    visit(list(ast.iter_child_nodes(tree)), top, list(top.get_children()))
    return out


def inside(node: ast.AST) -> list[ast.AST]:
    """The parts of a scope's node evaluated inside its scope (a comprehension's first iterable is not)."""
    if type(node) in COMPREHENSIONS:
        first = node.generators[0]
        parts: list[ast.AST] = [first.target, *first.ifs, *node.generators[1:]]
        return parts + ([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt])
    skip = set(map(id, scope_parts(node)))
    return [c for c in ast.iter_child_nodes(node) if id(c) not in skip and not isinstance(c, ast.arguments)]


SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
COMPREHENSIONS = {
    ast.ListComp: "listcomp",
    ast.SetComp: "setcomp",
    ast.DictComp: "dictcomp",
    ast.GeneratorExp: "genexpr",
}


def scope_of(node: ast.AST, children: list[symtable.SymbolTable]) -> symtable.SymbolTable | None:
    """The symbol table of the scope `node` opens (taken from `children` in source order), or None."""
    if isinstance(node, SCOPES):
        name = "lambda" if isinstance(node, ast.Lambda) else node.name
    elif type(node) in COMPREHENSIONS:
        name = COMPREHENSIONS[type(node)]
    else:
        return None
    for i, t in enumerate(children):
        if t.get_name() == name:
            return children.pop(i)
    return None


def scope_parts(node: ast.AST) -> list[ast.AST]:
    """What a def, class, lambda or comprehension evaluates in the scope around it."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = node.args
        parts: list[ast.AST] = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
        if not isinstance(node, ast.Lambda):  # in the order symtable visits them
            parts += [a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.annotation]
            parts += [a.annotation for a in (args.vararg, args.kwarg) if a is not None and a.annotation]
            parts += [node.returns] if node.returns else []
            parts += node.decorator_list
        return parts
    if isinstance(node, ast.ClassDef):
        return [*node.bases, *node.keywords, *node.decorator_list]
    if type(node) in COMPREHENSIONS:
        return [node.generators[0].iter]
    return []


def held(call: SimpleCall, row: tuple[SiteStatus, tuple[str, ...]] | None) -> bool:
    if row is None or row[0] is not SiteStatus.IN_TREE:
        return False
    targets = row[1]
    if call.target in targets or call.decorated:
        return True
    return any(t.startswith(call.target + ".") or t.rsplit(".", 1)[-1] in CONSTRUCTORS for t in targets)


def rows_by_end(table: SiteTable) -> dict[tuple[str, int, int], int]:
    return {(table.path(i), table.end_lines[i], table.end_cols[i]): i for i in range(len(table))}


def run(framework: str, pin_set: str, num_misses: int) -> bool:
    settings = load_settings()
    (manifest,) = load_all(settings.root, [framework])
    g = load_graph(settings, framework, pin_set)
    root = Path(load_index(settings, framework, pin_set).root)
    table = g.sites
    by_end = rows_by_end(table)
    paths = sorted({s.span.path for s in g.symbols.values() if s.span and s.span.path.endswith(".py")})
    parsed: dict[str, tuple[ast.Module, str, str]] = {}
    exports: dict[str, dict[str, Binding | None]] = {}
    for path in paths:
        source = (root / path).read_bytes().decode("utf-8-sig", errors="replace")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        module, is_package = module_name(path, manifest.package_root)
        parsed[path] = (tree, source, module)
        exports[module] = module_bindings(tree, module, is_package)
    per_component: dict[str, list[int]] = {}
    misses: dict[str, list[str]] = {}
    num_calls = 0
    without_row: list[str] = []
    for path, (tree, source, module) in parsed.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                num_calls += 1
                if (path, node.end_lineno, node.end_col_offset) not in by_end:
                    text = ast.get_source_segment(source, node)
                    without_row.append(f"{path}:{node.lineno}:{node.col_offset}  {text}")
        comp = components.component_of(framework, module) or ""
        for call in simple_calls(path, tree, source, module, exports):
            i = by_end.get((path, *call.end))
            row = (STATUSES[table.statuses[i]], table.targets(i)) if i is not None else None
            counts = per_component.setdefault(comp, [0, 0])
            counts[1] += 1
            if held(call, row):
                counts[0] += 1
                continue
            site = table.site(i) if i is not None else None
            what = (
                "no row"
                if site is None
                else f"{site.status.value}: {site.reason.value if site.reason else ', '.join(site.targets)}"
            )
            misses.setdefault(comp, []).append(f"{path}:{call.line}  -> {call.target}  [{what}]")
    ok = True
    print(f"{framework} {g.pin.ref}: calls of the simplest kind held, per component (target {TARGET:.1%} in the core)")
    for comp, (num_held, num) in sorted(per_component.items()):
        core = comp not in NOT_CORE
        share = num_held / num if num else 1.0
        ok &= share >= TARGET or not core
        print(f"  {comp or '(none)':24} {num_held:6} / {num:6}  {share:7.2%}{'' if core else '  (not core)'}")
        for miss in misses.get(comp, [])[:num_misses]:
            print(f"      {miss}")
        if len(misses.get(comp, [])) > num_misses:
            print(f"      ... {len(misses[comp]) - num_misses} more")
    counts = table.counts()
    print(f"  call sites per status ({len(table)} in {len(parsed)} files):")
    for status, n in counts.items():
        print(f"    {status:20} {n:7}  {n / max(len(table), 1):6.1%}")
    for reason, n in g.stats.get("unresolved", {}).items():
        print(f"      {reason:40} {n:6}")
    print(f"  ast.Call without a row: {len(without_row)} of {num_calls}")
    for call in without_row[:num_misses]:
        print(f"      {call[:160]}")
    return ok and not without_row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("frameworks", nargs="*", default=["vllm", "sglang"])
    p.add_argument("--pins", default="default")
    p.add_argument("--misses", type=int, default=40, help="misses listed per component (default 40)")
    args = p.parse_args(argv)
    ok = all([run(f, args.pins, args.misses) for f in args.frameworks])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
