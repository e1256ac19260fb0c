"""Symbol changes between two pins: added, removed, renamed, moved, split, signature and body changes.

Pure: takes two symbol tables (anything with `.symbols` and `.source(path)`, e.g. atlas.graph's Index) and the set
of paths whose content is identical at both pins (same git blob), and yields typed Changes. Renames and moves are
matched by body and signature similarity, not only by name."""

from __future__ import annotations

import difflib
import hashlib
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from atlas.model import Change, ChangeKind, Symbol, SymbolKind

CODE_KINDS = {SymbolKind.CLASS, SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.TRITON_KERNEL}
MOVE_THRESHOLD = 0.6  # same name elsewhere
RENAME_THRESHOLD = 0.75  # another name in the same module or class
SPLIT_SHARE = 0.6  # a part must take at least this share of its lines from the old body
SPLIT_COVER = 0.5  # and the parts together must hold at least this share of the old body
MIN_LINES = 3  # bodies shorter than this (`...`, `pass`) match too much to pair different names


class SymbolTable(Protocol):
    symbols: dict[str, Symbol]

    def source(self, path: str) -> str: ...


@dataclass(frozen=True, slots=True)
class Body:
    """A symbol's code, normalised: stripped lines, no blanks or comments, its own name masked."""

    lines: tuple[str, ...]
    digest: str  # of the whole symbol: header (name masked) and body
    body_digest: str  # of the body alone: a signature change leaves it equal
    line_set: frozenset[str]


class Bodies:
    """Lazily extracted bodies of one table's symbols (each file read and split once)."""

    def __init__(self, table: SymbolTable):
        self.table = table
        self._files: dict[str, list[str]] = {}
        self._bodies: dict[str, Body] = {}

    def raw(self, sid: str) -> list[str]:
        """The symbol's source lines as written."""
        span = self.table.symbols[sid].span
        if span is None:
            return []
        if span.path not in self._files:
            self._files[span.path] = self.table.source(span.path).splitlines()
        return self._files[span.path][span.start - 1 : span.end]

    def __getitem__(self, sid: str) -> Body:
        if sid not in self._bodies:
            self._bodies[sid] = normalise(self.raw(sid), self.table.symbols[sid].name)
        return self._bodies[sid]


def normalise(raw: list[str], name: str) -> Body:
    lines = []
    for line in raw:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        lines.append(text)
    if lines:
        lines[0] = lines[0].replace(name, "_", 1)
    header = next((i + 1 for i, line in enumerate(lines) if line.endswith(":")), 1)
    return Body(tuple(lines), _digest(lines), _digest(lines[header:]), frozenset(lines))


def _digest(lines: list[str]) -> str:
    return hashlib.blake2b("\n".join(lines).encode(), digest_size=12).hexdigest()


def similarity(a: Body, b: Body, floor: float = 0.0) -> float:
    """difflib's ratio of the two bodies' lines; below `floor` a cheap bound may answer instead (0.0)."""
    if a.digest == b.digest:
        return 1.0
    la, lb = len(a.lines), len(b.lines)
    if floor and 2 * min(la, lb) / max(1, la + lb) < floor:  # ratio can never reach the floor
        return 0.0
    if floor and _jaccard(a.line_set, b.line_set) < floor / 2:
        return 0.0
    matcher = difflib.SequenceMatcher(None, a.lines, b.lines, autojunk=False)
    if matcher.real_quick_ratio() < 0.5 or matcher.quick_ratio() < 0.5:
        return matcher.quick_ratio() * 0.9
    return matcher.ratio()


def _jaccard(a: frozenset, b: frozenset) -> float:
    return len(a & b) / max(1, len(a | b))


def parent(sid: str) -> str:
    return sid.rsplit(".", 1)[0]


def short(sid: str) -> str:
    return sid.rsplit(".", 1)[-1]


def symbol_changes(old: SymbolTable, new: SymbolTable, same_paths: set[str]) -> Iterator[Change]:
    """Every change of code symbols from `old` to `new`. Symbols in files of `same_paths` are identical by
    construction and skipped, which is what keeps a diff of two large trees fast."""
    old_code = {k: s for k, s in old.symbols.items() if s.kind in CODE_KINDS and "<lambda" not in k}
    new_code = {k: s for k, s in new.symbols.items() if s.kind in CODE_KINDS and "<lambda" not in k}
    old_bodies, new_bodies = Bodies(old), Bodies(new)
    removed = {k for k in old_code.keys() - new_code.keys()}
    added = {k for k in new_code.keys() - old_code.keys()}
    yield from _common(old_code, new_code, old_bodies, new_bodies, same_paths)
    pairs = _match(removed, added, old_code, new_code, old_bodies, new_bodies)
    for old_id, (new_id, score) in sorted(pairs.items()):
        kind = ChangeKind.RENAMED if short(old_id) != short(new_id) else ChangeKind.MOVED
        if short(old_id) != short(new_id) and parent(old_id) != parent(new_id):
            detail = f"renamed and moved to {parent(new_id)}"
        elif kind is ChangeKind.MOVED:
            detail = f"moved from {parent(old_id)} to {parent(new_id)}"
        else:
            detail = f"renamed to {short(new_id)}"
        yield Change(kind, old_id, new_id, old_code[old_id].span, new_code[new_id].span, detail, round(score, 3))
    removed -= pairs.keys()
    added -= {new_id for new_id, _ in pairs.values()}
    split_parts = _splits(removed, added, old_code, old_bodies, new_bodies)
    for old_id, parts in sorted(split_parts.items()):
        yield Change(
            ChangeKind.SPLIT,
            old_id,
            ", ".join(parts),
            old_code[old_id].span,
            new_code[parts[0]].span,
            f"split into {', '.join(short(p) for p in parts)}",
        )
    removed -= split_parts.keys()
    added -= {part for parts in split_parts.values() for part in parts}
    for sid in sorted(removed):
        yield Change(ChangeKind.REMOVED, sid, old=old_code[sid].span)
    for sid in sorted(added):
        yield Change(ChangeKind.ADDED, sid, new=new_code[sid].span)


