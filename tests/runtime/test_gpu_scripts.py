"""The GPU machine's path, tested here by its dry run: gpu/pack_atlas.py builds atlas's wheel and fetches its
dependencies for the device's Python; gpu/trace_on_device.py lands the engines, installs atlas from those wheels
and runs `atlas trace --kernels` for each engine and scenario, results under $OUT."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

GPU = Path(__file__).resolve().parents[2] / "gpu"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"gpu_{name}", GPU / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pack_builds_atlas_pure_and_its_dependencies_for_the_device(tmp_path):
    pack = load("pack_atlas")
    wheel, download = pack.commands(tmp_path)
    assert wheel[3:5] == ["wheel", "--no-deps"] and "--no-build-isolation" not in wheel and wheel[-1] == str(GPU.parent)
    assert download[3:5] == ["download", "--no-deps"] and "3.12" in download and "--only-binary=:all:" in download
    pinned = [a for a in download if "==" in a]
    assert len(pinned) == len(pack.DEPENDENCIES) and any(a.startswith("tree-sitter-cpp==") for a in pinned)


def test_device_plan_lands_installs_then_traces_each_engine_and_scenario(tmp_path):
    device = load("trace_on_device")
    (tmp_path / "wheels").mkdir()
    (tmp_path / "wheels" / "llm_atlas-0.1.0-py3-none-any.whl").write_text("")
    workload = ["--requests", "64"]
    steps = device.plan(tmp_path, Path("/out"), ["vllm", "sglang"], ["cuda-graph"], ["graph", "eager"], workload)
    labels = [label for label, _, _ in steps]
    assert labels == [
        "land the engines",
        "install atlas",
        "vllm graph",
        "vllm eager",
        "vllm cuda-graph",
        "sglang graph",
        "sglang eager",
        "sglang cuda-graph",
    ]
    install = steps[1][1]
    assert install[-1].endswith("llm_atlas-0.1.0-py3-none-any.whl") and "--no-index" in install
    for label, command, env in steps[2:]:
        engine = label.split()[0]
        assert command[1:4] == ["-m", "atlas", "trace"] and ["--framework", engine] == command[4:6]
        assert {"--kernels", "--bundle"} <= set(command) and command[command.index("--device") + 1] == "cuda"
        assert command[command.index("--out") + 1].startswith(f"/out/{engine}/")
        assert env["PYTHONPATH"].startswith(device.ATLAS_SITE + ":") and device.SITES[engine] in env["PYTHONPATH"]
        assert env["ATLAS_ROOT"] == str(tmp_path / "bundle")  # the bundle's pinned_sources, no checkout there
    graph, eager, scenario = steps[2][1], steps[3][1], steps[4][1]
    assert graph[-2:] == ["--out", "/out/vllm/graph"] and "--requests" in graph  # CUDA graphs: the engine default
    assert eager[-2:] == ["--", "--enforce-eager"] and "--requests" in eager
    assert scenario[scenario.index("--scenario") + 1] == "cuda-graph" and "--requests" not in scenario
    assert steps[6][1][-2:] == ["--", "--disable-cuda-graph"]


@pytest.mark.parametrize("script", ["trace_on_device", "pack_atlas"])
def test_dry_run_prints_and_runs_nothing(script, tmp_path):
    done = subprocess.run(
        [sys.executable, str(GPU / f"{script}.py"), "--dry-run"],
        capture_output=True,
        text=True,
        env={**os.environ, "OUT": str(tmp_path), "PYTHONPATH": str(GPU.parent)},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "atlas" in done.stdout and list(tmp_path.iterdir()) == []
