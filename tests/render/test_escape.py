"""Text from the analysed trees is inert on the pages: no HTML, no Markdown."""

import pytest
from markupsafe import Markup

from atlas.render.escape import inert


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("plain", "plain"),
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("a | b", "a &#124; b"),
        ("*bold* _em_", "&#42;bold&#42; &#95;em&#95;"),
        ("__init__ kv_cache_manager", "&#95;&#95;init&#95;&#95; kv_cache_manager"),
        ("a _b", "a &#95;b"),
        ("[x](http://evil)", "&#91;x&#93;(http://evil)"),
        ("`tick`", "&#96;tick&#96;"),
        ("line\nbreak", "line break"),
        ("\"quoted\" & 'single'", "&#34;quoted&#34; &amp; &#39;single&#39;"),
        (None, ""),
        (42, "42"),
    ],
)
def test_inert(raw, expected):
    assert str(inert(raw)) == expected


def test_markup_built_by_atlas_passes_unchanged():
    trusted = Markup('<a href="x.html">x</a>')
    assert inert(trusted) is trusted
