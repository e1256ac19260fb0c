"""The built-site checks find what they must: broken links and anchors, requests to other hosts, excerpts that
differ from the pinned file; a clean site yields nothing."""

import pytest

from atlas.render.check import check_excerpts, check_site

GOOD = (
    '<html><body><h2 id="top">t</h2><a href="b.html#x">b</a><a href="#top">top</a>'
    '<a href="https://github.com/x">upstream links are fine</a><script src="assets/a.js"></script></body></html>'
)


@pytest.mark.parametrize(
    "page, kind",
    [
        ('<a href="missing.html">x</a>', "broken-link"),
        ('<a href="b.html#nowhere">x</a>', "broken-anchor"),
        ('<a href="#nowhere">x</a>', "broken-anchor"),
        ('<script src="https://cdn.example/x.js"></script>', "remote-request"),
        ('<link rel="stylesheet" href="//fonts.example/css">', "remote-request"),
        ('<img src="http://img.example/a.png">', "remote-request"),
    ],
)
def test_problems_are_found(tmp_path, page, kind):
    (tmp_path / "b.html").write_text('<p id="x">b</p>')
    (tmp_path / "a.html").write_text(page)
    kinds = [f.kind for f in check_site(tmp_path)]
    assert kinds == [kind]


def test_clean_site_has_no_findings(tmp_path):
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "a.js").write_text("")
    (tmp_path / "b.html").write_text('<p id="x">b</p>')
    (tmp_path / "a.html").write_text(GOOD)
    assert list(check_site(tmp_path)) == []


def test_remote_css_url_is_found(tmp_path):
    (tmp_path / "s.css").write_text("body { background: url('https://x.example/a.png') }")
    assert [f.kind for f in check_site(tmp_path)] == ["remote-request"]


@pytest.mark.parametrize(
    "shown, kinds",
    [
        (["def f():", "    return 1"], []),
        (["def f():", "    return 2"], ["excerpt-mismatch"]),
    ],
)
def test_excerpts_compare_with_the_pinned_file(tmp_path, shown, kinds):
    checkout = tmp_path / "co"
    checkout.mkdir()
    (checkout / "m.py").write_text("x = 0\ndef f():\n    return 1\n")
    rows = "".join(
        f'<tr><td class="atlas-ln">{n}</td><td class="atlas-code"><code>{t}</code></td></tr>'
        for n, t in enumerate(shown, 2)
    )
    html = tmp_path / "html"
    html.mkdir()
    (html / "p.html").write_text(
        f'<div class="atlas-src highlight" data-framework="vllm" data-path="m.py" '
        f'data-start="2"><table>{rows}</table></div>'
    )
    assert [f.kind for f in check_excerpts(html, {"vllm": checkout})] == kinds
