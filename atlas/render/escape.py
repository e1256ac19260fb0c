"""Text from the analysed trees made inert for Markdown pages: HTML-escaped, and the characters Markdown would act
on turned into entities. Every template value passes through `inert` unless it is already trusted Markup."""

from __future__ import annotations

import re

from markupsafe import Markup, escape

_MARKDOWN = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    '"': "&#34;",
    "'": "&#39;",
    "|": "&#124;",
    "*": "&#42;",
    "`": "&#96;",
    "[": "&#91;",
    "]": "&#93;",
    "\\": "&#92;",
    "#": "&#35;",
    "~": "&#126;",
    "\n": " ",
    "\r": " ",
}
_TABLE = str.maketrans(_MARKDOWN)
# Python-Markdown never reads an underscore inside a word as emphasis; only those at a word's edge need escaping
# (identifiers are full of inner underscores, and every entity costs the Markdown build time)
_EDGE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def inert(value) -> Markup:
    """Any value as Markdown-and-HTML-inert text; Markup (trusted fragments built here) passes unchanged."""
    if isinstance(value, Markup):
        return value
    if value is None:
        return Markup("")
    return Markup(_EDGE_UNDERSCORE.sub("&#95;", str(value).translate(_TABLE)))


def attr(value) -> Markup:
    """A value for an HTML attribute inside a raw HTML block."""
    return escape(str(value))
