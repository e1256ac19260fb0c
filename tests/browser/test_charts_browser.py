"""The runtime and experiment pages' charts in a real chromium from file://, at desktop and phone width: each chart
draws (pixels in its plot area, axis labels), hovering a step shows its values, a request is followed from the
timeline to its lifecycle, and no page text holds a Python repr."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import screenshot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "render"))

RESULTS = Path(__file__).resolve().parents[2] / "results"
# Painted pixels of a chart's canvas: in its plot area, and in the strips where uPlot draws the axis labels (left of
# the y axis, below the x axis); and the labels it was given.
INK = """el => { const c = el.querySelector('canvas'), x = c.getContext('2d'), u = el.atlasPlot;
  const ink = (l, t, w, h) => { const d = x.getImageData(l, t, w, h).data; let n = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n; };
  const b = u.bbox;
  return { plot: ink(b.left, b.top, b.width, b.height), yLabel: ink(0, b.top, 24, b.height),
    xLabel: ink(b.left, c.height - 22, b.width, 22), labels: u.axes.map(a => a.label || '') }; }"""


@pytest.fixture(scope="module")
def charts_site(tmp_path_factory):
    import sitefixture

    from atlas.render import SiteData, build_site
    from atlas.runtime.experiments.report import collect
    from atlas.runtime.series import load_file

    tmp = tmp_path_factory.mktemp("charts")
    traces = [
        (f"committed in results/{name}-summary.json", json.loads((RESULTS / f"{name}-summary.json").read_text()))
        for name in ("cpu-vllm", "gpu-vllm", "gpu-sglang")
    ]
    series = {traces[0][0]: load_file(RESULTS / "cpu-vllm-series.json")}
    results = {"traces": traces, "series": series, "experiments": collect(RESULTS.parent)}
    site = sitefixture.site_for(tmp)
    return build_site(sitefixture.settings_for(tmp), site=SiteData(site.engines, results), out=str(tmp / "out")).html


def _drawn(page, selector: str) -> None:
    page.wait_for_selector(".atlas-charts[data-drawn]")
    charts = page.locator(selector)
    assert charts.count() > 0
    for i in range(charts.count()):
        chart = charts.nth(i)
        ink = chart.evaluate(INK)
        assert ink["plot"] > 500, f"chart {i} of {selector} is blank: {ink}"
        assert all(ink["labels"][:2]) and ink["yLabel"] > 20 and ink["xLabel"] > 20, f"chart {i} axis labels: {ink}"


@pytest.mark.parametrize("width", [1280, 390])
def test_runtime_page_charts_hover_and_lifecycle(charts_site, open_page, width):
    page, _ = open_page(width=width)
    page.goto((charts_site / "runtime.html").as_uri())
    _drawn(page, ".atlas-chart[data-chart] >> visible=true")
    assert "{'" not in page.locator("body").inner_text()
    over = page.locator(".atlas-chart[data-chart=tokens] .u-over").first
    over.scroll_into_view_if_needed()
    box = over.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2)
    readout = page.locator(".atlas-readout").first.inner_text()
    assert readout.startswith("step ") and "decode tokens" in readout and "running" in readout
    values = page.locator(".atlas-chart[data-chart=tokens] .u-legend .u-value").all_inner_texts()
    assert any(v.strip() not in ("", "-") for v in values[1:]), values
    page.mouse.click(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2)
    button = page.locator(".atlas-request").first
    rid = button.inner_text()
    button.click()
    life = page.locator(".atlas-lifecycle")
    assert life.locator("h4").inner_text() == f"Request {rid}"
    rows = life.locator(".atlas-life-table tr").all_inner_texts()
    assert "arrival" in rows[1] and any("finish" in r for r in rows)
    _drawn(page, ".atlas-lifecycle .atlas-chart")
    life.scroll_into_view_if_needed()
    print("screenshot:", screenshot(page, f"runtime-lifecycle-{width}"))
    page.locator(".atlas-chart[data-chart=tokens]").first.scroll_into_view_if_needed()
    print("screenshot:", screenshot(page, f"runtime-timeline-{width}"))


@pytest.mark.parametrize("width", [1280, 390])
def test_experiment_page_charts_and_bottlenecks_verdicts(charts_site, open_page, width):
    page, _ = open_page(width=width)
    page.goto((charts_site / "experiments" / "continuous-batching.html").as_uri())
    _drawn(page, ".atlas-figures .atlas-chart")
    assert "{'" not in page.locator("body").inner_text()
    page.locator(".atlas-figures").first.scroll_into_view_if_needed()
    print("screenshot:", screenshot(page, f"experiment-charts-{width}"))
    page.goto((charts_site / "crossref" / "bottlenecks.html").as_uri())
    verdicts = page.locator(".atlas-diag").all_inner_texts()
    assert len(verdicts) == 8 * 3 and set(verdicts) <= {"supported", "not supported", "no data"}
    assert "{'" not in page.locator("body").inner_text()
