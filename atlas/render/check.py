"""Checks over a built site, yielding Findings: internal links that lead nowhere (a missing file or anchor), and
anything that would make the browser ask another host (scripts, styles, images, fonts, frames from http(s)://)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from atlas.model import Finding
from atlas.render.code import data_file as code_data_file
from atlas.render.code import index_file as code_index_file

_FETCHING = {
    ("script", "src"),
    ("link", "href"),
    ("img", "src"),
    ("iframe", "src"),
    ("source", "src"),
    ("video", "src"),
    ("audio", "src"),
    ("embed", "src"),
    ("object", "data"),
}
_CSS_URL = re.compile(r"url\(\s*['\"]?(https?:)?//", re.I)


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, int]] = []
        self.fetches: list[tuple[str, int]] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        for key in ("id", "name"):
            if values.get(key):
                self.ids.add(values[key])
        line = self.getpos()[0]
        if tag == "a" and values.get("href"):
            self.links.append((values["href"], line))
        for t, a in _FETCHING:
            if tag == t and values.get(a) and not (tag == "link" and values.get("rel") in ("canonical",)):
                self.fetches.append((values[a], line))


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def _is_remote(url: str) -> bool:
    return url.startswith(("http://", "https://", "//"))


def check_site(html: Path) -> Iterator[Finding]:
    """Broken internal links (file or #anchor) and requests to other hosts, over every page of a built site."""
    # 404.html is mkdocs' page for a web server (its links are absolute by design); nothing links to it
    pages = {p.relative_to(html).as_posix(): p for p in html.rglob("*.html") if p.name != "404.html"}
    parsed = {rel: _parse(path) for rel, path in pages.items()}
    for rel, page in sorted(parsed.items()):
        for url, line in page.fetches:
            if _is_remote(url):
                yield Finding("remote-request", f"{url} would be fetched from another host", rel, line)
        for href, line in page.links:
            parts = urlsplit(href)
            if parts.scheme or href.startswith(("//", "mailto:", "javascript:")):
                continue
            target = (
                rel
                if not parts.path
                else posixpath.normpath(posixpath.join(posixpath.dirname(rel), unquote(parts.path)))
            )
            if target.endswith("/") or (html / target).is_dir():
                target = posixpath.join(target, "index.html")
            if not (html / target).exists():
                yield Finding("broken-link", f"{href} leads to a missing file", rel, line)
            elif target == "code.html" and "/" in parts.fragment:  # the source view: the hash names a file
                if not _code_data_exists(html, unquote(parts.fragment)):
                    yield Finding("broken-link", f"{href}: no source data for that file", rel, line)
            elif parts.fragment and target.endswith(".html") and "=" not in parts.fragment:
                fragment = unquote(parts.fragment)
                if target in parsed and fragment not in parsed[target].ids:
                    yield Finding("broken-anchor", f"{href}: no #{fragment} in {target}", rel, line)
    for css in html.rglob("*.css"):
        for number, text in enumerate(css.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if _CSS_URL.search(text):
                yield Finding(
                    "remote-request",
                    "a stylesheet url() points at another host",
                    css.relative_to(html).as_posix(),
                    number,
                )


def _code_data_exists(html: Path, fragment: str) -> bool:
    """`engine/path[:Ln]` of the source view -> whether the build wrote that file's data."""
    engine, _, rest = fragment.partition("/")
    path = rest.rsplit(":L", 1)[0] if ":L" in rest else rest
    return (html / (code_data_file(engine, path) if path else code_index_file(engine))).is_file()


class _Excerpts(HTMLParser):
    """The source excerpts of one page: (framework, path, first line, [line texts])."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str, int, list[str]]] = []
        self._in_code = False

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag == "div" and "atlas-src" in (values.get("class") or "").split():
            self.found.append(
                (values.get("data-framework", ""), values.get("data-path", ""), int(values.get("data-start", "0")), [])
            )
        elif tag == "td" and values.get("class") == "atlas-code" and self.found:
            self.found[-1][3].append("")
            self._in_code = True

    def handle_endtag(self, tag):
        if tag == "td":
            self._in_code = False

    def handle_data(self, data):
        if self._in_code:
            self.found[-1][3][-1] += data


def check_excerpts(html: Path, checkouts: dict[str, Path]) -> Iterator[Finding]:
    """Every source excerpt's lines against the pinned file's lines (checkouts: framework -> checkout folder)."""
    for page in sorted(html.rglob("*.html")):
        parser = _Excerpts()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        rel = page.relative_to(html).as_posix()
        for framework, path, start, shown in parser.found:
            if framework not in checkouts:
                yield Finding("excerpt-unknown-pin", f"an excerpt of {path} names no known pin ({framework})", rel)
                continue
            lines = (checkouts[framework] / path).read_text(encoding="utf-8", errors="replace").splitlines()
            expected = lines[start - 1 : start - 1 + len(shown)]
            if shown != expected:
                yield Finding(
                    "excerpt-mismatch", f"the excerpt of {path} from line {start} differs from the pinned file", rel
                )
