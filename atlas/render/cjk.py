"""CJK text without system fonts: the characters the built pages use, cut out of a freely licensed font from npm
(Noto Sans SC, SIL OFL 1.1, `@fontsource/noto-sans-sc`, installed by `npm ci --prefix site`) with fonttools,
into one small WOFF bundled with the site. Nothing is fetched when a page is viewed."""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from pathlib import Path

FONT = "node_modules/@fontsource/noto-sans-sc/files/noto-sans-sc-chinese-simplified-400-normal.woff"
LICENSE = "node_modules/@fontsource/noto-sans-sc/LICENSE"
FAMILY = "atlas-cjk"
FILE = "atlas-cjk.woff"


def is_cjk(char: str) -> bool:
    """Han ideographs, CJK punctuation, kana, Hangul and full-width forms."""
    code = ord(char)
    return (
        0x2E80 <= code <= 0x9FFF
        or 0xAC00 <= code <= 0xD7AF
        or 0xF900 <= code <= 0xFAFF
        or 0xFE30 <= code <= 0xFE4F
        or 0xFF00 <= code <= 0xFFEF
    )


def cjk_chars(texts: Iterable[str]) -> str:
    """Every CJK character of the texts, sorted, once."""
    found: set[str] = set()
    for text in texts:
        if not text.isascii():
            found.update(_CJK.findall(text))
    return "".join(sorted(found))


_CJK = re.compile("[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")  # is_cjk's ranges


def subset(font: Path, chars: str) -> bytes:
    """A WOFF holding only the glyphs of `chars` (and what their layout needs)."""
    from fontTools import subset as ft_subset
    from fontTools.ttLib import TTFont

    options = ft_subset.Options()
    options.flavor = "woff"
    options.layout_features = ["*"]
    options.name_IDs = ["*"]  # keep the font's names, its copyright and OFL notice among them
    font_file = TTFont(str(font), recalcTimestamp=False)  # the source font's date, not now: builds reproduce
    subsetter = ft_subset.Subsetter(options)
    subsetter.populate(text=chars)
    subsetter.subset(font_file)
    out = io.BytesIO()
    font_file.flavor = "woff"
    font_file.save(out)
    return out.getvalue()


def font_face(chars: str) -> str:
    """The rule that names the subset first in mkdocs-material's text and code fonts; its unicode-range keeps it to
    the CJK characters, so every other character falls through to the fonts after it."""
    ranges = ",".join(f"U+{ord(c):04X}" for c in chars) or "U+3000"
    return (
        f"@font-face {{ font-family: '{FAMILY}'; font-style: normal; font-weight: 100 900; font-display: swap; "
        f"src: url('{FILE}') format('woff'); unicode-range: {ranges}; }}\n"
        f":root {{ --md-text-font: '{FAMILY}'; --md-code-font: '{FAMILY}'; }}\n"
    )
