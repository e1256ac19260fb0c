"""The whole build on a fixture engine whose docstrings hold <script>: pages render, links all resolve, nothing
asks another host, every excerpt equals the file, and source text stays inert."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
import sitefixture

from atlas.render import build_site, check_site
from atlas.render.check import check_excerpts


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("site")
    report = build_site(sitefixture.settings_for(tmp), site=sitefixture.site_for(tmp), out=str(tmp / "out"))
    return report, tmp


class Scripts(HTMLParser):
    def __init__(self):
        super().__init__()
        self.inline: list[str] = []
        self.handlers: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self._in_script = tag == "script"
        self.handlers += [f"{tag} {k}" for k, _ in attrs if k.startswith("on")]

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.inline.append(data)


def test_pages_exist(built):
    report, _ = built
    html = report.html
    for page in [
        "index.html",
        "mechanisms/index.html",
        "mechanisms/prefix-cache.html",
        "components/vllm/kv-cache.html",
        "browse/vllm.html",
        "crossref/bottlenecks.html",
        "crossref/multi-gpu.html",
        "runtime.html",
        "diff.html",
        "symbols/vllm/vllm.core.sched.KVCacheManager.allocate_slots.html",
    ]:
        assert (html / page).is_file(), page
    assert report.num_symbol_pages == 8  # annotated + component members with a file; the op has none


def test_no_broken_links_and_no_other_hosts(built):
    report, _ = built
    assert list(check_site(report.html)) == []


def test_excerpts_equal_the_files(built):
    report, tmp = built
    assert list(check_excerpts(report.html, {"vllm": tmp / "engine"})) == []
    page = (report.html / "symbols/vllm/vllm.core.sched.KVCacheManager.allocate_slots.html").read_text()
    assert 'id="L7"' in page and "#L7-L10" in page  # line anchors and the upstream permalink


def test_script_in_docstrings_is_inert(built):
    report, _ = built
    for page in report.html.rglob("*.html"):
        parser = Scripts()
        parser.feed(page.read_text())
        for body in parser.inline:
            assert "alert" not in body and "pwned" not in body, page
        assert parser.handlers == [], (page, parser.handlers)
    page = (report.html / "symbols/vllm/vllm.core.sched.Scheduler.schedule.html").read_text()
    assert "&lt;/code&gt;&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;script&gt;alert(2)" in page


def test_markdown_in_source_text_stays_literal(built):
    report, _ = built
    page = (report.html / "mechanisms/prefix-cache.html").read_text()
    assert "Blocks come from the free pool &lt;b&gt;only&lt;/b&gt;." in page
    assert not re.search(r"<a href=\"http://evil", page)


def test_symbol_page_lists_callers_and_callees_with_provenance(built):
    report, _ = built
    page = (report.html / "symbols/vllm/vllm.core.sched.KVCacheManager.allocate_slots.html").read_text()
    assert "vllm.core.sched.Scheduler.schedule" in page and "type-inferred" in page
    assert "vllm.core.pool.BlockPool.get_new_blocks" in page


def test_browser_data_is_one_small_file_per_source_file(built):
    report, _ = built
    data = report.html / "assets/atlas/data/vllm"
    files = sorted(p.name for p in (data / "files").iterdir())
    assert files == ["vllm.core.pool.py.js", "vllm.core.sched.py.js"]
    assert "allocate_slots" in (data / "files" / "vllm.core.sched.py.js").read_text()
    assert (data / "names" / "al.js").is_file()


def test_bundled_assets_and_no_cdn(built):
    report, _ = built
    assets = report.html / "assets" / "atlas"
    assert (assets / "cytoscape.min.js").stat().st_size > 100_000
    assert (assets / "iframe-worker-shim.js").is_file()
    assert "unpkg.com" not in (report.html / "index.html").read_text()


def test_search_index_has_symbols_but_not_their_code(built):
    import json

    report, _ = built
    docs = json.loads((report.html / "search" / "search_index.json").read_text())["docs"]
    assert any(d["location"].endswith("KVCacheManager.allocate_slots.html") for d in docs)
    assert not [d["location"] for d in docs if "self.pool" in d["text"]]


def test_every_excerpt_slot_was_filled(built):
    report, _ = built
    for page in report.html.rglob("*.html"):
        assert 'class="atlas-slot"' not in page.read_text(), page


def test_symbol_page_shows_the_contract_and_claims_with_verdicts(built):
    report, _ = built
    page = (report.html / "symbols/vllm/vllm.core.sched.KVCacheManager.allocate_slots.html").read_text()
    assert "<td>input</td>" in page and "<td>request</td>" in page and "<td>num_new_tokens</td>" in page
    assert "<td>output</td>" in page and "<td>blocks &#124; None</td>" in page
    assert "not reviewed" in page  # the fixture has no review record
    assert "Blocks come from the free pool &lt;b&gt;only&lt;/b&gt;." in page
    assert 'class="atlas-verdict atlas-verdict-holds">default holds</span>' in page
    assert "code.html#vllm/vllm/core/sched.py:L" in page  # the anchored statement in the source view
