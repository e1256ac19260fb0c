"""The jinja2 environment the page templates (site/templates/*.md.j2) render in: every value is made inert
(HTML-escaped, Markdown characters as entities) unless it is Markup built by atlas itself."""

from __future__ import annotations

from pathlib import Path

import jinja2

from atlas.render.escape import attr, inert


def environment(templates: Path) -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates)), autoescape=True, finalize=inert,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters["attr"] = attr
    env.filters["short"] = lambda commit: str(commit)[:12]
    return env
