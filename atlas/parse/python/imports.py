"""Imports for the Python walker: `import` and `from ... import` statements, relative module names made absolute."""

from __future__ import annotations

import sys
from typing import Any

from atlas.parse.python.grammar import F_ALIAS, F_MODULE_NAME, F_NAME
from atlas.parse.python.ir import Import, ImportedName, ImportFrom, NameTarget
from atlas.parse.python.walk import FileWalk


def import_statement(w: FileWalk, node: Any) -> None:
    line = node.start_point[0] + 1
    if node.type == "import_statement":
        for child in node.named_children:
            if child.type == "aliased_import":
                alias = w.name(child.child_by_field_id(F_ALIAS))
                w.bind(alias)
                w.emit(Import(w.name(child.child_by_field_id(F_NAME)), NameTarget(alias), True, line))
            else:
                module = w.name(child)
                top = sys.intern(module.split(".")[0])
                w.bind(top)
                w.emit(Import(module, NameTarget(top), False, line))
        return
    if node.type == "future_import_statement":
        return
    module_node = node.child_by_field_id(F_MODULE_NAME)
    module = sys.intern(absolute(w, w.text(module_node).replace(" ", "")))
    names: list[ImportedName] = []
    for child in node.named_children:
        if child == module_node:
            continue
        if child.type == "wildcard_import":
            names.append(ImportedName("*", NameTarget("*")))
        elif child.type == "aliased_import":
            alias = w.name(child.child_by_field_id(F_ALIAS))
            w.bind(alias)
            names.append(ImportedName(w.name(child.child_by_field_id(F_NAME)), NameTarget(alias)))
        elif child.type == "dotted_name":
            name = w.name(child)
            w.bind(name)
            names.append(ImportedName(name, NameTarget(name)))
    w.emit(ImportFrom(module, tuple(names), line))


def absolute(w: FileWalk, module: str) -> str:
    """`module` as written in a `from` import of this file, made absolute."""
    if not module.startswith("."):
        return module
    level = len(module) - len(module.lstrip("."))
    parts = w.module.split(".")
    base = parts if w.is_package else parts[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    rest = module[level:]
    return ".".join([*base, rest] if rest else base)
