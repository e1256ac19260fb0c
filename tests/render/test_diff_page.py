"""The site's diff page renders the last `atlas diff` report of each engine (atlas.diff.report.to_json)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from atlas.render.env import environment
from atlas.render.inputs import load_results
from atlas.render.pages import result_pages

TEMPLATES = Path(__file__).resolve().parents[2] / "site" / "templates"

REPORT = {
    "framework": "vllm",
    "old": {"ref": "v0.26.0", "commit": "a" * 40},
    "new": {"ref": "v0.33.0", "commit": "b" * 40},
    "summary": {"renamed": 1, "removed": 1},
    "changes": [
        {"kind": "renamed", "symbol": "pkg.take", "new_symbol": "pkg.allocate", "detail": "renamed to allocate"},
        {"kind": "removed", "symbol": "pkg.gone<script>", "new_symbol": "", "detail": ""},
    ],
    "annotations": [
        {
            "id": "vllm.prefix-cache.take",
            "symbol": "pkg.take",
            "status": "drifted",
            "reason": "renamed to allocate",
            "proposed": "pkg.allocate",
            "candidates": ["pkg.allocate"],
            "file": "annotations/vllm/x.yaml",
            "line": 5,
        },
        {
            "id": "vllm.preemption-retraction.gone",
            "symbol": "pkg.gone",
            "status": "broken",
            "reason": "gone <b>",
            "proposed": "",
            "candidates": ["pkg.went"],
            "file": "annotations/vllm/x.yaml",
            "line": 9,
        },
        {
            "id": "vllm.prefix-cache.ok",
            "symbol": "pkg.ok",
            "status": "ok",
            "reason": "",
            "proposed": "",
            "candidates": [],
            "file": "annotations/vllm/x.yaml",
            "line": 12,
        },
    ],
}


def test_diff_page_shows_statuses_links_and_changes(tmp_path):
    (tmp_path / "diff").mkdir()
    (tmp_path / "diff" / "last-vllm.json").write_text(json.dumps(REPORT))
    results = load_results(SimpleNamespace(build=tmp_path))
    pages = dict(result_pages(environment(TEMPLATES), SimpleNamespace(results=results)))
    page = pages["diff.md"]
    assert "## vllm: `v0.26.0` -> `v0.33.0`" in page
    assert "[vllm.prefix-cache.take](mechanisms/prefix-cache.md#vllm-prefix-cache-take)" in page
    assert "**drifted**" in page and "**broken**" in page and "vllm.prefix-cache.ok" not in page
    assert "<code>pkg.take</code> -> <code>pkg.allocate</code>" in page
    assert "<script>" not in page and "gone &lt;b&gt;" in page


def test_diff_page_without_a_report_says_how_to_make_one(tmp_path):
    pages = dict(
        result_pages(environment(TEMPLATES), SimpleNamespace(results=load_results(SimpleNamespace(build=tmp_path))))
    )
    assert "atlas diff FRAMEWORK OLD NEW" in pages["diff.md"]
