"""The call edges recorded inside the real engines on the H200 (results/edges/*-h200-*.edges.json, gpu/collect.py),
held to the static graphs of the default pins built here: each recording's share of calls held must stay at the
committed measurement (its .verify.json) less a small margin, so a resolver change that loses runtime edges fails
(marker `slow`: builds the default graphs when not built)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from atlas.env import find_root
from atlas.env import settings as load_settings
from atlas.errors import AtlasError
from atlas.graph import load_graph, load_index
from atlas.runtime import recording, verify
from atlas.sources import load_all

pytestmark = pytest.mark.slow
EDGES = find_root(Path(__file__).resolve().parent) / "results" / "edges"
RECORDINGS = sorted(EDGES.glob("*-h200-*.edges.json"))
MARGIN = 0.005  # the graph is deterministic: this leaves room for a deliberate trade, not for drift


@pytest.fixture(scope="module")
def settings():
    os.environ.setdefault("ATLAS_MIRROR", "/work/shared/sources")
    try:
        return load_settings()
    except AtlasError as exc:
        pytest.skip(f"no project settings: {exc}")


def test_both_engines_have_a_committed_h200_recording():
    assert {p.name.split("-")[0] for p in RECORDINGS} == {"vllm", "sglang"}


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.name for p in RECORDINGS])
def test_recorded_calls_are_held_by_the_default_graph(settings, path):
    rec = recording.load(path)
    measured = json.loads(path.with_name(path.name.replace(".edges.json", ".verify.json")).read_text())
    (manifest,) = load_all(settings.root, [rec.framework])
    try:
        index, graph = (
            load_index(settings, rec.framework, rec.pin_set),
            load_graph(settings, rec.framework, rec.pin_set),
        )
    except AtlasError as exc:
        pytest.skip(f"{rec.framework} not synced: {exc}")
    report = verify.verify(rec, index, graph, manifest.package_root)
    assert report.share >= measured["share"] - MARGIN, (report.share, [c.edge for c in report.misses()][:20])
    held, recorded = report.core
    assert held / recorded >= measured["core"]["share"] - MARGIN
