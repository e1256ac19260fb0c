"""`atlas explain`'s kernels part on what the H200 recorded (tests/runtime/data/h200_kernels.json): two decode steps
of each engine laid out as the trace folder `atlas trace --kernels` writes (shards with the kernel window, spec.json
with the pin's kernel nodes, the summary), explained from the folder and from its summary alone; the committed
device summaries (results/gpu-kernels/summaries.json); a trace without kernels says so in one line."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from atlas.runtime.kernels import KernelJoin, KernelNodes, Origin
from atlas.runtime.kernels.steps import KernelRecords, kernels_of, summary
from atlas.runtime.kernels.view import view_of_summary

DATA = json.loads((Path(__file__).parent / "data" / "h200_kernels.json").read_text())["engines"]
RESULTS = Path(__file__).resolve().parents[2] / "results"
ATLAS = [sys.executable, "-c", "from atlas.cli import run; run()"]


def _joined(engine: str):
    data, cut = DATA[engine], DATA[engine]["decode_steps"]
    records = KernelRecords([cut["window"]], data["triton"])
    join = KernelJoin(KernelNodes.from_json(data["kernel_nodes"]), data["triton"])
    return records, kernels_of(records, cut["events"], join)


def trace_folder(root: Path, engine: str) -> Path:
    """The recorded decode steps as a trace folder: a JSON-lines shard of the calls, the window and the Triton
    sources; spec.json with the kernel nodes; summary.json with the kernels' summary."""
    data, cut = DATA[engine], DATA[engine]["decode_steps"]
    folder = root / engine
    (folder / "shards").mkdir(parents=True)
    pid = cut["window"]["pid"]
    triton = [
        {"kind": "triton", "pid": pid, "name": n, "module": d.rsplit(".", 1)[0], "qualname": d.rsplit(".", 1)[1]}
        for n, d in data["triton"].items()
    ]
    lines = [*({**e, "seq": i} for i, e in enumerate(cut["events"])), cut["window"], *triton]
    (folder / "shards" / "p1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    (folder / "spec.json").write_text(json.dumps({"kernel_nodes": data["kernel_nodes"]}))
    records, kernels = _joined(engine)
    (folder / "summary.json").write_text(
        json.dumps({"framework": engine, "kernels": summary(kernels, records, cut["events"])})
    )
    return folder


def explain(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([*ATLAS, "explain", *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.parametrize("engine", sorted(DATA))
def test_the_folder_gives_gpu_time_per_step_shares_and_top_kernels(tmp_path, engine):
    folder = trace_folder(tmp_path, engine)
    got = json.loads(explain(str(folder), "--format", "json").stdout)["kernels"]
    _, kernels = _joined(engine)
    graph = [k for k in kernels if k.graph and k.step >= 0]
    per_step = Counter()
    for k in graph:
        per_step[k.step] += k.dur_ns
    kinds = {(s["kind"], s["launch"]): s for s in got["kinds"]}
    decode = kinds[("decode", "graph")]
    assert decode["batch_modes"] == ["DECODE"] and decode["num_steps"] == len(per_step)
    assert decode["gpu_us_per_step"] == round(statistics.median(per_step.values()) / 1e3, 1)
    assert decode["tree"] + decode["library"] + decode["unknown"] == pytest.approx(1.0, abs=1e-3)
    total = sum(k.dur_ns for k in graph)
    tree = sum(k.dur_ns for k in graph if k.match.origin == Origin.TREE)
    assert decode["tree"] == round(tree / total, 4)
    shares = [r["share"] for r in decode["top"]]
    assert shares == sorted(shares, reverse=True) and len(shares) == 10
    nodes = {row[0]: f"{row[2]}:{row[3]}" for row in DATA[engine]["kernel_nodes"]}
    in_tree = [r for r in decode["top"] if r["origin"] == Origin.TREE.value]
    assert in_tree and all(r["where"] == nodes[r["label"]] for r in in_tree)
    assert all(r["where"] == "" and r["label"] != "unknown" for r in decode["top"] if r["origin"] == "library")
    assert got["graphs"][0]["num_nodes"] == got["graphs"][0]["num_attributed"] > 300

    text = explain(str(folder)).stdout
    head = text[text.index("\nkernels (") + 1 :]
    assert head.startswith("kernels (joined again from the kernel records)")
    assert f"  decode graph (DECODE): {len(per_step)} steps, median {decode['gpu_us_per_step']} us GPU per step" in head
    first = in_tree[0]
    assert f"{first['name']}  [{first['label']}  {first['where']}]" in head
    assert "capture cost per step: execute" in head


@pytest.mark.parametrize("engine", sorted(DATA))
def test_a_summary_file_gives_the_shares_it_kept(tmp_path, engine):
    folder = trace_folder(tmp_path, engine)
    kept = json.loads((folder / "summary.json").read_text())["kernels"]
    got = json.loads(explain(str(folder / "summary.json"), "--format", "json").stdout)["kernels"]
    assert got["source"] == "summary" and got["attributed"] == kept["share"]["attributed"]
    graph = next(s for s in got["kinds"] if (s["kind"], s["launch"]) == ("decode", "graph"))
    assert graph["tree"] == kept["share_by_step_kind"]["DECODE graph"]["pinned tree"] and graph["top"] == []
    assert "per-step GPU time and top kernels: not in a summary" in explain(str(folder / "summary.json")).stdout


def test_a_trace_without_kernels_says_how_to_record_them():
    text = explain(str(RESULTS / "gpu-vllm-summary.json")).stdout
    assert text.rstrip().endswith("kernels: none recorded (run atlas trace --kernels)")
    assert json.loads(explain(str(RESULTS / "gpu-vllm-summary.json"), "--format", "json").stdout)["kernels"] is None


def test_the_committed_device_summaries_name_what_the_join_now_attributes():
    runs = json.loads((RESULTS / "gpu-kernels" / "summaries.json").read_text())
    for run, doc in runs.items():
        kept = doc["kernels_as_the_device_summarised"]
        view = view_of_summary(kept)
        assert [k.kind for k in view.kinds] == sorted(
            (k.kind for k in view.kinds), key=("prefill", "decode", "idle", "unrecorded").index
        )
        assert {u.name for u in view.unattributed} == {u["name"] for u in kept["unattributed"]}, run
        for u in view.unattributed:  # what the device left unknown and this checkout's join names by its library
            assert u.joined_now == KernelJoin(KernelNodes.of(()))(u.name).library
    assert any(
        u.joined_now
        for doc in runs.values()
        for u in view_of_summary(doc["kernels_as_the_device_summarised"]).unattributed
    )
