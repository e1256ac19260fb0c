"""Where a broken anchor or evidence item went at the new pin: the rules `atlas diff` proposes new anchors by. Pure:
takes both symbol indexes (anything with `.symbols`, `.get`, `.source`), the symbol changes and, when built, NEW's
call graph.

Rules, tried in order for an item whose code was at (symbol, pattern, occurrence) at OLD:
- renamed: the symbol was renamed, moved or split (the symbol changes say where); the pattern is looked for there.
  A symbol gone with no rename is looked for in its namesake (same-name, below), statement anchors included.
- occurrence: the pattern matches a different number of times; the match whose surrounding lines read most like the
  old match's is taken.
- helper: the statement moved into a function the old symbol now calls (`self.helper(...)`, `helper(...)`), one or
  two calls deep.
- typed helper: the statement moved into a method of another object that the old symbol now calls, as the call
  graph resolves it by type (`self.allocator.check_decode_capacity(...)`; needs NEW's graph), one or two calls
  deep; the pattern is also read as the callee writes it (the call's receiver as `self`, each argument as its
  parameter: atlas.diff.rebase).
- extracted condition: `if COND: ...` became `if [not] self.helper(...): ...` where a helper the symbol calls
  returns an expression using every name of COND.
- moved: the statement is found, unchanged, in another symbol anywhere in the tree (a module split, a class
  merged into its base); candidates are files holding every name of the pattern, ranked by the lines around.
- relaxed: one part of the pattern changed (a renamed attribute or callee, a changed default or argument): the
  pattern with that part as `...` matches in the symbol (or its helpers); the new code's own statement becomes the
  pattern, and a changed constant flags the claim's verdict for review.
- renamed variable: the assigned value alone (an expression pattern), for `x = VALUE` that became `y = VALUE`.
- walrus: `if (f := E) or ...` became `f = E` then `if f or ...`.
- keyword: a call lost or renamed one keyword argument (the call matched without it; the new code's call kept).
- condition: an `if`/`while`/`assert` condition lost one `and`/`or` term, or gained one (`assert C` -> `assert C or
  X`).
- setter: `obj.attr = VALUE` became a call passing `attr=VALUE` (a setting written through a helper call).
- attribute: an attribute read through another object (`req.x` -> `req.kv.x`), or a function become a property of
  an object (`is_musa()` -> `get_platform().is_musa`), the code perhaps moved too: the pattern with the attribute's
  object as `...` matches anywhere; the best read one wins.
- field: a class's field definition that no rule above found: the definition of that name in the same class, else
  in the one class that gained it (atlas.diff.fields); a changed value flags the claim's verdict for review.
- same-name: a whole-symbol anchor whose symbol is gone: the symbol of that name in the same module (e.g. a
  subclass's override folded into its base class), else the method of that name of a base class of its class
  (another module's base), else elsewhere with the most similar body (at least half).

Ranking, for every rule, with no cap on the number of matches: each other statement of OLD that the same pattern
matches (in the symbol, or where a candidate's symbol was at OLD) is paired with the candidate reading most like
it, and a candidate so paired is that statement's counterpart, not a move of this one (the other admission path
that kept its own `self.new_chunked_req = req`); the others are ranked by their context (atlas.diff.ranking: the
lines around, the nearest most, the names they use, the block holding them; in the symbol or its renamed
counterpart, in a helper, in the same class). A relaxed, attribute, tree-wide or extracted-condition match is taken
only when it is clearly the best of all its matches, by its place and its own text."""

from __future__ import annotations

import ast
import difflib
import os
from dataclasses import dataclass

from atlas.annotate.pattern import compile_pattern, find
from atlas.diff.fields import class_of, field_hit
from atlas.diff.helpers import Callees, Helper
from atlas.diff.ranking import Window, clearly_best, counterparts, names, similarity
from atlas.diff.search import Trees
from atlas.diff.symbols import Bodies
from atlas.diff.symbols import similarity as body_similarity
from atlas.diff.variants import MAX_PATTERN, filled, keyword_forms, receiver_relaxations, relaxations, statement_text
from atlas.model import Change, SymbolKind

MIN_SCORE = 0.45  # a moved or relaxed match reads at least this much like the old one (lines around, pattern text)


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


