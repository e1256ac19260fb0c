"""The source view in chromium, offline: a file opens from its hash with every row one line high; a call site
leads to its target's line, a definition's name opens its calls and callers, an annotated line shows its
contract; excerpts and symbol pages lead into it."""

from __future__ import annotations

import pytest
from conftest import screenshot
from test_visual import MEASURE_ROWS, OVERFLOW, check_rows


def open_code(page, site, where: str):
    page.goto((site / "html" / "code.html").as_uri() + "#" + where)
    page.wait_for_selector(f".atlas-codeview[data-file='{where.split(':L')[0]}'][data-ready-ms]", timeout=15000)


@pytest.mark.parametrize("width", [1280, 390])
def test_file_reads_as_code(fixture_site, open_page, width):
    page, _ = open_page(width=width)
    open_code(page, fixture_site, "vllm/vllm/core/pool.py:L1002")
    rows = page.evaluate(MEASURE_ROWS, "table.atlas-code-table tr.atlas-line")
    assert len(rows) == 1007 and rows[-1]["number"] == "1007"
    check_rows(rows, f"code view at {width} px")
    assert page.evaluate(OVERFLOW) <= 0, f"the source view scrolls sideways at {width} px"
    assert page.locator("tr#L1002.atlas-target").is_visible()
    screenshot(page, f"code-{width}")


def test_call_site_leads_to_target_and_def_opens_callers(fixture_site, open_page):
    page, _ = open_page()
    open_code(page, fixture_site, "vllm/vllm/core/sched.py:L17")
    assert "allocate_slots" in page.locator(".atlas-code-panel").inner_text()  # schedule's calls, in source order
    page.locator("tr#L19 a.atlas-call", has_text="allocate_slots").click()
    page.wait_for_selector("tr#L7.atlas-target")
    panel = page.locator(".atlas-code-panel")
    assert "Callers (1)" in panel.inner_text() and "vllm.core.sched.Scheduler.schedule" in panel.inner_text()
    assert "type-inferred 0.90" in panel.inner_text()
    note = page.locator("tr.atlas-note-row .atlas-note")
    assert "vllm.prefix_cache.allocate-slots" in note.inner_text() and "output: blocks | None" in note.inner_text()
    assert "claims: c1 [default holds]: Blocks come from the free pool <b>only</b>." in note.inner_text()
    page.locator("tr#L9 a.atlas-call", has_text="get_new_blocks").click()
    page.wait_for_selector(".atlas-codeview[data-file='vllm/vllm/core/pool.py'][data-ready-ms]")
    page.wait_for_selector("tr#L2.atlas-target")
    page.locator("tr#L2 a.atlas-def").click()
    assert "op:_C::reshape_and_cache" in page.locator(".atlas-code-panel").inner_text()
    op = page.locator("tr#L3 .atlas-extra a.atlas-call")  # a call whose name the line does not spell: a mark
    assert op.inner_text() == "\u2192\u00a0reshape_and_cache"
    op.click()  # an op has no file of its own: the panel names it and where it leads
    assert "op:_C::reshape_and_cache" in page.locator(".atlas-code-panel").inner_text()
    assert "Call at L3" in page.locator(".atlas-code-panel").inner_text()
    page.locator("tr#L1006 a.atlas-ref", has_text="KVCacheManager").click()  # an import, to its definition
    page.wait_for_selector(".atlas-codeview[data-file='vllm/vllm/core/sched.py'][data-ready-ms]")
    page.wait_for_selector("tr#L4.atlas-target")
    assert page.evaluate("document.title") != "pwned"
    screenshot(page, "code-panel")


def test_excerpt_and_symbol_page_lead_into_the_source_view(fixture_site, open_page):
    page, _ = open_page()
    page.goto((fixture_site / "html" / "mechanisms" / "prefix-cache.html").as_uri())
    page.locator(".atlas-src-head a.atlas-src-path").first.click()
    page.wait_for_selector(".atlas-codeview[data-file='vllm/vllm/core/sched.py'][data-ready-ms]", timeout=15000)
    assert page.locator("tr#L7.atlas-target").count() == 1
    page.goto((fixture_site / "html" / "symbols" / "vllm" / "vllm.core.pool.evict.html").as_uri())
    page.locator("a", has_text="vllm/core/pool.py L1002-L1004").click()
    page.wait_for_selector("tr#L1002.atlas-target", timeout=15000)


def test_home_leads_to_the_file_list_and_a_file(fixture_site, open_page):
    page, _ = open_page()
    page.goto((fixture_site / "html" / "index.html").as_uri())
    page.locator("a", has_text="read every file").first.click()
    page.locator("ul.atlas-code-files a", has_text="vllm/core/sched.py").click()
    page.wait_for_selector(".atlas-codeview[data-file='vllm/vllm/core/sched.py'][data-ready-ms]", timeout=15000)
    page.locator(".atlas-code-find").first.wait_for(state="detached")


def test_graph_node_without_a_page_opens_the_source_view(fixture_site, open_page):
    page, _ = open_page()
    page.goto((fixture_site / "html" / "components" / "vllm" / "kv-cache.html").as_uri())
    page.wait_for_selector(".atlas-graph[data-ready-ms]", timeout=15000)
    url = page.evaluate("window.atlasGraphs[0].getElementById('vllm.core.pool.BlockPool.helper_7').data('url')")
    assert url == "code.html#vllm/vllm/core/pool.py:L2"
