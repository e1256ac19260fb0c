"""Page paths and relative links: every link is relative (the site opens from file://), pages end in .html."""

import pytest

from atlas.render import urls


@pytest.mark.parametrize(
    "text, expected",
    [
        ("vllm.v1.core.sched.Scheduler.schedule", "vllm.v1.core.sched.Scheduler.schedule"),
        ("kv_cache", "kv_cache"),
    ],
)
def test_slug_keeps_safe_ids(text, expected):
    assert urls.slug(text) == expected


def test_slug_sanitizes_and_keeps_distinct_ids_apart():
    a, b = urls.slug("op:_C::reshape"), urls.slug("op/_C::reshape")
    assert a != b and all(c.isalnum() or c in "._-" for c in a + b)


@pytest.mark.parametrize(
    "from_page, to, fragment, expected",
    [
        ("index.md", "symbols/vllm/x.md", "", "symbols/vllm/x.html"),
        ("symbols/vllm/x.md", "symbols/vllm/y.md", "", "y.html"),
        ("components/vllm/kv.md", "browse/vllm.md", "file=a.py", "../../browse/vllm.html#file=a.py"),
        ("mechanisms/prefix-cache.md", "assets/atlas/data/g.js", "", "../assets/atlas/data/g.js"),
    ],
)
def test_rel(from_page, to, fragment, expected):
    assert urls.rel(from_page, to, fragment) == expected


def test_rel_md_keeps_md_for_mkdocs():
    assert urls.rel_md("crossref/bottlenecks.md", "mechanisms/cuda-graphs.md") == "../mechanisms/cuda-graphs.md"
