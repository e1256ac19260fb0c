"""The jinja2 environment the page templates (site/templates/*.md.j2) render in: every value is made inert
(HTML-escaped, Markdown characters as entities) unless it is Markup built by atlas itself. Compiled templates are
kept in the build's memo (atlas.render.memo), so a build whose templates did not change compiles none."""

from __future__ import annotations

from pathlib import Path

import jinja2

from atlas.render.escape import attr, inert
from atlas.render.memo import Memo


class _KeptTemplates(jinja2.BytecodeCache):
    """jinja2's bytecode cache over a Memo: a template's code under its name and source."""

    def __init__(self, memo: Memo) -> None:
        self.memo = memo

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        key = self.memo.key("template", bucket.key, bucket.checksum)
        if key in self.memo.known:
            bucket.bytecode_from_string(self.memo.get(key, bucket.bytecode_to_string))

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        key = self.memo.key("template", bucket.key, bucket.checksum)
        if key is not None:
            self.memo.get(key, bucket.bytecode_to_string)


def environment(templates: Path, memo: Memo | None = None) -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates)), autoescape=True, finalize=inert,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True, bytecode_cache=_KeptTemplates(memo or Memo()))
    env.filters["attr"] = attr
    env.filters["short"] = lambda commit: str(commit)[:12]
    return env
