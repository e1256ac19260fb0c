"""The jinja2 environment the page templates (site/templates/*.md.j2) render in: every value is made inert
(HTML-escaped, Markdown characters as entities) unless it is Markup built by atlas itself. The Python code jinja2
generates from each template is kept in the build's memo (atlas.render.memo): a build whose templates did not change
only compiles that code."""

from __future__ import annotations

import hashlib
from pathlib import Path

import jinja2

from atlas.render.escape import attr, inert
from atlas.render.memo import Memo


class _KeptEnvironment(jinja2.Environment):
    """An environment whose templates' generated code is kept in `memo`, under the template's name and source (its
    bytecode is not: marshal's bytes depend on the hash seed, and the memo's must not)."""

    def __init__(self, memo: Memo, **options) -> None:
        super().__init__(**options)
        self.memo = memo

    def compile(self, source, name=None, filename=None, raw=False, defer_init=False):
        key = (
            self.memo.key("template", name, hashlib.sha256(source.encode()).hexdigest())
            if isinstance(source, str)
            else None
        )
        if raw or defer_init or key is None:
            return super().compile(source, name, filename, raw, defer_init)
        code = self.memo.get(key, lambda: super(_KeptEnvironment, self).compile(source, name, filename, raw=True))
        return self._compile(code, filename or "<template>")


def environment(templates: Path, memo: Memo | None = None) -> jinja2.Environment:
    env = _KeptEnvironment(
        memo or Memo(),
        loader=jinja2.FileSystemLoader(str(templates)),
        autoescape=True,
        finalize=inert,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["attr"] = attr
    env.filters["short"] = lambda commit: str(commit)[:12]
    return env
