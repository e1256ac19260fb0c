"""Runtime evidence on mechanism pages from committed traces of the same commit: hook counts, timing, an example
event with the line it was called from; a trace of another commit is not shown."""

from __future__ import annotations

import json

import sitefixture

from atlas.query.runtime import evidence_for
from atlas.render import SiteData, build_site

ROOT = sitefixture.ROOT
SYMBOL = "vllm.core.sched.KVCacheManager.allocate_slots"


def summary(commit: str) -> dict:
    """The committed H200 summary's shape, with a hook on the fixture's allocate_slots."""
    real = json.loads((ROOT / "results" / "gpu-vllm-summary.json").read_text())
    event = real["timeline"][0]
    return {
        **real,
        "commit": commit,
        "hooks": {
            SYMBOL: {
                **next(iter(real["hooks"].values())),
                "fired": 12588,
                "role": "allocate",
                "path": "vllm/core/sched.py",
                "line": 7,
            }
        },
        "timeline": [
            {
                **event,
                "symbol": SYMBOL,
                "dur_ms": 0.02,
                "values": {"num_new_tokens": 16},
                "where": "vllm/core/sched.py:19",
            },
            {**event, "symbol": SYMBOL, "dur_ms": 0.04, "values": {}, "where": "vllm/core/sched.py:19"},
        ],
    }


def test_evidence_counts_times_and_example():
    excerpt = {"traceEvents": [{"ph": "X", "dur": 30.0, "args": {"symbol": SYMBOL, "call_site": "x.py:3", "n": 1}}]}
    (ev,) = evidence_for("vllm", "a" * 40, SYMBOL, [("H200 run", summary("a" * 40))], {"vllm": excerpt})
    assert (ev.fired, ev.num_timed, ev.median_us, ev.max_us) == (12588, 3, 30.0, 40.0)
    assert ev.example == {"num_new_tokens": 16} and ev.example_where == "vllm/core/sched.py:19"
    assert evidence_for("vllm", "b" * 40, SYMBOL, [("H200 run", summary("a" * 40))], {}) == []


def test_mechanism_page_shows_the_evidence(tmp_path):
    site = sitefixture.site_for(tmp_path)
    traces = [("H200 run, committed in results/x.json", summary(sitefixture.PIN.commit))]
    report = build_site(
        sitefixture.settings_for(tmp_path), site=SiteData(site.engines, {"traces": traces}), out=str(tmp_path / "out")
    )
    text = (report.out / "docs" / "mechanisms" / "prefix-cache.md").read_text()
    assert "the hook fired 12,588 times; 2 recorded calls took 30.0 &micro;s at the median" in text
    assert "../code.html#vllm/vllm/core/sched.py:L19" in text and "no trace of this pin" not in text
