"""CJK text renders from the site's own font subset (this machine has no CJK system font): chromium reports the
glyphs of the article's Chinese quote drawn by the bundled web font, none left to a fallback."""

from __future__ import annotations

import re

from conftest import screenshot

CJK = re.compile(r"[\u2e80-\u9fff\uff00-\uffef]")


def test_article_quote_drawn_by_bundled_font(fixture_site, open_page):
    page, _ = open_page()
    page.goto((fixture_site / "html" / "experiments" / "preemption.html").as_uri())
    quote = page.locator("span[lang=zh]").first
    text = quote.inner_text()
    assert CJK.search(text), text
    page.evaluate("document.fonts.ready.then(() => true)")
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "span[lang=zh]"})["nodeId"]
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    custom = sum(f["glyphCount"] for f in fonts if f["isCustomFont"])
    assert custom == len(CJK.findall(text)), fonts
    quote.scroll_into_view_if_needed()
    screenshot(page, "cjk-quote")
