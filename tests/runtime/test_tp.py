"""`--tp N` reaches the engine under its own name and adds the collective hooks, resolved at every pin."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.env import settings as load_settings
from atlas.runtime.spec import build_spec
from atlas.runtime.trace import TraceOptions, engine_config


@pytest.mark.parametrize(
    "framework, device, tp, engine_args, expected",
    [
        ("vllm", "cpu", 1, (), {}),
        ("vllm", "cpu", 2, (), {"tensor_parallel_size": 2}),
        ("sglang", "cuda", 2, (), {"tp_size": 2}),
        ("vllm", "cuda", 2, ("--tensor-parallel-size", "4"), {"tensor_parallel_size": 4}),  # the user's args win
    ],
)
def test_tp_reaches_the_engine(framework, device, tp, engine_args, expected):
    config = engine_config(TraceOptions(framework, Path("out"), device=device, tp=tp, engine_args=engine_args))
    assert {k: v for k, v in config.items() if k in ("tensor_parallel_size", "tp_size")} == expected


@pytest.mark.parametrize("framework, pin_set", [("vllm", "default"), ("vllm", "latest"), ("sglang", "default")])
def test_collective_hooks_only_with_tp_and_at_their_lines(tmp_path, framework, pin_set):
    settings = load_settings()  # the pinned trees are synced where the tests run (ATLAS_MIRROR)
    plain = build_spec(framework, pin_set, "cuda", tmp_path, settings, source="builtin")
    tp2 = build_spec(framework, pin_set, "cuda", tmp_path, settings, source="builtin", tp=2)
    collective = [h for h in tp2["hooks"] if h.get("collective")]
    assert not [h for h in plain["hooks"] if h.get("collective")] and tp2["tp"] == 2
    assert sorted(h["qualname"] for h in collective) == [
        "CustomAllreduce.custom_all_reduce",
        "GroupCoordinator.all_reduce",
    ]
    for h in collective:
        assert h["aggregate"] and h["optional"] and h["line"] > 0 and h["path"].endswith(".py")
