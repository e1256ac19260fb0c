"""Two pin sets in one site: the first at the root, the second under html/latest/, and on every page a switch
that opens the same page at the other pins (its diff page when the page does not exist there)."""

from __future__ import annotations

import dataclasses

import pytest
import sitefixture
from conftest import screenshot

from atlas.model import Pin
from atlas.render import SiteData, build_sites


@pytest.fixture(scope="module")
def two_sets(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pinsets")
    default = sitefixture.site_for(tmp / "a")
    engine = default.engines[0]
    latest_pin = Pin("vllm", "v9.10.0", "c" * 40, engine.pin.url, "def5678")
    symbols = {k: v for k, v in engine.symbols.items() if k != "vllm.core.pool.evict"}  # gone at the newer pin
    graph = engine.graph.copy()
    graph.remove_node("vllm.core.pool.evict")
    latest = SiteData((dataclasses.replace(engine, pin=latest_pin, pin_set="latest", symbols=symbols, graph=graph),))
    reports = build_sites(
        sitefixture.settings_for(tmp), None, ["default", "latest"], str(tmp / "out"), [default, latest]
    )
    return reports[0].html


def test_switch_opens_the_same_page_at_the_other_pins(two_sets, open_page):
    assert (two_sets / "latest" / "mechanisms" / "prefix-cache.html").is_file()
    page, _ = open_page()
    page.goto((two_sets / "mechanisms" / "prefix-cache.html").as_uri())
    switch = page.locator("select.atlas-pinset")
    switch.wait_for(timeout=10000)
    assert "latest: vLLM v9.10.0" in switch.inner_text()
    screenshot(page, "pin-switch")
    switch.select_option("latest")
    page.wait_for_url("**/latest/mechanisms/prefix-cache.html")
    assert page.locator("text=v9.10.0").count() >= 1
    page.locator("select.atlas-pinset").select_option("default")
    page.wait_for_url("**/html/mechanisms/prefix-cache.html")


def test_switch_from_a_page_missing_at_the_other_pins_opens_its_diff(two_sets, open_page):
    page, _ = open_page()
    page.goto((two_sets / "symbols" / "vllm" / "vllm.core.pool.evict.html").as_uri())
    page.locator("select.atlas-pinset").select_option("latest")
    page.wait_for_url("**/latest/diff.html")


def test_source_view_keeps_its_file_across_pins(two_sets, open_page):
    page, _ = open_page()
    page.goto((two_sets / "code.html").as_uri() + "#vllm/vllm/core/sched.py:L7")
    page.wait_for_selector(".atlas-codeview[data-ready-ms]", timeout=15000)
    page.locator("select.atlas-pinset").select_option("latest")
    page.wait_for_url("**/latest/code.html#vllm/vllm/core/sched.py:L7")
    page.wait_for_selector(".atlas-codeview[data-ready-ms]", timeout=15000)
    assert "v9.10.0" in page.locator(".atlas-code-head").inner_text()


def test_source_view_lists_files_when_one_is_gone_at_the_other_pins(two_sets, open_page):
    page, _ = open_page()
    page.goto((two_sets / "latest" / "code.html").as_uri() + "#vllm/vllm/core/gone.py:L3")
    page.wait_for_selector(".atlas-code-missing", timeout=15000)
    assert (
        "vllm/core/gone.py is not among the indexed files of vllm v9.10.0"
        in page.locator(".atlas-code-missing").inner_text()
    )
    assert page.locator("ul.atlas-code-files a", has_text="vllm/core/sched.py").count() == 1
