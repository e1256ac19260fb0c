"""The field rule of atlas.diff.suggest: a class's field definition (`name: T = V` in the class body, `self.name = V`
in a method) that no other rule found is looked for by its name: in the same class (a changed default or
annotation), else in the one class that gained it (a config class split into field groups, a field moved onto a
sub-object's class). Pure, over the Finder's two indexes."""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from atlas.annotate.pattern import compile_pattern
from atlas.model import SymbolKind


def field_hit(finder, symbol: str, pattern: str, item):
    """The Hit for the field definition `item.node` (an atlas.diff.suggest.Sought) of OLD's `symbol`, or None; a
    changed value flags the claim's verdict for review."""
    node = item.node
    name = field_name(node)
    old_class = symbol if finder.old.get(symbol).kind is SymbolKind.CLASS else symbol.rsplit(".", 1)[0]
    owner = finder.old.get(old_class)
    if not name or owner is None or owner.kind is not SymbolKind.CLASS:
        return None
    forms = [pattern, f"{name}: ... = ...", f"{name}: ...", f"self.{name} = ...", f"self.{name}: ... = ..."]
    homes = finder.targets(old_class)
    form, matches = _first(forms, lambda f: finder.hits_in(homes, f))
    if not matches:  # the field left its class: the one class that gained a field of that name
        form, matches = _first(
            forms, lambda f: [h for h in finder.hits_anywhere(f) if _gained(finder, class_of(finder.new, h[0]), name)]
        )
        if len({class_of(finder.new, sid) for sid, _ in matches}) != 1:
            return None
    best = finder.best(matches, item, form, "field", concrete=form != pattern)
    value = getattr(node, "value", None)
    new_value = getattr(compile_pattern(best.pattern).node, "value", None)
    changed = value is not None and (new_value is None or ast.dump(value) != ast.dump(new_value))
    return replace(best, changed_constant=changed and not _is_ellipsis(value))


def field_name(node: ast.AST) -> str:
    """The field a statement defines: `name: T [= V]` (a class body) or `self.name [: T] = V`; "" otherwise."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    if len(targets) != 1:
        return ""
    t = targets[0]
    if isinstance(t, ast.Name) and isinstance(node, ast.AnnAssign):
        return t.id
    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
        return t.attr
    return ""


def class_of(index, sid: str) -> str:
    """The class `sid` is (a class-level field) or whose method it is; "" for neither."""
    for candidate in (sid, sid.rsplit(".", 1)[0]):
        s = index.get(candidate)
        if s is not None and s.kind is SymbolKind.CLASS:
            return candidate
    return ""


def _gained(finder, cls: str, name: str) -> bool:
    """Whether class `cls` of NEW defines field `name` where OLD's class of that id did not (or did not exist)."""
    if not cls:
        return False
    old = finder.old.get(cls)
    if old is None or old.span is None or old.kind is not SymbolKind.CLASS:
        return True
    text = "\n".join(finder.lines(finder.old, old.span.path)[old.span.start - 1 : old.span.end])
    return re.search(rf"(^\s*|self\.){re.escape(name)}\s*[:=]", text, re.M) is None


def _first(forms: list[str], search) -> tuple[str, list]:
    """The first form `search` finds matches of, with them; ("", []) when none matches."""
    for form in forms:
        found = search(form)
        if found:
            return form, found
    return "", []


def _is_ellipsis(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis
