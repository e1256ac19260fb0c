"""Where each page and data file of the site lives, and relative links between them (the site is opened from
file:// too, so every link is relative and ends in .html for pages)."""

from __future__ import annotations

import hashlib
import posixpath
import re

from markupsafe import Markup

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def slug(text: str) -> str:
    """A file-name-safe form of a symbol id or path; a short hash keeps two ids that sanitize alike apart."""
    safe = _UNSAFE.sub("_", text)
    if safe == text:
        return safe
    return f"{safe}-{hashlib.sha1(text.encode()).hexdigest()[:6]}"


def anchor(annotation_id: str) -> Markup:
    """The HTML id an annotation's section gets on its page (safe characters only, so trusted as written)."""
    return Markup(re.sub(r"[^A-Za-z0-9_-]", "-", annotation_id))


def name_slug(name: str) -> str:
    """A readable file name for a component name ("KV-cache manager" -> "kv-cache-manager")."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "component"


def annotation_page(mechanism: str) -> str:
    """The page an annotation is shown on: its mechanism's page, or the cross-reference page of s11/s12."""
    if mechanism in ("multi-gpu", "bottlenecks"):
        return f"crossref/{mechanism}.md"
    return mechanism_page(mechanism)


def symbol_page(engine: str, symbol_id: str) -> str:
    return f"symbols/{engine}/{slug(symbol_id)}.md"


def component_page(engine: str, component: str) -> str:
    return f"components/{engine}/{name_slug(component)}.md"


def mechanism_page(slug_: str) -> str:
    return f"mechanisms/{slug_}.md"


def browser_page(engine: str) -> str:
    return f"browse/{engine}.md"


def file_data(engine: str, path: str) -> str:
    """The on-demand data file of one source file's symbols (a .js file: file:// forbids fetch of JSON)."""
    return f"assets/atlas/data/{engine}/files/{slug(path.replace('/', '.'))}.js"


def html(page: str) -> str:
    return page[:-3] + ".html" if page.endswith(".md") else page


def rel(from_page: str, to: str, fragment: str = "") -> str:
    """Relative link from one docs-relative page to another docs-relative path; .md targets become .html."""
    target = posixpath.relpath(html(to), posixpath.dirname(from_page) or ".")
    return f"{target}#{fragment}" if fragment else target


def rel_md(from_page: str, to: str, fragment: str = "") -> Markup:
    """Relative Markdown link (mkdocs checks and rewrites it); page paths are slugs, so it is safe as written."""
    target = posixpath.relpath(to, posixpath.dirname(from_page) or ".")
    return Markup(f"{target}#{fragment}" if fragment else target)


def browser_link(from_page: str, engine: str, path: str, symbol_id: str = "") -> str:
    fragment = f"file={path}" + (f"&sym={symbol_id}" if symbol_id else "")
    return rel(from_page, browser_page(engine), fragment)


CODE_PAGE = "code.md"  # the source view; the hash names engine, file and line


def code_link(from_page: str, engine: str, path: str, line: int = 0) -> str:
    """A link to a file (and line) of a pinned tree in the site's own source view."""
    return rel(from_page, CODE_PAGE, f"{engine}/{path}" + (f":L{line}" if line else ""))
