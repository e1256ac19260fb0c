"""Source excerpts: the pinned file's own lines, highlighted and escaped, each with a line anchor, under a header
that links to the same lines upstream at the pinned commit. Pure: the caller hands in the file's text."""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from markupsafe import Markup, escape
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_for_filename
from pygments.util import ClassNotFound

from atlas.model import Pin

ROOT = "@@atlas-root@@"  # replaced in each built page by its relative way to the site root (Slots.fill)
MAX_LINES = 400  # longer spans are cut here; the header links to the whole span upstream


@dataclass(frozen=True, slots=True)
class Excerpt:
    pin: Pin
    path: str
    start: int  # first line shown (1-based)
    lines: tuple[str, ...]  # the file's lines, verbatim, from `start`
    end: int  # last line of the span asked for (may be past the lines shown when cut)

    @property
    def last_shown(self) -> int:
        return self.start + len(self.lines) - 1

    @property
    def permalink(self) -> str:
        return self.pin.permalink(self.path, self.start, self.end)


def cut(pin: Pin, path: str, text: str, start: int, end: int, max_lines: int = MAX_LINES) -> Excerpt:
    """The lines start..end (1-based, inclusive) of `text`, at most `max_lines` of them."""
    file_lines = text.splitlines()
    start = max(1, start)
    end = min(max(start, end), len(file_lines))
    shown = file_lines[start - 1 : min(end, start + max_lines - 1)]
    return Excerpt(pin, path, start, tuple(shown), end)


def _highlighted(path: str, lines: tuple[str, ...]) -> list[str]:
    """One HTML fragment per source line (spans closed at each line end), escaped by pygments."""
    source = "\n".join(lines) + "\n"
    try:
        lexer = get_lexer_for_filename(path, stripnl=False, stripall=False, ensurenl=True)
    except ClassNotFound:
        return [str(escape(line)) for line in lines]
    formatted = highlight(source, lexer, HtmlFormatter(nowrap=True))
    out = formatted.split("\n")[: len(lines)]
    return out + [""] * (len(lines) - len(out))


def to_html(excerpt: Excerpt, anchor: str = "L") -> Markup:
    """The excerpt as one raw-HTML block without blank lines (Markdown leaves it alone). Line n gets the id
    `{anchor}{n}`; pass a distinct anchor per excerpt when a page holds several. The code stays out of the search
    index (data-search-exclude on the table: the search plugin's exclusion ends at the first closing tag of the
    same name, so it must sit on an element with no nested twin)."""
    rows = []
    for number, code in zip(range(excerpt.start, excerpt.last_shown + 1), _highlighted(excerpt.path, excerpt.lines)):
        rows.append(
            f'<tr id="{anchor}{number}"><td class="atlas-ln"><a href="#{anchor}{number}">{number}</a></td>'
            f'<td class="atlas-code"><code>{code}</code></td></tr>'
        )
    cut_note = ""
    if excerpt.last_shown < excerpt.end:
        cut_note = (
            f'<div class="atlas-src-cut">lines {excerpt.last_shown + 1}-{excerpt.end} not shown; '
            f'<a href="{escape(excerpt.permalink)}">read them upstream</a></div>'
        )
    code = f"{ROOT}code.html#{escape(excerpt.pin.framework)}/{escape(excerpt.path)}:L{excerpt.start}"
    header = (
        f'<div class="atlas-src-head"><a class="atlas-src-path" href="{code}" title="the whole file in the '
        f'source view">{escape(excerpt.path)}</a> '
        f'<span class="atlas-src-lines">L{excerpt.start}-L{excerpt.end}</span> '
        f'<a class="atlas-permalink" href="{escape(excerpt.permalink)}" title="the same lines upstream at '
        f'{escape(excerpt.pin.permalink_ref)}">upstream @ {escape(excerpt.pin.permalink_ref)}</a></div>'
    )
    body = "".join(rows)
    return Markup(
        f'<div class="atlas-src highlight" data-framework="{escape(excerpt.pin.framework)}" '
        f'data-path="{escape(excerpt.path)}" data-start="{excerpt.start}">'
        f'{header}<table class="atlas-src-table" data-search-exclude><tbody>{body}</tbody></table>{cut_note}</div>'
    )


class Slots:
    """Excerpt HTML kept out of the Markdown: a page holds a placeholder, and the built HTML gets the excerpt after
    mkdocs ran. Python-Markdown's raw-HTML parser and the search plugin's indexer never walk the code's thousands
    of tags (most of the build time otherwise), and code stays out of the search index. A placeholder names its
    fragment by content hash, so a page's text does not depend on which pages were rendered before it (the build
    reuses unchanged pages, atlas.render.memo)."""

    PLACEHOLDER = re.compile(r'<div class="atlas-slot" data-slot="([0-9a-f]+)"></div>')

    def __init__(self) -> None:
        self.fragments: dict[str, str] = {}  # id -> excerpt HTML
        self._recording: list[list[str]] = []

    def put(self, fragment: Markup) -> Markup:
        text = str(fragment)
        key = hashlib.sha256(text.encode()).hexdigest()[:20]
        self.fragments[key] = text
        for recorded in self._recording:
            recorded.append(text)
        return Markup(f'<div class="atlas-slot" data-slot="{key}"></div>')

    @contextlib.contextmanager
    def recording(self) -> Iterator[list[str]]:
        """The fragments put while the block runs (a page's own excerpts, kept with the page by the build)."""
        recorded: list[str] = []
        self._recording.append(recorded)
        try:
            yield recorded
        finally:
            self._recording.remove(recorded)

    def fill(self, html: str, root: str = "") -> str:
        """The page with its excerpts; `root` is the page's relative way to the site root ("../" or "")."""
        return self.PLACEHOLDER.sub(lambda m: self.fragments[m.group(1)].replace(ROOT, root), html)