@dataclass(frozen=True, slots=True)
class Sought:
    """One old statement looked for at NEW, with what the ranking compares candidates to."""

    symbol: str  # the symbol holding it at OLD
    node: ast.AST  # the statement (or expression) the pattern matched at OLD
    own: str  # its text
    before: Window  # its lines and those around it
    targets: tuple[str, ...]  # where its symbol is at NEW
    helpers: frozenset[str]  # the functions those call (plain and typed), one or two calls deep
    classes: frozenset[str]  # the classes of the targets


class Finder(Trees):
    """Looks for where code went between two trees (atlas.diff.search). `graph`: NEW's call graph (anything with
    atlas.graph.AtlasGraph's `callees`), for the typed-helper rule; without it that rule is off."""

    def __init__(self, old, new, changes: list[Change], same_paths: set[str] | frozenset = frozenset(), graph=None):
        super().__init__(old, new, changes, same_paths)
        self.callees = Callees(self, graph)

    # -- the rules ------------------------------------------------------------------------------------------------
    def locate(self, symbol: str, pattern: str, occurrence: int) -> Hit | None:
        """Where (symbol, pattern, occurrence) of OLD is at NEW, by the rules above; None when no rule finds it."""
        old = self.old.get(symbol)
        if old is None or old.span is None:
            return None
        if not pattern:
            return self._whole(symbol)
        old_nodes = find(compile_pattern(pattern), self.table(symbol, self.old), old.span.start, old.span.end)
        if occurrence > len(old_nodes):
            return None
        node = old_nodes[occurrence - 1]
        targets, first = self._homes(symbol)
        frames = [Helper(t) for t in targets]
        helpers, typed = self._helpers(frames)
        item = Sought(
            symbol,
            node,
            statement_text(node),
            self.context(self.old, old.span.path, node),
            tuple(targets),
            frozenset(h.symbol for h in helpers + typed),
            frozenset(filter(None, (class_of(self.new, t) for t in targets))),
        )
        for rule, scope in ((first, frames), ("helper", helpers), ("typed helper", typed)):
            hit = self._exact(item, scope, pattern, rule)
            if hit is not None:
                return hit
        hit = self._condition(item, helpers + typed)
        if hit is not None:
            return hit
        best = self._clear(self.hits_anywhere(pattern), item, pattern, "moved")
        if best is not None and best.score >= MIN_SCORE:
            return best
        return self._relaxed(item, pattern, frames + helpers + typed) or field_hit(self, symbol, pattern, item)

    def _homes(self, symbol: str) -> tuple[list[str], str]:
        """Where the old symbol's code is looked for first, and the rule a match there is found by: the symbol, its
        renamed counterparts, or (gone with no rename) its namesake."""
        targets = self.targets(symbol)
        if targets:
            return targets, "renamed" if targets != [symbol] else "occurrence"
        namesake = self.same_name(symbol)
        return ([namesake], "same-name") if namesake else ([], "occurrence")

    def _helpers(self, frames: list[Helper]) -> tuple[list[Helper], list[Helper]]:
        """The functions the targets call by name, and the methods of other objects the call graph says they call
        by type, each one or two calls deep."""
        seen = {h.symbol for h in frames}
        near = self.callees.plain(frames, seen)
        helpers = near + self.callees.plain(near, seen)
        typed = self.callees.typed(frames + near, seen)
        return helpers, typed + self.callees.typed(typed, seen) + self.callees.plain(typed, seen)

    def _exact(self, item: Sought, scope: list[Helper], pattern: str, rule: str) -> Hit | None:
        """The pattern, or as a helper's own code writes it, in `scope`: the best read match."""
        found = []
        for h in scope:
            for form in dict.fromkeys((pattern, h.read(pattern))):
                hits = self._untaken(self.hits_in([h.symbol], form), item, form)
                if hits:
                    found.append(self.best(hits, item, form, rule))
        return max(found, key=lambda hit: hit.score) if found else None

    def _condition(self, item: Sought, helpers: list[Helper]) -> Hit | None:
        """`if COND: ...` became `if [not] self.helper(...): ...`: a helper the symbol calls returns an expression
        using every name of COND (as the helper names them), and a statement of the symbol tests a call of it."""
        node = item.node
        if not isinstance(node, (ast.If, ast.While)):
            return None
        cond = ast.unparse(node.test)
        hits = []
        for h in helpers:
            wanted = names([h.read(cond)])
            table, span = self.table(h.symbol), self.new.get(h.symbol).span
            if (
                len(wanted) < 2
                or table is None
                or not any(
                    r.value is not None and wanted <= names([ast.unparse(r.value)])
                    for r in table.within(ast.Return, span.start, span.end)
                )
            ):
                continue
            name = h.symbol.rsplit(".", 1)[-1]
            for t in item.targets:
                t_table, t_span = self.table(t), self.new.get(t).span
                for stmt in t_table.within(type(node), t_span.start, t_span.end) if t_table is not None else ():
                    if any(isinstance(c, ast.Call) and _callee_name(c) == name for c in ast.walk(stmt.test)):
                        hits.append((t, stmt))
        return self._clear(hits, item, "", "extracted condition", concrete=True)  # no old statement to pair

    def _relaxed(self, item: Sought, pattern: str, scope: list[Helper]) -> Hit | None:
        """One part of the pattern changed (relaxed, keyword, setter, renamed variable, walrus), searched in the
        symbol and its helpers, each helper with the pattern as it reads there; else an attribute read through
        another object, anywhere (the attribute rule)."""
        readings: dict[str, list[str]] = {}
        for h in scope:
            for form in dict.fromkeys((pattern, h.read(pattern))):
                readings.setdefault(form, []).append(h.symbol)
        found = []
        for form, symbols in readings.items():
            variants = [(r, False) for r in keyword_forms(form)] + list(relaxations(form))
            variants += [(r2, c) for r in receiver_relaxations(form) for r2, c in [(r, False), *relaxations(r)]]
            for relaxed, constant in variants:
                best = self._clear(
                    self.hits_in(symbols, relaxed),
                    item,
                    relaxed,
                    "relaxed",
                    concrete=True,
                    constant=constant,
                    orig=form,
                )
                if best is not None:
                    found.append((0.5 * best.score + 0.5 * _text_ratio(form, best.pattern), best))
        if not found:  # an attribute moved under a sub-object (`req.x` -> `req.kv.x`), and the code to another module
            for relaxed in receiver_relaxations(pattern):
                best = self._clear(self.hits_anywhere(relaxed), item, relaxed, "attribute", concrete=True)
                if best is not None and best.score >= 0.25:  # another module's code must still read like the old
                    found.append((0.5 * best.score + 0.5 * _text_ratio(pattern, best.pattern), best))
        found = [f for f in found if f[0] >= MIN_SCORE]
        return max(found, key=lambda f: f[0])[1] if found else None

    def _whole(self, symbol: str) -> Hit | None:
        targets, rule = self.targets(symbol), "renamed"
        if not targets:
            targets, rule = [self.same_name(symbol)], "same-name"
        if not targets[0]:
            return None
        s = self.new.get(targets[0])
        return Hit(targets[0], s.span.path, s.span.start, s.span.end, "", 1, rule, 1.0)

    def same_name(self, symbol: str) -> str:
        """A symbol of OLD gone with no rename: the symbol of NEW of that name and kind in the same module (e.g. a
        subclass's override folded into the base class beside it), else the method of that name of a base class of
        its class (an override folded into a base class of another module), else elsewhere with the most similar
        body (at least half); "" for none."""
        name = symbol.rsplit(".", 1)[-1]
        kind = self.old.get(symbol).kind
        old_body = Bodies(self.old)[symbol]
        new_bodies = Bodies(self.new)
        scored = sorted(
            (-body_similarity(old_body, new_bodies[sid]), sid)
            for sid, s in self.new.symbols.items()
            if sid.rsplit(".", 1)[-1] == name and s.kind is kind and s.span
        )
        module = symbol.rsplit(".", 2 if kind is SymbolKind.METHOD else 1)[0]  # a method: its class's module
        same_module = [(score, sid) for score, sid in scored if sid.startswith(module + ".")]
        if same_module:
            return same_module[0][1]
        owner = self.old.get(symbol.rsplit(".", 1)[0]) if kind is SymbolKind.METHOD else None
        for base in owner.bases if owner is not None and owner.kind is SymbolKind.CLASS else ():
            for cls in self._classes(base.rsplit(".", 1)[-1], module):
                if self.new.get(f"{cls}.{name}") is not None:
                    return f"{cls}.{name}"
        return scored[0][1] if scored and -scored[0][0] >= 0.5 else ""

    def _classes(self, name: str, module: str) -> list[str]:
        """The classes of NEW named `name`, those whose module shares the longest prefix with `module` first."""
        found = [sid for sid in self.callees.named(name) if self.new.get(sid).kind is SymbolKind.CLASS]
        return sorted(found, key=lambda sid: (-len(os.path.commonprefix([sid.split("."), module.split(".")])), sid))

    # -- ranking --------------------------------------------------------------------------------------------------
    def _untaken(self, hits: list[tuple[str, ast.AST]], item: Sought, pattern: str) -> list[tuple[str, ast.AST]]:
        """The candidates that are not the counterpart of another statement of OLD that `pattern` matches (in the
        sought statement's symbol, or where a candidate's symbol was at OLD): each old statement is paired with the
        candidate reading most like it (atlas.diff.ranking.counterparts)."""
        try:
            compiled = compile_pattern(pattern)
        except ValueError:
            return hits
        olds = []
        for origin in dict.fromkeys([item.symbol, *(o for sid, _ in hits for o in self.origins(sid))]):
            span, table = self.old.get(origin).span, self.table(origin, self.old)
            if span is not None and table is not None:
                olds += [(origin, n) for n in find(compiled, table, span.start, span.end)]
        mine = next((i for i, (o, n) in enumerate(olds) if o == item.symbol and _within(n, item.node)), -1)
        if not hits or len(olds) <= (mine >= 0):
            return hits
        scores = {
            (i, j): similarity(
                self.context(self.old, self.old.get(o).span.path, old),
                self.context(self.new, self.new.get(sid).span.path, node),
            )
            for i, (o, old) in enumerate(olds)
            for j, (sid, node) in enumerate(hits)
        }
        taken = counterparts(scores, mine)
        return [hit for j, hit in enumerate(hits) if j not in taken]

    def score(self, sid: str, node: ast.AST, item: Sought) -> float:
        """How much a candidate reads like the old statement's place: its surroundings (atlas.diff.ranking), and
        where it is: in the symbol (or its renamed counterpart), in a helper, in the same class."""
        ratio = similarity(item.before, self.context(self.new, self.new.get(sid).span.path, node))
        if self._in_targets(sid, item):
            return ratio + 0.3
        if sid in item.helpers:  # code the old symbol now calls
            return ratio + 0.2
        return ratio + (0.1 if class_of(self.new, sid) in item.classes else 0.0)

    @staticmethod
    def _in_targets(sid: str, item: Sought) -> bool:
        return any(sid == t or sid.startswith(t + ".") for t in item.targets)

    def _clear(self, hits, item: Sought, pattern: str, rule: str, **kw) -> Hit | None:
        """The best of the candidates left, by their place and their own text, when it is clearly the best
        (atlas.diff.ranking.clearly_best)."""
        hits = self._untaken(hits, item, pattern)
        choice = clearly_best(
            [
                (0.5 * self.score(sid, node, item) + 0.5 * _text_ratio(item.own, statement_text(node)), (sid, node))
                for sid, node in hits
            ]
        )
        return self.best([choice], item, pattern, rule, **kw) if choice else None

    def best(
        self,
        hits,
        item: Sought,
        pattern: str,
        rule: str,
        concrete: bool = False,
        constant: bool = False,
        orig: str = "",
    ) -> Hit:
        """The Hit for the best read of `hits`; `concrete`: the matched code's own text becomes the pattern."""
        sid, node = max(hits, key=lambda h: (self.score(h[0], h[1], item), -h[1].lineno))
        text = (filled(orig, pattern, node) if orig else "") or statement_text(node) if concrete else pattern
        if concrete and len(text) > MAX_PATTERN:
            text = pattern or text
        # the symbol to anchor to: keep a target that holds the match; else the innermost symbol around it
        holder = next((t for t in item.targets if self._holds(t, self.new.get(sid).span.path, node)), sid)
        mine = self.hits_in([holder], text)
        nth = next(
            (i + 1 for i, (_, n) in enumerate(mine) if n.lineno == node.lineno and n.col_offset == node.col_offset), 1
        )
        span = self.new.get(holder).span
        return Hit(
            holder, span.path, node.lineno, node.end_lineno, text, nth, rule, self.score(sid, node, item), constant
        )

    def _holds(self, symbol: str, path: str, node: ast.AST) -> bool:
        s = self.new.get(symbol)
        return (
            s is not None and s.span is not None and s.span.path == path and s.span.start <= node.lineno <= s.span.end
        )


def _within(node: ast.AST, outer: ast.AST) -> bool:
    return outer.lineno <= node.lineno and node.end_lineno <= outer.end_lineno


def _callee_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _text_ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
