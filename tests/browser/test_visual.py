"""What a person sees on the fixture site in chromium: every code row of a source excerpt is one line high, the
line-number column is as wide as its widest number, no name in a table is cut over two lines, and no page scrolls
sideways at desktop (1280 px) and phone (390 px) widths. Screenshots of each page land in site_build/screenshots."""

from __future__ import annotations

import pytest
from conftest import cut_words, screenshot

PAGES = {  # name -> page under html/, and whether it shows source excerpts
    "home": ("index.html", False),
    "mechanism": ("mechanisms/prefix-cache.html", True),
    "symbol": ("symbols/vllm/vllm.core.sched.KVCacheManager.allocate_slots.html", True),
    "symbol-4-digit-lines": ("symbols/vllm/vllm.core.pool.evict.html", True),
    "browser": ("browse/vllm.html", False),
}

MEASURE_ROWS = """sel => Array.from(document.querySelectorAll(sel)).map(row => {
    const ln = row.querySelector('td.atlas-ln'), link = ln.querySelector('a') || ln;
    const code = row.querySelector('td.atlas-code code') || row.querySelector('td.atlas-code');
    const range = document.createRange(); range.selectNodeContents(link);
    const lineHeight = parseFloat(getComputedStyle(code).lineHeight);
    return {number: link.textContent, rowHeight: row.getBoundingClientRect().height, lineHeight,
            numberRects: link.getClientRects().length, numberWidth: range.getBoundingClientRect().width,
            cellWidth: ln.clientWidth, codeRects: code.getClientRects().length};
})"""

OVERFLOW = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


def check_rows(rows: list[dict], where: str) -> None:
    assert rows, f"{where}: no source rows found"
    widest = max(rows, key=lambda r: len(r["number"]))
    for row in rows:
        assert row["numberRects"] == 1, f"{where}: line number {row['number']} wraps onto {row['numberRects']} lines"
        assert row["rowHeight"] <= row["lineHeight"] * 1.5, (
            f"{where}: row {row['number']} is {row['rowHeight']:.0f} px high, a line is {row['lineHeight']:.0f} px"
        )
        assert row["cellWidth"] >= row["numberWidth"], (
            f"{where}: number column {row['cellWidth']} px, narrower than {row['number']} ({row['numberWidth']:.0f} px)"
        )
    assert widest["cellWidth"] <= widest["numberWidth"] + 40, (
        f"{where}: number column {widest['cellWidth']} px for {widest['number']} ({widest['numberWidth']:.0f} px)"
    )


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("name", sorted(PAGES))
def test_page_reads_as_code(fixture_site, open_page, name, width):
    path, has_source = PAGES[name]
    page, _ = open_page(width=width)
    page.goto((fixture_site / "html" / path).as_uri())
    page.wait_for_load_state("load")
    if has_source:
        check_rows(page.evaluate(MEASURE_ROWS, "table.atlas-src-table tr"), f"{name} at {width} px")
    assert page.evaluate(OVERFLOW) <= 0, f"{name} scrolls sideways at {width} px"
    assert not cut_words(page), f"{name} at {width} px: names cut over two lines in a table: {cut_words(page)}"
    screenshot(page, f"{name}-{width}")


def test_four_digit_numbers_fit(fixture_site, open_page):
    page, _ = open_page()
    page.goto((fixture_site / "html" / PAGES["symbol-4-digit-lines"][0]).as_uri())
    rows = page.evaluate(MEASURE_ROWS, "table.atlas-src-table tr")
    assert [r["number"] for r in rows] == ["1002", "1003", "1004"]
    check_rows(rows, "evict")
