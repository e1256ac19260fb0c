"""Probe specs from the pinned trees: every built-in hook resolves to its `def` line at the pin, for both engines
and every synced pin; the engine's version picks the pin set."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.env import settings as load_settings
from atlas.errors import BuildMissing, SymbolNotFound
from atlas.runtime.spec import GPU_SAMPLE_EVERY, build_spec, pick_pin_set
from atlas.sources import load_all


def _settings():
    try:
        return load_settings()
    except Exception as exc:  # pragma: no cover - a machine without the project
        pytest.skip(f"no project settings: {exc}")


@pytest.mark.parametrize(
    "framework, pin_set, device",
    [
        ("vllm", "default", "cuda"),
        ("vllm", "cpu", "cpu"),
        ("vllm", "latest", "cuda"),
        ("sglang", "default", "cuda"),
    ],
)
def test_builtin_hooks_resolve_to_def_lines(framework, pin_set, device, tmp_path):
    settings = _settings()
    try:
        spec = build_spec(framework, pin_set, device, tmp_path, settings, source="builtin")
    except BuildMissing as exc:
        pytest.fail(f"{exc} (the pinned trees are synced on this machine: run `atlas sync --pins {pin_set}`)")
    root = Path(settings.checkouts / framework / spec["commit"][:12])
    assert spec["source"] == "builtin-default" and len(spec["hooks"]) >= 9
    assert spec["gpu_sample_every"] == GPU_SAMPLE_EVERY > 1  # timing every call would cost vLLM ~8% (run 12)
    for hook in spec["hooks"]:
        source = (root / hook["path"]).read_text().splitlines()
        assert source[hook["line"] - 1].lstrip().startswith(f"def {hook['qualname'].rsplit('.', 1)[1]}("), hook
        assert hook["end_line"] > hook["line"]
        assert hook["path"] in spec["blobs"]


def test_a_hook_gone_at_a_pin_is_named(tmp_path):
    """SGLang 0.5.23 dropped RadixCache.cache_finished_req (the release path moved): the built-in list, written for
    the default pins, must say so rather than hook something else."""
    with pytest.raises(
        SymbolNotFound,
        match=r"RadixCache\.cache_finished_req is not defined in "
        r"python/sglang/srt/mem_cache/radix_cache\.py",
    ):
        build_spec("sglang", "latest", "cuda", tmp_path, _settings(), source="builtin")


@pytest.mark.parametrize(
    "framework, requested, version, picked",
    [
        ("vllm", "default", "0.32.0+cpu", "cpu"),
        ("vllm", "default", "0.26.0", "default"),
        ("vllm", "default", "0.99.0", "default"),  # not pinned: keep the request, events say "not at pin"
        ("sglang", "default", "0.5.23", "latest"),
    ],
)
def test_engine_version_picks_the_pin_set(framework, requested, version, picked):
    (manifest,) = load_all(_settings().root, [framework])
    assert pick_pin_set(manifest, requested, version) == picked


def test_annotations_on_one_symbol_share_one_hook():
    from atlas.runtime.spec import merge_by_symbol, with_timing_hooks

    entries = [
        {"annotation": "a1", "symbol": "vllm.x.Scheduler.schedule", "role": "plan", "capture": ["batch_size"]},
        {
            "annotation": "a2",
            "symbol": "vllm.x.Scheduler.schedule",
            "role": "plan",
            "capture": ["batch_size", "request_ids"],
        },
        {"annotation": "a3", "symbol": "vllm.x.Other.f", "role": "commit", "capture": []},
    ]
    merged = merge_by_symbol(entries)
    assert [(e["symbol"], e["annotations"], e["capture"]) for e in merged] == [
        ("vllm.x.Scheduler.schedule", ["a1", "a2"], ["batch_size", "request_ids"]),
        ("vllm.x.Other.f", ["a3"], []),
    ]
    added = [e["qualname"] for e in with_timing_hooks(merged, "vllm", "cpu")[2:]]
    assert added == ["Scheduler.add_request", "Scheduler.schedule", "Scheduler.update_from_output"]
