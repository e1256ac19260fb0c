"""How heavy each page of a built site is, with what it loads: its HTML, the local scripts and stylesheets it
names, and the data files its graphs and browser load on demand (the largest shard a browser page may load)."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

_REF = re.compile(r'(?:src|href|data-src)="([^"#?]+\.(?:js|css))"')


@dataclass(frozen=True, slots=True)
class PageWeight:
    page: str
    num_bytes: int  # the page with everything it loads
    html_bytes: int


def weigh(html: Path) -> list[PageWeight]:
    """Every page's weight, heaviest first."""
    sizes: dict[str, int] = {}

    def size(rel: str) -> int:
        if rel not in sizes:
            path = html / rel
            sizes[rel] = path.stat().st_size if path.is_file() else 0
        return sizes[rel]

    out = []
    for page in html.rglob("*.html"):
        rel = page.relative_to(html).as_posix()
        text = page.read_text(encoding="utf-8", errors="replace")
        refs = {
            posixpath.normpath(posixpath.join(posixpath.dirname(rel), r))
            for r in _REF.findall(text)
            if not r.startswith(("http:", "https:", "//"))
        }
        total = len(text.encode()) + sum(size(r) for r in refs)
        if 'class="atlas-browser"' in text:
            engine = re.search(r'data-engine="([^"]+)"', text).group(1)
            data = html / "assets" / "atlas" / "data" / engine
            total += (data / "files.js").stat().st_size
            total += max((p.stat().st_size for p in data.glob("files/*.js")), default=0)
            total += max((p.stat().st_size for p in data.glob("names/*.js")), default=0)
        out.append(PageWeight(rel, total, len(text.encode())))
    return sorted(out, key=lambda w: -w.num_bytes)
