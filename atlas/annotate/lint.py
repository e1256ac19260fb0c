"""Guards on what the schema cannot see: a flow list split at a comma inside an item, a role the README's role
table does not describe, a note citing code (in backticks) that the lines it is attached to do not contain. Each
yields Findings (results, exit 1), never errors; atlas.annotate.loader and .check run them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import ScalarString

from atlas.annotate.model import Annotation
from atlas.annotate.statements import collapse
from atlas.annotate.vocabulary import ROLES
from atlas.model import Finding

README = "annotations/README.md"

_CLOSERS = {")": "(", "]": "[", "}": "{"}
# A plain flow item that starts with one of these continues the item before it: the list was split at its comma.
_CONTINUATIONS = frozenset(
    "and or but nor not never so then than in at which while whereas else otherwise unless except without".split()
)


def unbalanced(text: str) -> str:
    """The first bracket or quote of `text` left open or closed without its pair ('' when balanced)."""
    open_: list[str] = []
    for char in text:
        if char in "([{":
            open_.append(char)
        elif char in _CLOSERS:
            if not open_ or open_[-1] != _CLOSERS[char]:
                return char
            open_.pop()
    if open_:
        return open_[-1]
    return next((q for q in "\"'`" if text.count(q) % 2 and not (q == "'" and _apostrophes(text))), "")


def _apostrophes(text: str) -> bool:
    """Whether every single quote of text sits between letters (an apostrophe: SGLang's, request's)."""
    return all(0 < i < len(text) - 1 and text[i - 1].isalnum() for i, c in enumerate(text) if c == "'")


def split_items(data: Any, rel: str) -> Iterator[Finding]:
    """Flow lists `[a, b]` with a plain (unquoted) item that was meant as one with a comma inside: an unbalanced
    bracket or quote, a continuation word ('or ...', 'never ...') opening an item, or an invariant list of several
    plain items (invariants are sentences, whose commas split them). One finding per list, at its line."""
    for seq, path in _flow_lists(data, ()):
        plain = [item for item in seq if isinstance(item, str) and not isinstance(item, ScalarString)]
        reasons = [(item, _split_reason(item, i, path[-1], len(plain))) for i, item in enumerate(plain)]
        split = [(item, why) for item, why in reasons if why]
        if split:
            field = ".".join(str(p) for p in path[-2:] if not isinstance(p, int))
            item, why = split[0]
            yield Finding(
                "split-flow-item",
                f"{field}: flow-list item {item!r} {why}: a plain flow item ends at a comma, so the list "
                f"({len(seq)} items as loaded) was split inside an item; quote each item that holds a comma "
                '("...") or write the list as block lines (- ...)',
                rel,
                seq.lc.line + 1,
            )


def _split_reason(item: str, position: int, key: object, num_plain: int) -> str:
    char = unbalanced(item)
    if char:
        return f"has an unbalanced {char!r}"
    word = item.split(" ", 1)[0]
    if position and word in _CONTINUATIONS:
        return f"opens with {word!r}, so it continues the item before it"
    if key == "invariants" and num_plain > 1:
        return "is one of several plain invariants in a flow list"
    return ""


def _flow_lists(node: Any, path: tuple) -> Iterator[tuple[CommentedSeq, tuple]]:
    if isinstance(node, CommentedMap):
        for key, value in node.items():
            yield from _flow_lists(value, (*path, key))
    elif isinstance(node, CommentedSeq):
        if node.fa.flow_style():
            yield node, path
        for i, value in enumerate(node):
            yield from _flow_lists(value, (*path, i))


_ROLE_ROW = re.compile(r"^\|\s*`([a-z_]+)`\s*\|\s*(.*?)\s*\|\s*$")


def role_table(readme: str) -> dict[str, int]:
    """role -> line of its row in the README's role table (the table under the '### Roles' heading)."""
    table: dict[str, int] = {}
    inside = False
    for number, line in enumerate(readme.splitlines(), 1):
        if line.startswith("#"):
            inside = line.startswith("### Roles")
            continue
        match = _ROLE_ROW.match(line) if inside else None
        if match and match.group(2):
            table[match.group(1)] = number
    return table


def role_findings(annotations: Iterable[Annotation], readme: str) -> Iterator[Finding]:
    """Roles the README's role table does not describe: an annotation's role outside it, and a role the schema
    allows that has no row."""
    table = role_table(readme)
    for role in ROLES:
        if role not in table:
            yield Finding(
                "role-undescribed",
                f"role {role!r} is allowed by the schema but has no row in the role table; describe it",
                README,
                0,
            )
    for a in annotations:
        if a.role not in table:
            yield Finding(
                "role-outside-table",
                f"{a.id}: role {a.role!r} is not in {README}'s role table ({', '.join(table)}); "
                "choose the role whose row describes this code, or describe it there",
                a.file,
                dict(a.field_lines).get("role", a.line),
            )


_CITED = re.compile(r"`([^`\n]+)`")


def cited(note: str) -> list[str]:
    """The code a note cites: its backticked spans."""
    return _CITED.findall(note or "")


def uncited(note: str, texts: Iterable[str]) -> list[str]:
    """The spans `note` cites that none of `texts` (source lines) contains, whitespace collapsed. A span may elide
    code with `...`, as patterns do: its pieces must then appear in that order."""
    haystacks = [collapse(t) for t in texts]
    return [span for span in cited(note) if not any(_contains(h, span) for h in haystacks)]


def _contains(haystack: str, span: str) -> bool:
    position = 0
    for piece in (collapse(p) for p in span.split("...")):
        if not piece:
            continue
        found = haystack.find(piece, position)
        if found < 0:
            return False
        position = found + len(piece)
    return True
