"""Where a broken anchor or evidence item went at the new pin: the rules `atlas diff` proposes new anchors by. Pure:
takes both symbol indexes (anything with `.symbols`, `.get`, `.source`) and the symbol changes.

Rules, tried in order for an item whose code was at (symbol, pattern, occurrence) at OLD:
- renamed: the symbol was renamed, moved or split (the symbol changes say where); the pattern is looked for there.
- occurrence: the pattern matches a different number of times; the match whose surrounding lines read most like the
  old match's is taken.
- helper: the statement moved into a function the old symbol now calls (`self.helper(...)`, `helper(...)`).
- moved: the statement is found, unchanged, in another symbol anywhere in the tree (a module split, a class
  merged into its base); candidates are files holding every name of the pattern, ranked by the lines around.
- relaxed: one part of the pattern changed (a renamed attribute or callee, a changed default or argument): the
  pattern with that part as `...` matches in the symbol (or its helpers); the new code's own statement becomes the
  pattern, and a changed constant flags the claim's verdict for review.
- renamed variable: the assigned value alone (an expression pattern), for `x = VALUE` that became `y = VALUE`.
- walrus: `if (f := E) or ...` became `f = E` then `if f or ...`.
- keyword: a call lost or renamed one keyword argument (the call matched without it; the new code's call kept).
- setter: `obj.attr = VALUE` became a call passing `attr=VALUE` (a setting written through a helper call).
- attribute: an attribute read through another object (`req.x` -> `req.kv.x`), the code perhaps moved too: the
  pattern with the attribute's object as `...` matches in at most three places anywhere; the best read one wins.
- field: a class's field definition (`name: T = V` in the class body, `self.name = V` in a method) that no rule
  above found: the definition of that name in the same class (a changed default or annotation), else in the one
  class that gained it (a config class split into field groups, a field moved onto a sub-object's class); a changed
  value flags the claim's verdict for review.
- same-name: a whole-symbol anchor whose symbol is gone: the symbol of that name in the same module (e.g. a
  subclass's override folded into its base class), else elsewhere with the most similar body (at least half)."""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass, replace

from atlas.annotate.pattern import NodeTable, compile_pattern, find
from atlas.annotate.resolve import Resolver
from atlas.diff.symbols import Bodies, similarity
from atlas.diff.variants import (COMMON, MAX_PATTERN, WORD, filled, keyword_forms, receiver_relaxations,
                                 relaxations, statement_text)
from atlas.model import Change, ChangeKind, SymbolKind

CODE = (SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.CLASS)
WINDOW = 4  # lines either side of a match compared to rank candidates
MIN_SCORE = 0.45  # a moved or relaxed match reads at least this much like the old one (lines around, pattern text)
_CALL = re.compile(r"(?:self\.|cls\.)?([A-Za-z_][A-Za-z0-9_]*)\s*\(")


@dataclass(frozen=True, slots=True)
class Hit:
    symbol: str  # the innermost code symbol holding the match at NEW
    path: str
    line: int
    end_line: int
    pattern: str  # the pattern that matched (the original, or the new statement for a relaxed one)
    occurrence: int  # its occurrence inside `symbol`
    rule: str
    score: float
    changed_constant: bool = False


