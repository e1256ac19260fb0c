"""The real site (vLLM and SGLang at the default pins) in chromium: the same walk as the fixture site, on the real
pages, and the time to interactive of the largest component graph (500 nodes). Slow: run with `-m slow`."""

from __future__ import annotations

import re

import pytest
import realsite
from conftest import screenshot

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def html():
    return realsite.built()[1].html


def test_home_and_a_mechanism_page(html, open_page):
    page, _ = open_page()
    page.goto((html / "index.html").as_uri())
    assert page.locator("text=v0.26.0").count() >= 1 and page.locator("text=v0.5.17").count() >= 1
    screenshot(page, "real-home")
    page.goto((html / "mechanisms" / "preemption-retraction.html").as_uri())
    assert page.locator("table.atlas-src-table").count() >= 1
    screenshot(page, "real-mechanism")


def test_search_allocate_slots_reaches_its_symbol_page(html, open_page):
    page, _ = open_page()
    page.goto((html / "index.html").as_uri())
    search = page.locator("input.md-search__input")
    search.click()
    page.wait_for_function(
        "document.querySelector('.md-search-result__meta').textContent.includes('Type')", timeout=60000
    )
    search.press_sequentially("allocate_slots", delay=20)
    hit = page.locator(".md-search-result__item a[href*='KVCacheManager.allocate_slots.html']").first
    hit.wait_for(timeout=30000)
    hit.click()
    page.wait_for_url(re.compile(r"KVCacheManager\.allocate_slots\.html"))
    assert page.locator("h1").first.inner_text().rstrip("¶") == "allocate_slots"
    screenshot(page, "real-allocate-slots")


def test_largest_component_graph_node_click(html, open_page):
    pages = sorted((html / "components").rglob("*.html"), key=lambda p: -p.stat().st_size)
    page, _ = open_page()
    page.goto(pages[0].as_uri())
    page.wait_for_selector(".atlas-graph[data-ready-ms]", timeout=30000)
    ms = int(page.get_attribute(".atlas-graph", "data-graph-ms"))
    n = page.evaluate("window.atlasGraphs[0].nodes().length")
    print(
        f"\n{pages[0].relative_to(html)}: {n} nodes interactive in {ms} ms "
        f"({page.get_attribute('.atlas-graph', 'data-ready-ms')} ms after navigation start)"
    )
    screenshot(page, "real-graph")
    target = page.evaluate("""() => { const cy = window.atlasGraphs[0];
        const n = cy.nodes().filter(n => n.data('url').includes('symbols/')).max(n => n.degree()).ele;
        const p = n.renderedPosition(); return [n.id(), p.x, p.y]; }""")
    page.evaluate(
        "id => { const cy = window.atlasGraphs[0]; cy.zoom(2); cy.center(cy.getElementById(id)); }", target[0]
    )
    x, y = page.evaluate(
        "id => { const p = window.atlasGraphs[0].getElementById(id).renderedPosition(); return [p.x, p.y]; }", target[0]
    )
    box = page.locator(".atlas-graph-canvas").bounding_box()
    page.mouse.click(box["x"] + x, box["y"] + y)
    page.wait_for_url(re.compile(r"/symbols/"))
    assert target[0].rsplit(".", 1)[-1] in page.locator("h1").first.inner_text()


@pytest.mark.parametrize("width", [1280, 390])
def test_real_pages_read_as_code(html, open_page, width):
    """Excerpts and the source view on the real trees: one line per code row, numbers that fit, no sideways
    scroll (the same checks as tests/browser/test_visual.py, on a mechanism page, a symbol page and a large file)."""
    from test_visual import MEASURE_ROWS, OVERFLOW, check_rows

    symbol = sorted((html / "symbols" / "vllm").glob("*.html"), key=lambda p: -p.stat().st_size)[0]
    for name, url, rows in [
        ("mechanism", (html / "mechanisms" / "preemption-retraction.html").as_uri(), "table.atlas-src-table tr"),
        ("symbol", symbol.as_uri(), "table.atlas-src-table tr"),
        (
            "code",
            (html / "code.html").as_uri() + "#vllm/vllm/v1/core/sched/scheduler.py:L300",
            "table.atlas-code-table tr.atlas-line",
        ),
    ]:
        page, _ = open_page(width=width)
        page.goto(url)
        if name == "code":
            page.wait_for_selector(".atlas-codeview[data-ready-ms]", timeout=30000)
        check_rows(page.evaluate(MEASURE_ROWS, rows), f"real {name} at {width} px")
        assert page.evaluate(OVERFLOW) <= 0, f"real {name} scrolls sideways at {width} px"
        screenshot(page, f"real-{name}-{width}")
