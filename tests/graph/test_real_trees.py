"""The issue's "done when" queries on the real pinned trees (marker `slow`: builds a whole tree when not built)."""

import os

import pytest

from atlas.env import settings as load_settings
from atlas.errors import AtlasError
from atlas.graph import load_graph, load_index

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def settings():
    os.environ.setdefault("ATLAS_MIRROR", "/work/shared/sources")
    try:
        return load_settings()
    except AtlasError as exc:
        pytest.skip(f"no project settings: {exc}")


def _graph(settings, framework):
    try:
        return load_graph(settings, framework)
    except AtlasError as exc:
        pytest.skip(f"{framework} not synced: {exc}")


def test_vllm_schedule_calls_allocate_slots_and_is_called_by_engine_core(settings):
    g = _graph(settings, "vllm")
    index = load_index(settings, "vllm")
    sid = index.resolve("Scheduler.schedule")
    assert sid == "vllm.v1.core.sched.scheduler.Scheduler.schedule"
    callees = {b for _, _, b, _ in g.callees(sid)}
    callers = {a for _, a, _, _ in g.callers(sid)}
    assert "vllm.v1.core.kv_cache_manager.KVCacheManager.allocate_slots" in callees
    assert "vllm.v1.engine.core.EngineCore.step" in callers
    assert g.node(sid)["component"] == "scheduler"


def test_sglang_get_next_batch_to_run_reaches_prefill_adder(settings):
    g = _graph(settings, "sglang")
    sid = load_index(settings, "sglang").resolve("srt.managers.scheduler.Scheduler.get_next_batch_to_run")
    chain = g.path(sid, "sglang.srt.managers.schedule_policy.PrefillAdder.add_one_req")
    assert chain and chain[0] == sid, chain
    assert any(c.endswith("Scheduler.get_new_batch_prefill") for c in chain)


def test_ambiguous_suffix_lists_candidates(settings):
    index = load_index(settings, "vllm")
    with pytest.raises(AtlasError, match="ambiguous"):
        index.resolve("forward")