class Finder:
    """Looks for where code went between two indexes; parses each file of NEW once."""

    def __init__(self, old, new, changes: list[Change], same_paths: set[str] | frozenset = frozenset()):
        self.old, self.new = old, new
        self.same_paths = same_paths  # files equal at both pins: code that moved did not move into them
        self.went: dict[str, list[str]] = {}
        for c in changes:
            if c.kind in (ChangeKind.RENAMED, ChangeKind.MOVED, ChangeKind.SPLIT) and c.new_symbol:
                self.went[c.symbol] = c.new_symbol.split(", ")
        self._resolver, self._old_resolver = Resolver(new), Resolver(old)
        self._lines: dict[tuple[int, str], list[str]] = {}
        self._by_path: dict[str, list[tuple[int, int, str]]] | None = None
        self._files: list[str] | None = None
        self._by_name: dict[str, list[str]] | None = None

    # -- sources ------------------------------------------------------------------------------------------------
    def lines(self, side, path: str) -> list[str]:
        key = (id(side), path)
        if key not in self._lines:
            self._lines[key] = side.source(path).splitlines()
        return self._lines[key]

    def table(self, sid: str) -> NodeTable | None:
        """The nodes of one symbol of NEW (only its lines are parsed: big files stay cheap)."""
        span = self.new.get(sid).span
        try:
            return self._resolver.table(span)
        except (SyntaxError, ValueError):
            return None

    def enclosing(self, path: str, line: int) -> str:
        """The innermost function, method or class of NEW holding `line` of `path` (lambdas left out)."""
        if self._by_path is None:
            self._by_path = {}
            for sid, s in self.new.symbols.items():
                if s.kind in CODE and s.span and "<" not in sid:
                    self._by_path.setdefault(s.span.path, []).append((s.span.start, s.span.end, sid))
        inside = [(end - start, sid) for start, end, sid in self._by_path.get(path, ()) if start <= line <= end]
        return min(inside)[1] if inside else ""

    def context(self, side, path: str, start: int, end: int) -> list[str]:
        lines = self.lines(side, path)
        return [t.strip() for t in lines[max(0, start - 1 - WINDOW):end + WINDOW] if t.strip()]

    # -- rules ----------------------------------------------------------------------------------------------------
    def targets(self, symbol: str) -> list[str]:
        """Where `symbol` is at NEW: itself, or what the symbol changes say it became."""
        if self.new.get(symbol) is not None:
            return [symbol]
        return [s for s in self.went.get(symbol, []) if self.new.get(s) is not None]

    def helpers(self, symbols: list[str]) -> list[str]:
        """Functions of NEW that `symbols` call by a plain or self./cls. name: methods of the same class first,
        then functions of the same module."""
        out: list[str] = []
        for sid in symbols:
            s = self.new.get(sid)
            if s is None or s.span is None:
                continue
            body = "\n".join(self.lines(self.new, s.span.path)[s.span.start:s.span.end])
            owner, module = sid.rsplit(".", 1)[0], sid.rsplit(".", 2)[0]
            for name in dict.fromkeys(_CALL.findall(body)):
                local = [c for c in (f"{owner}.{name}", f"{module}.{name}") if self.new.get(c) is not None]
                if not local and name not in COMMON:  # an imported function: the one of that name in the tree
                    found = [c for c in self._named(name) if self.new.get(c).kind is SymbolKind.FUNCTION]
                    local = found if len(found) == 1 else []
                out += [c for c in local if c != sid and c not in out]
        return out

    def _named(self, name: str) -> list[str]:
        if self._by_name is None:
            self._by_name = {}
            for sid, sym in self.new.symbols.items():
                if sym.kind in CODE:
                    self._by_name.setdefault(sid.rsplit(".", 1)[-1], []).append(sid)
        return self._by_name.get(name, [])

    def hits_in(self, symbols: list[str], pattern: str) -> list[tuple[str, ast.AST]]:
        compiled = compile_pattern(pattern)
        out = []
        for sid in symbols:
            span = self.new.get(sid).span
            table = self.table(sid) if span else None
            if table is not None:
                out += [(sid, n) for n in find(compiled, table, span.start, span.end)]
        return out

    def hits_anywhere(self, pattern: str) -> list[tuple[str, ast.AST]]:
        """Matches of the pattern in every file of NEW that holds all of its names (a cheap text filter first)."""
        words = set(WORD.findall(pattern)) - COMMON
        if not words:
            return []
        if self._files is None:
            self._files = sorted({s.span.path for s in self.new.symbols.values()
                                  if s.kind is SymbolKind.MODULE and s.span and s.span.path.endswith(".py")})
        compiled = compile_pattern(pattern)
        longest = max(words, key=len)
        out = []
        for path in self._files:
            if path in self.same_paths:
                continue
            text = "\n".join(self.lines(self.new, path))
            if not all(w in text for w in words) or not _near(text, longest, words):
                continue
            lines = self.lines(self.new, path)
            holders = {self.enclosing(path, i + 1) for i, line in enumerate(lines) if longest in line}
            holders.discard("")
            for holder in sorted(holders):  # parse only the symbols that hold the pattern's rarest name
                span = self.new.get(holder).span
                table = self.table(holder)
                for node in find(compiled, table, span.start, span.end) if table is not None else ():
                    out.append((self.enclosing(path, node.lineno) or holder, node))
        return out

    def locate(self, symbol: str, pattern: str, occurrence: int) -> Hit | None:
        """Where (symbol, pattern, occurrence) of OLD is at NEW, by the rules above; None when no rule finds it."""
        old = self.old.get(symbol)
        if old is None or old.span is None:
            return None
        if not pattern:
            return self._whole(symbol)
        old_nodes = find(compile_pattern(pattern), self._old_resolver.table(old.span), old.span.start, old.span.end)
        if occurrence > len(old_nodes):
            return None
        node = old_nodes[occurrence - 1]
        before = self.context(self.old, old.span.path, node.lineno, node.end_lineno)
        targets = self.targets(symbol)
        renamed = bool(targets) and targets != [symbol]
        helpers = self.helpers(targets)
        helpers += [h for h in self.helpers(helpers) if h not in helpers and h not in targets]  # two calls deep
        for rule, scope in (("renamed" if renamed else "occurrence", targets), ("helper", helpers)):
            hits = self.hits_in(scope, pattern)
            if hits:
                return self._best(hits, before, pattern, rule, targets)
        hits = self.hits_anywhere(pattern)
        if hits:
            best = self._best(hits, before, pattern, "moved", targets)
            if best.score >= MIN_SCORE:
                return best
        found = []
        variants = [(r, False) for r in keyword_forms(pattern)] + list(relaxations(pattern))
        variants += [(r2, c) for r in receiver_relaxations(pattern) for r2, c in [(r, False), *relaxations(r)]]
        for relaxed, constant in variants:
            hits = self.hits_in(targets + helpers, relaxed)
            close = difflib.SequenceMatcher(None, pattern, relaxed, autojunk=False).ratio() >= 0.8
            if 0 < len(hits) <= (6 if close else 3):  # a pattern still close to the old one may match more often
                best = self._best(hits, before, relaxed, "relaxed", targets, concrete=True, constant=constant,
                                  helpers=helpers, orig=pattern)
                text = difflib.SequenceMatcher(None, pattern, best.pattern, autojunk=False).ratio()
                found.append((0.5 * best.score + 0.5 * text, best))
        if not found:  # an attribute moved under a sub-object (`req.x` -> `req.kv.x`), and the code to another module
            for relaxed in receiver_relaxations(pattern):
                hits = self.hits_anywhere(relaxed)
                if 0 < len(hits) <= 3:
                    best = self._best(hits, before, relaxed, "attribute", targets, concrete=True)
                    if best.score < 0.25:  # another module's code must still read like the old lines around
                        continue
                    text = difflib.SequenceMatcher(None, pattern, best.pattern, autojunk=False).ratio()
                    found.append((0.5 * best.score + 0.5 * text, best))
        found = [f for f in found if f[0] >= MIN_SCORE]
        if found:
            return max(found, key=lambda f: f[0])[1]
        return self._field(symbol, pattern, node, before, targets)

    def _field(self, symbol: str, pattern: str, node: ast.AST, before: list[str], targets: list[str]) -> Hit | None:
        name = _field_name(node)
        old_class = symbol if self.old.get(symbol).kind is SymbolKind.CLASS else symbol.rsplit(".", 1)[0]
        owner = self.old.get(old_class)
        if not name or owner is None or owner.kind is not SymbolKind.CLASS:
            return None
        forms = [pattern, f"{name}: ... = ...", f"{name}: ...", f"self.{name} = ...", f"self.{name}: ... = ..."]
        homes = self.targets(old_class)
        form, matches = _first(forms, lambda f: self.hits_in(homes, f))
        if not matches:  # the field left its class: the one class that gained a field of that name
            form, matches = _first(forms, lambda f: [h for h in self.hits_anywhere(f)
                                                     if self._gained(self._class_of(h[0]), name)])
            if len({self._class_of(sid) for sid, _ in matches}) != 1:
                return None
        best = self._best(matches, before, form, "field", targets, concrete=form != pattern)
        value = getattr(node, "value", None)
        new_value = getattr(compile_pattern(best.pattern).node, "value", None)
        changed = value is not None and (new_value is None or ast.dump(value) != ast.dump(new_value))
        return replace(best, changed_constant=changed and not _is_ellipsis(value))

    def _class_of(self, sid: str) -> str:
        """The class `sid` is (a class-level field) or whose method it is; "" for neither."""
        for candidate in (sid, sid.rsplit(".", 1)[0]):
            s = self.new.get(candidate)
            if s is not None and s.kind is SymbolKind.CLASS:
                return candidate
        return ""

    def _gained(self, cls: str, name: str) -> bool:
        """Whether class `cls` of NEW defines field `name` where OLD's class of that id did not (or did not exist)."""
        if not cls:
            return False
        old = self.old.get(cls)
        if old is None or old.span is None or old.kind is not SymbolKind.CLASS:
            return True
        text = "\n".join(self.lines(self.old, old.span.path)[old.span.start - 1:old.span.end])
        return re.search(rf"(^\s*|self\.){re.escape(name)}\s*[:=]", text, re.M) is None

    def _whole(self, symbol: str) -> Hit | None:
        targets = self.targets(symbol)
        rule = "renamed"
        if not targets:
            name = symbol.rsplit(".", 1)[-1]
            kind = self.old.get(symbol).kind
            old_body = Bodies(self.old)[symbol]
            new_bodies = Bodies(self.new)
            scored = sorted((-similarity(old_body, new_bodies[sid]), sid) for sid, s in self.new.symbols.items()
                            if sid.rsplit(".", 1)[-1] == name and s.kind is kind and s.span)
            module = symbol.rsplit(".", 2 if kind is SymbolKind.METHOD else 1)[0]  # a method: its class's module
            same_module = [(score, sid) for score, sid in scored if sid.startswith(module + ".")]
            if same_module:  # e.g. an override folded into the base class beside it
                scored = same_module
            elif not scored or -scored[0][0] < 0.5:
                return None
            targets, rule = [scored[0][1]], "same-name"
        s = self.new.get(targets[0])
        return Hit(targets[0], s.span.path, s.span.start, s.span.end, "", 1, rule, 1.0)

    def _best(self, hits, before, pattern, rule, targets, concrete=False, constant=False, helpers=(),
              orig: str = "") -> Hit:
        def score(hit):
            sid, node = hit
            path = self.new.get(sid).span.path
            ratio = difflib.SequenceMatcher(None, before, self.context(self.new, path, node.lineno, node.end_lineno),
                                            autojunk=False).ratio()
            if any(sid == t or sid.startswith(t + ".") for t in targets):
                return ratio + 0.3
            return ratio + (0.2 if sid in helpers else 0.0)  # code the old symbol now calls

        sid, node = max(hits, key=lambda h: (score(h), -h[1].lineno))
        text = (filled(orig, pattern, node) or statement_text(node)) if concrete else pattern
        if concrete and len(text) > MAX_PATTERN:
            text = pattern
        # the symbol to anchor to: keep a target that holds the match; else the innermost symbol around it
        holder = next((t for t in targets if self._holds(t, self.new.get(sid).span.path, node)), sid)
        mine = self.hits_in([holder], text)
        nth = next((i + 1 for i, (_, n) in enumerate(mine) if n.lineno == node.lineno
                    and n.col_offset == node.col_offset), 1)
        span = self.new.get(holder).span
        return Hit(holder, span.path, node.lineno, node.end_lineno, text, nth, rule, score((sid, node)), constant)

    def _holds(self, symbol: str, path: str, node: ast.AST) -> bool:
        s = self.new.get(symbol)
        return (s is not None and s.span is not None and s.span.path == path
                and s.span.start <= node.lineno <= s.span.end)


def _field_name(node: ast.AST) -> str:
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


def _first(forms: list[str], search) -> tuple[str, list]:
    """The first form `search` finds matches of, with them; ("", []) when none matches."""
    for form in forms:
        found = search(form)
        if found:
            return form, found
    return "", []


def _is_ellipsis(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _near(text: str, anchor: str, words: set[str], reach: int = 600) -> bool:
    """Whether every word occurs within `reach` characters of one occurrence of `anchor` (a statement's names sit
    close together; files that merely mention them all are not parsed)."""
    start = text.find(anchor)
    while start >= 0:
        window = text[max(0, start - reach):start + reach]
        if all(w in window for w in words):
            return True
        start = text.find(anchor, start + 1)
    return False
