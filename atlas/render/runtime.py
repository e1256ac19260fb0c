"""The probe-traces page (runtime.md) and its chart data: per trace a step timeline, TTFT and ITL histograms and a
request lifecycle view (drawn in the browser by site/assets/atlas-charts.js with the bundled uPlot), the section 11
diagnosis, the hooks and the call edges. Traces recorded before series existed get the charts their summary holds.
Pure: the traces and their series are handed in."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from atlas.render.graphdata import as_script
from atlas.runtime.explain import Diagnosis, Trace, diagnose
from atlas.runtime.explain.facts import Facts
from atlas.runtime.series import MISSING, Series, to_json
from atlas.runtime.wording import counts_text

PAGE = "runtime.md"
BINS = 30


def data_key(title: str) -> str:
    return "runtime/" + hashlib.sha1(title.encode()).hexdigest()[:12]


def data_path(key: str) -> str:
    return f"assets/atlas/data/{key}.js"


def histogram(values: list[float], bins: int = BINS) -> dict[str, list[float] | list[int]]:
    """Equal-width bins from the smallest to the largest value (in the values' unit): left edges and counts."""
    if not values:
        return {"edges": [], "counts": []}
    lo, hi = min(values), max(values)
    width = (hi - lo) / bins or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(int((v - lo) / width), bins - 1)] += 1
    return {"edges": [round(lo + i * width, 4) for i in range(bins + 1)], "counts": counts}


def chart_data(trace: Trace) -> dict[str, Any]:
    """What the charts of one trace draw: the series (when recorded) and the two latency histograms."""
    requests = trace.summary.get("requests") or {}
    if trace.series is not None:
        facts = Facts(trace.series)
        ttft = [v / 1000 for v in facts.ttft_us()]
        itl = [g[0] / 1000 for g in facts.gaps()]
        itl_label = "inter-token gaps (ms), every token of every request"
    else:
        ttft = [r["ttft_ms"] for r in requests.values() if r.get("ttft_ms") is not None]
        itl = [r["itl_ms"]["p50"] for r in requests.values() if r.get("itl_ms")]
        itl_label = "median inter-token gap per request (ms): the summary keeps no single gaps"
    data: dict[str, Any] = {
        "title": trace.title,
        "ttft": histogram(ttft),
        "itl": histogram(itl),
        "itl_label": itl_label,
        "num_ttft": len(ttft),
        "num_itl": len(itl),
    }
    if trace.series is not None:
        data["series"] = _compact(trace.series)
    return data


def _compact(series: Series) -> dict[str, Any]:
    """The series for the browser: times in ms, sources with their permalinks."""
    out = to_json(series)
    out["sources"] = {
        k: {"symbol": s.symbol, "where": s.where, "url": series.link(s)} for k, s in series.sources.items()
    }
    return out


def runtime_files(
    env: Any, traces: list[tuple[str, dict[str, Any]]], series: dict[str, Series]
) -> Iterator[tuple[str, str]]:
    """runtime.md and one chart data file per trace."""
    rows = []
    for title, summary in traces:
        trace = Trace(title, summary, series.get(title))
        key = data_key(title)
        rows.append(_trace_row(trace, key))
        yield data_path(key), as_script(key, chart_data(trace))
    yield PAGE, env.get_template("runtime.md.j2").render(traces=rows)


def _trace_row(trace: Trace, key: str) -> dict[str, Any]:
    s = trace.summary
    series = trace.series
    diagnosis: Diagnosis = diagnose(trace)
    return {
        "title": trace.title,
        "t": s,
        "key": key,
        "data": data_path(key),
        "has_series": series is not None,
        "num_steps": len(series.steps) if series is not None else 0,
        "num_requests": len(series.requests) if series is not None else len(s.get("requests") or {}),
        "modes": counts_text(s.get("steps_by_batch_mode") or {}),
        "graphs": counts_text(s.get("cuda_graph") or {}),
        "diagnosis": diagnosis,
        "kv_unit": series.kv_unit if series is not None else "",
        "has_kv": series is not None and any(v != MISSING for v in series.steps.kv_free),
    }


def diagnoses(traces: list[tuple[str, dict[str, Any]]], series: dict[str, Series]) -> list[tuple[str, Diagnosis]]:
    """Section 11 applied to every trace the site shows (the cross-reference page sets them side by side)."""
    return [(title, diagnose(Trace(title, summary, series.get(title)))) for title, summary in traces]
