"""The site of the real pinned trees (both engines, default pins): built once, then checked as the issue asks. Slow
(it loads or builds both graphs); run with `-m slow`."""

from __future__ import annotations

import json

import pytest
import realsite

from atlas.render import check_site, collect
from atlas.render.check import check_excerpts
from atlas.render.weigh import weigh

pytestmark = pytest.mark.slow
ALLOCATE_SLOTS = "symbols/vllm/vllm.v1.core.kv_cache_manager.KVCacheManager.allocate_slots.html"


@pytest.fixture(scope="module")
def real():
    return realsite.built()


def test_no_broken_links_and_no_other_hosts(real):
    _, report = real
    assert list(check_site(report.html)) == []


def test_every_excerpt_equals_the_pinned_file(real):
    settings, report = real
    site = collect(settings, None, "default")
    assert list(check_excerpts(report.html, {e.name: e.checkout for e in site.engines})) == []


def test_allocate_slots_has_a_page_and_is_in_the_search(real):
    _, report = real
    assert (report.html / ALLOCATE_SLOTS).is_file()
    docs = json.loads((report.html / "search" / "search_index.json").read_text())["docs"]
    assert any(d["location"] == ALLOCATE_SLOTS for d in docs)


def test_pipeline_symbols_all_resolve_at_the_pins(real):
    _, report = real
    home = (report.html / "index.html").read_text()
    assert "not at this pin" not in home
    assert "v0.26.0" in home and "v0.5.17" in home


def test_largest_page_with_its_data_is_under_1_5_mb(real):
    _, report = real
    top = weigh(report.html)[0]
    print(f"\nlargest page with its data: {top.page} {top.num_bytes / 2**20:.2f} MB")
    assert top.num_bytes < 1.5 * 2**20
