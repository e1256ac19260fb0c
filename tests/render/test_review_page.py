"""The mechanism pages and the symbol pages show each statement's review: its verdict and its deciding lines as
permalinks at the pin set the row was reviewed at, 'not reviewed' where the record has no row, and a stale row
marked as such."""

from dataclasses import replace

from render import sitefixture

from atlas.annotate import Deciding, ReviewRow
from atlas.annotate.model import Verdict
from atlas.model import Pin
from atlas.render.content import load_content
from atlas.render.inputs import SiteData
from atlas.render.site import render_docs

ANNOTATION = "vllm.prefix_cache.allocate-slots"
LATEST = Pin("vllm", "v9.9.10", "", "https://github.com/example/engine", "def5678")


def row(field: str, text: str, verdict: str = "true", pin_set: str = "default", lines=(7, 9)) -> ReviewRow:
    return ReviewRow(
        ANNOTATION, field, pin_set, text, verdict, (Deciding("vllm/core/sched.py", *lines),), "pool.get_new_blocks"
    )


def page(tmp_path, rows, pin_set: str = "default", name: str = "mechanisms/prefix-cache.md") -> str:
    engine = sitefixture.make_engine(tmp_path)
    (item,) = engine.anchored
    claim = replace(item.annotation.claims[0], at=(("latest", Verdict("changed", "moved", 9)),))
    item = replace(item, annotation=replace(item.annotation, claims=(claim,)))
    pins = (("default", sitefixture.PIN), ("latest", LATEST))
    pin = dict(pins)[pin_set]
    engine = replace(engine, pin=pin, pin_set=pin_set, anchored=(item,), reviews=tuple(rows), review_pins=pins)
    root = sitefixture.ROOT
    rendered = render_docs(SiteData((engine,)), load_content(root / "site"), root / "site" / "templates")
    return rendered.files[name]


def test_each_statement_shows_its_verdict_and_deciding_permalink(tmp_path):
    text = page(
        tmp_path,
        [
            row("summary", "Reserves KV slots <script>alert(3)</script> for new tokens."),
            row("contract.input[0]", "request", lines=(8, 8)),
            row("contract.output", "blocks | None", verdict="false"),
            row("claims.c1", "Blocks come from the free pool <b>only</b>."),
        ],
    )
    permalink = "https://github.com/example/engine/blob/abc1234/vllm/core/sched.py"
    assert 'Reviewed: <span class="atlas-review atlas-review-true"' in text
    assert f'<a href="{permalink}#L7-L9"><code>vllm/core/sched.py:7-9</code></a>' in text
    contract = text[text.index("**Contract**") : text.index("**The article's claims**")]
    rows = [line for line in contract.splitlines() if line.startswith("| ") and "Field" not in line]
    assert len(rows) == 4  # input, input, output, consumer: one row per statement
    assert "request" in rows[0] and f'{permalink}#L8"' in rows[0] and "atlas-review-true" in rows[0]
    assert "not reviewed" in rows[1]  # num_new_tokens has no row
    assert "atlas-review-false" in [r for r in rows if r.startswith("| output")][0]
    claims = text[text.index("**The article's claims**") :]
    assert "atlas-review-true" in claims and f"{permalink}#L7-L9" in claims


def test_a_stale_row_and_a_row_of_another_pin_set_say_so(tmp_path):
    rows = [
        row("contract.input[0]", "the request"),
        row("claims.c1", "Blocks come from the free pool <b>only</b>.", pin_set="latest"),
    ]
    text = page(tmp_path, rows, "latest")
    assert "(stale: the statement changed since)" in text
    contract = text[text.index("**Contract**") : text.index("**The article's claims**")]
    assert "<small>at the default pins</small>" in contract  # the default row, shown on the latest page ...
    assert "https://github.com/example/engine/blob/abc1234/vllm/core/sched.py#L7-L9" in contract  # ... at its pin
    claims = text[text.index("**The article's claims**") :]
    assert "https://github.com/example/engine/blob/def5678/vllm/core/sched.py#L7-L9" in claims


def test_the_symbol_page_shows_each_statement_with_its_review(tmp_path):
    rows = [
        row("summary", "Reserves KV slots <script>alert(3)</script> for new tokens."),
        row("contract.input[0]", "request", lines=(8, 8)),
        row("contract.output", "blocks | None", verdict="false"),
        row("claims.c1", "Blocks come from the free pool <b>only</b>."),
    ]
    text = page(tmp_path, rows, name="symbols/vllm/vllm.core.sched.KVCacheManager.allocate_slots.md")
    permalink = "https://github.com/example/engine/blob/abc1234/vllm/core/sched.py"
    assert 'Reviewed: <span class="atlas-review atlas-review-true"' in text
    table = text[text.index("| contract |") : text.index("**Claim**")]
    lines = [line for line in table.splitlines() if line.startswith("| ") and "| contract |" not in line]
    assert "request" in lines[0] and f'{permalink}#L8"' in lines[0] and "atlas-review-true" in lines[0]
    assert "not reviewed" in lines[1]  # num_new_tokens has no row
    assert "atlas-review-false" in [line for line in lines if line.startswith("| output")][0]
    claims = text[text.index("**Claim**") :]
    assert "reviewed: <span" in claims and f"{permalink}#L7-L9" in claims