def _common(old_code, new_code, old_bodies, new_bodies, same_paths) -> Iterator[Change]:
    for sid in sorted(old_code.keys() & new_code.keys()):
        a, b = old_code[sid], new_code[sid]
        if a.span and b.span and a.span.path == b.span.path and a.span.path in same_paths:
            continue
        if a.signature != b.signature:
            yield Change(ChangeKind.SIGNATURE, sid, sid, a.span, b.span, f"{a.signature} -> {b.signature}")
        if a.kind is SymbolKind.CLASS or old_bodies.raw(sid) == new_bodies.raw(sid):  # the common, cheap case
            continue
        if old_bodies[sid].body_digest != new_bodies[sid].body_digest:
            yield Change(
                ChangeKind.BODY,
                sid,
                sid,
                a.span,
                b.span,
                similarity=round(similarity(old_bodies[sid], new_bodies[sid]), 3),
            )


def _match(removed, added, old_code, new_code, old_bodies, new_bodies) -> dict[str, tuple[str, float]]:
    """Pair removed with added symbols: identical bodies first, then the same name elsewhere (a move), then
    another name under the same parent (a rename). Each symbol pairs at most once, best score first."""
    pairs: dict[str, tuple[str, float]] = {}
    taken: set[str] = set()
    by_digest: dict[str, list[str]] = defaultdict(list)
    for sid in added:
        if new_bodies[sid].lines:
            by_digest[(new_code[sid].kind, new_bodies[sid].digest)].append(sid)
    for sid in sorted(removed):
        hits = by_digest.get((old_code[sid].kind, old_bodies[sid].digest), [])
        hits = [h for h in hits if h not in taken]
        if len(old_bodies[sid].lines) < MIN_LINES:
            hits = [h for h in hits if short(h) == short(sid)]  # a trivial body pairs only with its own name
        if old_bodies[sid].lines and hits:
            best = min(hits, key=lambda h: (short(h) != short(sid), h))
            pairs[sid] = (best, 1.0)
            taken.add(best)
    by_name: dict[str, list[str]] = defaultdict(list)
    by_parent: dict[str, list[str]] = defaultdict(list)
    for sid in added - taken:
        by_name[short(sid)].append(sid)
        by_parent[parent(sid)].append(sid)
    scored: list[tuple[float, str, str]] = []
    for sid in removed - pairs.keys():
        kind = old_code[sid].kind
        for cand in by_name.get(short(sid), []):
            if new_code[cand].kind in _compatible(kind):
                score = similarity(old_bodies[sid], new_bodies[cand], MOVE_THRESHOLD)
                if score >= MOVE_THRESHOLD:
                    scored.append((score, sid, cand))
        if len(old_bodies[sid].lines) < MIN_LINES:
            continue
        for cand in by_parent.get(parent(sid), [])[:200]:
            if new_code[cand].kind == kind and short(cand) != short(sid) and len(new_bodies[cand].lines) >= MIN_LINES:
                score = similarity(old_bodies[sid], new_bodies[cand], RENAME_THRESHOLD)
                if score >= RENAME_THRESHOLD:
                    scored.append((score - 0.01, sid, cand))  # a same-name move wins a tie
    for score, sid, cand in sorted(scored, key=lambda t: (-t[0], t[1], t[2])):
        if sid not in pairs and cand not in taken:
            pairs[sid] = (cand, score)
            taken.add(cand)
    return pairs


def _compatible(kind: SymbolKind) -> set[SymbolKind]:
    functions = {SymbolKind.FUNCTION, SymbolKind.METHOD}
    return functions if kind in functions else {kind}


def _splits(removed, added, old_code, old_bodies, new_bodies) -> dict[str, list[str]]:
    """A removed function whose lines reappear in two or more added functions under the same parent (module or
    class), which together hold at least half of its body."""
    added_by_parent: dict[str, list[str]] = defaultdict(list)
    for cand in sorted(added):
        if len(new_bodies[cand].lines) >= MIN_LINES:
            added_by_parent[parent(cand)].append(cand)
    result: dict[str, list[str]] = {}
    for sid in sorted(removed):
        if old_code[sid].kind not in (SymbolKind.FUNCTION, SymbolKind.METHOD) or old_code[sid].span is None:
            continue
        old_lines = old_bodies[sid].line_set
        if len(old_lines) < 4:
            continue
        parts, covered = [], set()
        for cand in added_by_parent.get(parent(sid), ()):
            body = new_bodies[cand]
            inner = [line for line in body.lines[1:] if line in old_lines]
            if len(inner) / max(1, len(body.lines) - 1) >= SPLIT_SHARE:
                parts.append(cand)
                covered.update(inner)
        if len(parts) >= 2 and len(covered) / max(1, len(old_lines) - 1) >= SPLIT_COVER:
            result[sid] = parts
    return result
