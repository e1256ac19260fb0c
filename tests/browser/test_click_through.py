"""By clicks alone, offline, on the real site: from the home page to `EngineCore.step`'s source, then down the call
graph to `Scheduler.schedule`, `KVCacheManager.allocate_slots`, an attention backend, the `_C_cache_ops` op, its C++
implementation and `reshape_and_cache_flash_kernel`'s line in `cache_kernels.cu`; and from SGLang's
`Scheduler.run_batch` to a Triton kernel. Each hop is a click on a call in the source view's panel (the chain
is the graph's own path; the test asserts the page offers each link and lands on the right file and line)."""

from __future__ import annotations

import networkx as nx
import pytest
import realsite
from conftest import screenshot

from atlas.graph import load_graph
from atlas.model import SymbolKind
from atlas.render.code import NAME_LINES

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site():
    settings, report = realsite.built()
    return settings, report.html


def where(graph, sid: str) -> tuple[str, int]:
    """The file and line of node `sid` (a clone's are its origin's: the site shows its calls at that definition)."""
    span = graph.symbol(sid).span
    return span.path, span.start


def wait_ready(page, engine: str, path: str) -> None:
    page.wait_for_function(
        "f => { const b = document.querySelector('.atlas-codeview');"
        " return b && b.getAttribute('data-file') === f && b.hasAttribute('data-ready-ms'); }",
        arg=f"{engine}/{path}",
        timeout=30000,
    )


def open_definition(page, graph, sid: str) -> None:
    """Click the name of `sid`'s definition in the file the page shows (on its `def` line, after any decorators):
    its calls open in the panel."""
    span = graph.symbol(sid).span
    name = graph.clones.get(sid, sid).rsplit("::", 1)[-1].rsplit(".", 1)[-1]
    name = "lambda" if name.startswith("<lambda") else name  # a lambda is opened from its keyword
    names = page.locator(".atlas-code-body a.atlas-def", has_text=name)
    lines = [int(h.rsplit(":L", 1)[1]) for h in names.evaluate_all("els => els.map(e => e.getAttribute('href'))")]
    inside = [i for i, n in enumerate(lines) if span.start <= n <= max(span.end, span.start + NAME_LINES)]
    assert inside, f"no definition named {name} within {span.path}:{span.start}-{span.end}"
    target = names.nth(inside[0])
    target.scroll_into_view_if_needed()
    target.click()
    page.locator(".atlas-code-panel:not([hidden])").wait_for(timeout=10000)


def follow(page, engine: str, path: str, line: int) -> None:
    """Click the panel's link to `path:line` (opening the dispatch fan-out that holds it, if collapsed)."""
    link = page.locator(f".atlas-code-panel a[href='#{engine}/{path}:L{line}']").first
    assert link.count() == 1, f"the panel offers no link to {path}:{line}"
    fanout = link.locator("xpath=ancestor::details[1]")
    if fanout.count() and fanout.get_attribute("open") is None:
        fanout.locator("summary").first.click()
    link.click()
    wait_ready(page, engine, path)
    assert page.evaluate("location.hash").endswith(f"{path}:L{line}")


def walk(page, graph, engine: str, chain: list[str]) -> None:
    """From the source view at chain[0], click along the chain: open each definition, follow its call."""
    for caller, callee in zip(chain, chain[1:]):
        open_definition(page, graph, caller)
        follow(page, engine, *where(graph, callee))


def test_vllm_from_the_home_page_to_the_kv_cache_write_kernel(site, open_page):
    settings, html = site
    graph = load_graph(settings, "vllm")
    page, guard = open_page()
    page.goto((html / "index.html").as_uri())
    page.locator("article a[href$='vllm.v1.engine.core.EngineCore.step.html']").first.click()
    step = "vllm.v1.engine.core.EngineCore.step"
    path, line = where(graph, step)
    page.locator(f"article a[href*='code.html#vllm/{path}:L{line}']").first.click()
    wait_ready(page, "vllm", path)
    schedule = "vllm.v1.core.sched.scheduler.Scheduler.schedule"
    walk(page, graph, "vllm", [step, schedule, "vllm.v1.core.kv_cache_manager.KVCacheManager.allocate_slots"])
    screenshot(page, "click-allocate-slots")
    page.go_back()  # to the scheduler, then back to EngineCore.step: the engine's other branch, down to the kernel
    page.go_back()
    wait_ready(page, "vllm", path)
    op = "op:_C_cache_ops::reshape_and_cache_flash"
    chain = graph.path(step, op)
    assert chain and any("/attention/backends/" in where(graph, c)[0] for c in chain[1:-1]), chain
    walk(page, graph, "vllm", chain)  # through the attention backend to the op's registration
    impl = next(b for _, _, b, _ in graph.callees(op) if b.startswith("cpp:"))
    kernel = next(b for _, _, b, _ in graph.callees(impl) if b.endswith("::reshape_and_cache_flash_kernel"))
    walk(page, graph, "vllm", [op, impl, kernel])  # the registration -> the C++ function -> the kernel it launches
    kpath, kline = where(graph, kernel)
    assert kpath.endswith("cache_kernels.cu") and kline > 0
    row = page.locator(f".atlas-code-body tr[id='L{kline}'], .atlas-code-body [data-line='{kline}']").first
    assert "reshape_and_cache_flash_kernel" in (
        row.inner_text() if row.count() else page.locator(".atlas-code-body").inner_text()
    )
    screenshot(page, "click-kernel")
    assert not guard.errors and not guard.refused, (guard.errors, guard.refused)


def test_sglang_from_run_batch_to_a_triton_kernel(site, open_page):
    settings, html = site
    graph = load_graph(settings, "sglang")
    start = "sglang.srt.managers.scheduler.Scheduler.run_batch"
    reach = nx.single_source_shortest_path(graph.graph, start)
    kernels = sorted(
        (len(p), sid)
        for sid, p in reach.items()
        if sid in graph.symbols and graph.symbols[sid].kind is SymbolKind.TRITON_KERNEL
    )
    assert kernels, "run_batch reaches no Triton kernel in the graph"
    chain = reach[kernels[0][1]]
    page, guard = open_page()
    page.goto((html / "index.html").as_uri())
    page.locator("article a[href$='sglang.srt.managers.scheduler.Scheduler.run_batch.html']").first.click()
    path, line = where(graph, start)
    page.locator(f"article a[href*='code.html#sglang/{path}:L{line}']").first.click()
    wait_ready(page, "sglang", path)
    walk(page, graph, "sglang", chain)
    assert page.evaluate("location.hash").endswith(f":L{where(graph, chain[-1])[1]}")
    screenshot(page, "click-triton-kernel")
    assert not guard.errors and not guard.refused, (guard.errors, guard.refused)
