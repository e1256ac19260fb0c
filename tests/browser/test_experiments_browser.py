"""The experiment pages in a real chromium from file://: the index lists the nine scenarios, a measured page shows
the joined table and its evidence excerpt, a click on the evidence symbol opens its page; nothing asks another
host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import cut_words, screenshot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "render"))


@pytest.fixture(scope="module")
def experiments_site(tmp_path_factory):
    import sitefixture
    from test_experiments_pages import fixture_results

    from atlas.render import SiteData, build_site
    from atlas.runtime.experiments.article import load_article
    from atlas.runtime.experiments.report import build_report

    tmp = tmp_path_factory.mktemp("experiments")
    report = build_report(load_article(), {"prefix-cache": fixture_results()}, {})
    site = sitefixture.site_for(tmp)
    return build_site(
        sitefixture.settings_for(tmp), site=SiteData(site.engines, {"experiments": report}), out=str(tmp / "out")
    ).html


def test_index_lists_the_nine_and_opens_a_scenario(experiments_site, open_page):
    page, _ = open_page()
    page.goto((experiments_site / "experiments" / "index.html").as_uri())
    rows = page.locator("article table tbody tr")
    assert rows.count() == 9
    assert "not run yet" in rows.nth(0).inner_text() and "measured" in rows.nth(1).inner_text()
    page.locator("a", has_text="prefix-cache").first.click()
    page.wait_for_load_state()
    assert page.url.endswith("experiments/prefix-cache.html")
    assert page.locator("h1").first.inner_text().startswith("s3 prefix-cache")


def test_measured_page_shows_figures_side_by_side_and_evidence(experiments_site, open_page):
    page, _ = open_page()
    page.goto((experiments_site / "experiments" / "prefix-cache.html").as_uri())
    table = page.locator("article table").first
    headers = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    assert headers[2:8] == [
        "A100, article",
        "H200, probes absent",
        "95% interval",
        "A100 inside it",
        "H200, probes on",
        "on / absent",
    ]
    cells = table.locator("tbody tr").nth(5).locator("td").all_inner_texts()
    assert cells[:8] == ["vLLM graph, warm", "ttft_ms ms", "13.78 (l. 137)", "7.12", "one round", "-", "7.50", "1.053"]
    box = table.locator("tbody tr").nth(5).locator("td").nth(7).bounding_box()
    assert box["x"] + box["width"] <= 1280  # the H200 figures sit beside the article's, no sideways scrolling
    assert not cut_words(page), f"names cut over two lines: {cut_words(page)}"  # `hit_tokens`, "(l. 136)" are one word
    table.scroll_into_view_if_needed()
    assert page.locator("tr#e0-L9").is_visible()  # the evidence line at the pin
    print("screenshot:", screenshot(page, "experiment-prefix-cache"))
    page.locator("a", has_text="vllm.core.sched.KVCacheManager.allocate_slots").first.click()
    page.wait_for_load_state()
    assert page.url.endswith("symbols/vllm/vllm.core.sched.KVCacheManager.allocate_slots.html")
