"""The kernel join and the step assignment on what the H200 recorded (tests/runtime/data/h200_kernels.json): every
kernel name vLLM 0.26.0 and SGLang 0.5.17 ran, eager and with CUDA graphs, joins where it did there, all but a
memcpy of 0.02 ms of the GPU time is attributed, and two recorded decode steps get their kernels, the CUDA-graph
replay's included, with the replay recognised as one graph whose nodes are joined once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atlas.runtime.kernels import KernelJoin, KernelNodes, Origin
from atlas.runtime.kernels.steps import KernelRecords, kernels_of, step_modes, summary

DATA = json.loads((Path(__file__).parent / "data" / "h200_kernels.json").read_text())["engines"]


def joiner(engine: str) -> KernelJoin:
    data = DATA[engine]
    return KernelJoin(KernelNodes.from_json(data["kernel_nodes"]), data["triton"])


def label(match) -> str:
    if match.origin == Origin.TREE:
        return match.static_id
    return f"library:{match.library}" if match.origin == Origin.LIBRARY else "unknown"


@pytest.mark.parametrize("engine", sorted(DATA))
def test_every_name_the_h200_ran_joins_where_it_did(engine):
    join = joiner(engine)
    rows = DATA[engine]["names"]
    assert {r["name"]: label(join(r["name"])) for r in rows} == {r["name"]: r["expect"] for r in rows}


@pytest.mark.parametrize("engine", sorted(DATA))
@pytest.mark.parametrize("run", ["graph", "eager"])
def test_gpu_time_attributed_is_at_least_the_target(engine, run):
    join = joiner(engine)
    timed = [(join(r["name"]), r["gpu_ns"][run]) for r in DATA[engine]["names"] if run in r["gpu_ns"]]
    total = sum(ns for _, ns in timed)
    unknown = sum(ns for m, ns in timed if m.origin == Origin.UNKNOWN)
    assert total > 0 and unknown / total < 0.001


def test_inductor_kernels_with_and_without_descriptive_names_are_torch_compile():
    join = joiner("vllm")
    for name in ("triton_", "triton_red_fused_3", "triton_poi_fused_mul_silu_slice_1"):
        assert join(name).library == "Inductor (torch.compile)"
    assert join("triton_helper").origin == Origin.UNKNOWN


@pytest.mark.parametrize("engine", sorted(DATA))
def test_recorded_decode_steps_get_their_kernels_and_one_graph(engine):
    cut = DATA[engine]["decode_steps"]
    records = KernelRecords([cut["window"]], DATA[engine]["triton"])
    kernels = kernels_of(records, cut["events"], joiner(engine))
    assert len(kernels) == len(cut["window"]["gpu"]) and {k.step for k in kernels} <= {*cut["steps"], -1}
    # SGLang launches a few eager kernels between its execute calls (copies and ATen ops while preparing the next
    # batch): they stay outside the steps, still joined
    outside = [k for k in kernels if k.step == -1]
    assert len(outside) < 20 and all(not k.graph and k.match.origin != Origin.UNKNOWN for k in outside)
    assert all(step_modes(cut["events"])[(k.pid, k.step)] == "DECODE" for k in kernels if k.step >= 0)
    replays = [k for k in kernels if k.graph]
    assert {k.graph for k in replays} == {"graph-1"}  # the same captured graph, replayed in both steps
    per_step = {s: [k.name for k in replays if k.step == s] for s in cut["steps"]}
    first, second = per_step.values()
    assert first == second and len(first) > 300  # the decode graph's nodes, in order, each replay
    assert [k.node for k in replays if k.step == cut["steps"][0]] == list(range(len(first)))
    got = summary(kernels, records, cut["events"])
    assert got["graphs"]["graph-1"] == {"nodes": len(first), "attributed_nodes": len(first), "replays": 2}
    assert got["share"]["attributed"] == 1.0 and got["share_by_step_kind"]["DECODE graph"]["attributed"] == 1.0


def test_a_launch_after_a_nested_execute_call_belongs_to_the_outer_step():
    from atlas.runtime.kernels.steps import step_at

    spans = [(0, 100, 7), (10, 20, 7), (200, 300, 8)]  # execute_model holds _determine_batch_execution_and_padding
    assert [step_at(spans, t, True) for t in (5, 15, 50, 150, 250)] == [7, 7, 7, -1, 8]
    assert step_at(spans, 150, False) == 7


def test_kernel_windows_knob(monkeypatch):
    from atlas.env import kernel_windows
    from atlas.errors import ConfigError
    from atlas.runtime.kernels.capture import OPTIONS, options

    monkeypatch.delenv("ATLAS_KERNEL_WINDOWS", raising=False)
    assert kernel_windows() is None and options() == OPTIONS
    monkeypatch.setenv("ATLAS_KERNEL_WINDOWS", "0.5,1")
    assert options() == {"every_s": 0.5, "window_s": 1.0}
    monkeypatch.setenv("ATLAS_KERNEL_WINDOWS", "0,1")
    with pytest.raises(ConfigError, match="ATLAS_KERNEL_WINDOWS"):
        kernel_windows()


def test_windows_open_only_once_the_engine_steps():
    from probes.kernels import KernelCapture, is_launch

    stepped = []
    capture = KernelCapture(None, {"every_s": 0, "window_s": 1}, lambda: bool(stepped))
    capture.tick()
    assert capture.profile is None and not capture.has_stepped  # start-up: no window, torch never touched
    stepped.append(1)
    capture.tick()
    assert capture.has_stepped
    assert is_launch("cudaLaunchKernelExC_v11060") and is_launch("cuGraphLaunch") and not is_launch("cudaMalloc")
