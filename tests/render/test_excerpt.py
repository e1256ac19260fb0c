"""Source excerpts: the pinned file's own lines, escaped, with line anchors and an upstream permalink."""

import pytest

from atlas.model import Pin
from atlas.render import excerpt

PIN = Pin("vllm", "v0.26.0", "b" * 40, "https://github.com/vllm-project/vllm", "f2654939e")
TEXT = "".join(f"line {n} <b>&\n" for n in range(1, 11))


@pytest.mark.parametrize(
    "start, end, first, last",
    [
        (3, 5, 3, 5),
        (0, 2, 1, 2),  # clipped to the file
        (9, 50, 9, 10),
        (4, 4, 4, 4),
    ],
)
def test_cut_keeps_the_files_lines(start, end, first, last):
    cut = excerpt.cut(PIN, "vllm/x.py", TEXT, start, end)
    assert (cut.start, cut.last_shown) == (first, last)
    assert list(cut.lines) == TEXT.splitlines()[first - 1 : last]


def test_long_spans_are_cut_with_a_link_to_the_rest():
    text = "x = 1\n" * (excerpt.MAX_LINES + 50)
    cut = excerpt.cut(PIN, "vllm/x.py", text, 1, excerpt.MAX_LINES + 50)
    assert len(cut.lines) == excerpt.MAX_LINES and cut.end == excerpt.MAX_LINES + 50
    html = excerpt.to_html(cut)
    assert f"lines {excerpt.MAX_LINES + 1}-{excerpt.MAX_LINES + 50} not shown" in html


def test_html_has_anchors_permalink_and_escaped_text():
    html = str(excerpt.to_html(excerpt.cut(PIN, "vllm/x.py", TEXT, 3, 4), anchor="a-L"))
    assert 'id="a-L3"' in html and 'href="#a-L4"' in html
    assert "https://github.com/vllm-project/vllm/blob/f2654939e/vllm/x.py#L3-L4" in html
    assert "<b>" not in html and "&lt;" in html and "\n\n" not in html  # one raw-HTML block: Markdown leaves it alone


def test_a_file_pygments_does_not_know_is_escaped_plainly():
    html = str(excerpt.to_html(excerpt.cut(PIN, "data.unknownext", "<script>x</script>\n", 1, 1)))
    assert "<script>" not in html and "&lt;script&gt;" in html
