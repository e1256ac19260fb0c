"""Finding symbols by name: `locate` (the one symbol a name means, or SymbolNotFound with the candidates or the
nearest names), `similar` (did-you-mean) and `find` (search over symbols, files and annotations, across engines
and pin sets, ranked)."""

from __future__ import annotations

import difflib
import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass

from atlas.errors import SymbolNotFound
from atlas.graph import Index
from atlas.query.session import Atlas, PinRef

MAX_LISTED = 25  # candidates an ambiguity error lists
NEAR = 4  # the score of a did-you-mean hit: no name matched, this one is spelled alike


@dataclass(frozen=True, slots=True)
class Located:
    """The symbol a name means: its id in one framework's tree at one pin set."""

    framework: str
    pin_set: str
    id: str
    note: str = ""  # said when the choice was not the only reading (another symbol of the name outside components)


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result: a symbol, a file or an annotation, where it is."""

    kind: str  # symbol | file | annotation
    name: str  # the symbol id, the file path, the annotation id
    pin: PinRef | None  # None for an annotation (it serves every pin set)
    detail: str  # the symbol's kind and component, the file's number of symbols, the annotation's summary
    path: str
    line: int
    score: int  # lower is better: 0 exact name, 1 name prefix, 2 name part, 3 anywhere, NEAR spelled alike
    is_annotated: bool = False  # a symbol the annotations anchor a contract at
    component: str = ""

    @property
    def is_near(self) -> bool:
        return self.score == NEAR

    @property
    def order(self) -> tuple:
        """Best first: score, symbols before files and annotations, annotated and engine-component symbols first,
        shorter names first."""
        kinds = {"symbol": 0, "annotation": 1, "file": 2}
        where = self.pin.pin_set if self.pin else ""
        return (
            self.score,
            kinds[self.kind],
            not self.is_annotated,
            not self.component,
            len(self.name),
            self.name,
            where,
        )


def _last(sid: str) -> str:
    return sid.rsplit("::", 1)[-1] if "::" in sid else sid.rsplit(".", 1)[-1]


def locate(atlas: Atlas, name: str, framework: str | None, pin_set: str) -> Located:
    """The one symbol `name` (a dotted id or unique suffix) means in `framework` (default: every framework with the
    pin set). Several, of which one lies in an engine component: that one, with a note naming the rest. None or
    several: SymbolNotFound listing the candidates, or the nearest names."""
    frameworks = atlas.frameworks(framework, pin_set)
    hits: list[tuple[str, str]] = []
    tagged: list[tuple[str, str]] = []
    for fw in frameworks:
        index = atlas.index(fw, pin_set)
        found = index.find(name)
        hits.extend((fw, sid) for sid in found)
        tagged.extend((fw, sid) for sid in found if index.symbols[sid].component)
    if len(hits) > 1 and len(tagged) == 1:
        others = ", ".join(sid for fw, sid in hits if (fw, sid) != tagged[0])
        fw, sid = tagged[0]
        return Located(fw, pin_set, sid, f"{name!r} also names {others}; showing the one in an engine component")
    if len(hits) == 1:
        return Located(hits[0][0], pin_set, hits[0][1])
    if not hits:
        near = [(fw, sid) for fw in frameworks for sid in similar(atlas.index(fw, pin_set), name)]
        where = f"{', '.join(frameworks)} ({pin_set} pins)"
        if near:
            shown = ", ".join(sid if framework else f"{sid} ({fw})" for fw, sid in near[:5])
            raise SymbolNotFound(f"no symbol {name!r} in {where}; did you mean: {shown}")
        raise SymbolNotFound(
            f"no symbol {name!r} in {where}; search names with `atlas find {_last(name)}`"
            + ("" if framework else " or give --framework")
        )
    shown = "\n  ".join(f"{fw}: {sid}" for fw, sid in hits[:MAX_LISTED]) + ("\n  ..." if len(hits) > MAX_LISTED else "")
    raise SymbolNotFound(
        f"{name!r} names {len(hits)} symbols; give a longer suffix"
        + ("" if framework else " or --framework")
        + f":\n  {shown}"
    )


def similar(index: Index, name: str, n: int = 5) -> list[str]:
    """Ids whose last name is spelled like `name`'s (case aside, or close by difflib): those holding more of
    `name`'s other parts first, then the closer spellings: the did-you-mean of a symbol that matched nothing."""
    last = _last(name).lower()
    parts = [p.lower() for p in re.split(r"[.:]+", name)[:-1] if p]
    by_name: dict[str, list[str]] = {}
    for sid in index.symbols:
        by_name.setdefault(_last(sid).lower(), []).append(sid)
    names = [last] if last in by_name else difflib.get_close_matches(last, by_name, n=n, cutoff=0.7)
    found = [sid for close in names for sid in by_name[close]]
    closeness = {close: difflib.SequenceMatcher(None, last, close).ratio() for close in names}
    found.sort(
        key=lambda sid: (
            -sum(p in sid.lower() for p in parts),
            -closeness[_last(sid).lower()],
            not index.symbols[sid].component,
            len(sid),
        )
    )
    return found[:n]


def _matcher(pattern: str) -> Callable[[str, str], int | None]:
    """score(text, last name) for a search pattern: 0 the whole last name, 1 its start, 2 inside it, 3 anywhere, None
    no match; a glob (`*`, `?`, `[`) matches the last name (1) or the whole id or path (3), case aside."""
    lowered = pattern.lower()
    if any(c in pattern for c in "*?["):
        compiled = re.compile(fnmatch.translate(lowered))

        def glob(text: str, last: str) -> int | None:
            if compiled.match(last.lower()):
                return 1
            return 3 if compiled.match(text.lower()) else None

        return glob

    def score(text: str, last: str) -> int | None:
        low = last.lower()
        if low == lowered or text.lower().endswith("." + lowered) or text.lower() == lowered:
            return 0
        if low.startswith(lowered):
            return 1
        if lowered in low:
            return 2
        if lowered in text.lower():
            return 3
        return None

    return score


def find(
    atlas: Atlas,
    pattern: str,
    framework: str | None,
    pin_sets: list[str],
    kinds: tuple[str, ...] = ("symbol", "file", "annotation"),
) -> list[Hit]:
    """Symbols, files and annotations matching `pattern` (a name, part of one, a dotted suffix or a glob; case aside)
    in every framework and pin set asked; best first. Nothing found by name: the nearest names (did-you-mean)."""
    score = _matcher(pattern)
    hits: list[Hit] = []
    for pin_set in pin_sets:
        for fw in atlas.frameworks(framework, pin_set):
            index = atlas.index(fw, pin_set, symbols_only=True)
            pin = PinRef.of(index.pin, pin_set)
            annotated = {a.for_pin(pin_set).symbol for a in atlas.annotations() if a.framework == fw}
            files: dict[str, int] = {}
            num_symbols = 0
            for sid, s in index.symbols.items():
                if s.span is not None:
                    files[s.span.path] = files.get(s.span.path, 0) + 1
                if "symbol" in kinds and (rank := score(sid, _last(sid))) is not None:
                    num_symbols += 1
                    hits.append(_symbol_hit(index, sid, pin, rank, sid in annotated))
            if "file" in kinds:
                for path, num in files.items():
                    if (rank := score(path, path.rsplit("/", 1)[-1])) is not None:
                        hits.append(Hit("file", path, pin, f"{num} symbols", path, 0, rank))
            if "symbol" in kinds and not num_symbols:
                hits += [_symbol_hit(index, sid, pin, NEAR, sid in annotated, True) for sid in similar(index, pattern)]
    if "annotation" in kinds:
        for a in atlas.annotations():
            if framework and a.framework != framework:
                continue
            text = " ".join((a.id, a.symbol, a.mechanism, a.role, a.summary))
            if (rank := score(text, a.id)) is not None:
                detail = f"{a.framework}, {a.mechanism}, {a.role}: {a.summary}"
                hits.append(Hit("annotation", a.id, None, detail, a.file, a.line, rank, True))
    return sorted(hits, key=lambda h: h.order)


def _symbol_hit(index: Index, sid: str, pin: PinRef, rank: int, is_annotated: bool, is_near: bool = False) -> Hit:
    s = index.symbols[sid]
    detail = s.kind.value + (f", {s.component}" if s.component else "") + (", annotated" if is_annotated else "")
    detail += ", spelled alike" if is_near else ""
    span = s.span
    return Hit(
        "symbol",
        sid,
        pin,
        detail,
        span.path if span else "",
        span.start if span else 0,
        rank,
        is_annotated,
        s.component,
    )
