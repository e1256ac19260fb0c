"""Kernel records from the probe to the trace: kineto's events of a window written as one record (probes.kernels,
fed stand-ins of torch.profiler's KinetoEvent), each kernel assigned to the step whose execute call launched it,
CUDA-graph replays recognised and their nodes joined once, the summary's shares and cost, the Perfetto track."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

from atlas.model import SymbolKind
from atlas.runtime.kernels import KernelJoin, KernelNode, KernelNodes
from atlas.runtime.kernels.perfetto import GPU_TID, kernel_events
from atlas.runtime.kernels.steps import KernelRecords, kernels_of, summary
from probes.kernels import KernelCapture, window_record

OFFSET = 1_000_000_000_000  # wall minus monotonic clock in this made-up process
RESHAPE = "void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)0>(long)"
NODE = "cuda:csrc/libtorch_stable/cache_kernels.cu::vllm::reshape_and_cache_flash_kernel"


@dataclass
class Event:
    """The methods of torch.profiler's _KinetoEvent that probes.kernels reads."""

    label: str
    device: str
    start: int  # monotonic ns; kineto reports wall-clock ns
    dur: int
    corr: int
    stream: int = 7

    def name(self) -> str:
        return self.label

    def device_type(self) -> str:
        return f"DeviceType.{self.device}"

    def start_ns(self) -> int:
        return self.start + OFFSET

    def duration_ns(self) -> int:
        return self.dur

    def correlation_id(self) -> int:
        return self.corr

    def device_resource_id(self) -> int:
        return self.stream

    def device_index(self) -> int:
        return 0

    def start_thread_id(self) -> int:
        return 11


def window() -> dict:
    """Step 1 eager (two kernels), steps 2 and 3 replay one graph of three nodes, a memcpy, a CPU op to ignore."""
    events = [
        Event("aten::mm", "CPU", 1_000, 10, 0),
        Event("cudaLaunchKernel", "CPU", 1_100, 5, 1),
        Event("nvjet_tst_64x8_64x16_4x1_v_bz_TNT", "CUDA", 1_200, 50, 1),
        Event("cudaLaunchKernel", "CPU", 1_150, 5, 2),
        Event(RESHAPE, "CUDA", 1_260, 20, 2),
        Event("cudaMemcpyAsync", "CPU", 1_160, 5, 3),
        Event("Memcpy HtoD (Pinned -> Device)", "CUDA", 1_290, 4, 3),
    ]
    for launch, corr in ((2_100, 10), (3_100, 20)):  # steps 2 and 3
        events.append(Event("cudaGraphLaunch", "CPU", launch, 8, corr))
        for i, name in enumerate(("nvjet_tst_64x8_64x16_4x1_v_bz_TNT", RESHAPE, "mystery_kernel")):
            events.append(Event(name, "CUDA", launch + 100 + 30 * i, 25, corr))
    record = window_record(events, OFFSET)
    record.update(kind="kernels", pid=1, window=1, begin_ns=900, end_ns=4_000, cost_ns=3_000)
    return record


EVENTS = [
    {"kind": "call", "role": "plan", "pid": 1, "step": s, "mono_ns": m - 50, "dur_ns": 10, "values": {"batch_mode": b}}
    for s, m, b in ((1, 1_000, "EXTEND"), (2, 2_000, "DECODE"), (3, 3_000, "DECODE"))
] + [
    {"kind": "call", "role": "execute", "pid": 1, "tid": 5, "step": s, "mono_ns": m, "dur_ns": 400, "values": {}}
    for s, m in ((1, 1_000), (2, 2_000), (3, 3_000), (4, 5_000))
]


def join() -> KernelJoin:
    return KernelJoin(
        KernelNodes.of([KernelNode(NODE, SymbolKind.CUDA_KERNEL, "csrc/libtorch_stable/cache_kernels.cu", 315)])
    )


def test_a_window_keeps_gpu_activities_and_their_launches_on_the_monotonic_clock():
    record = window()
    names = record["names"]
    assert "aten::mm" not in names
    assert len(record["gpu"]) == 9 and len(record["launch"]) == 5
    first = record["gpu"][0]
    assert names[first[0]].startswith("nvjet") and first[3] == 1_200 and first[1] == 7


def test_kernels_go_to_the_step_that_launched_them_and_replays_to_their_graph():
    kernels = kernels_of(KernelRecords([window()], {}), EVENTS, join())
    by_step = {}
    for k in kernels:
        by_step.setdefault(k.step, []).append(k)
    assert sorted(by_step) == [1, 2, 3]
    assert [k.graph for k in by_step[1]] == ["", "", ""]
    assert {k.graph for k in by_step[2] + by_step[3]} == {"graph-1"}
    assert [k.node for k in by_step[3]] == [0, 1, 2]
    reshape = next(k for k in by_step[2] if k.name == RESHAPE)
    assert reshape.match.static_id == NODE and reshape.match.line == 315


def test_summary_shares_graphs_and_cost():
    records = KernelRecords([window()], {})
    got = summary(kernels_of(records, EVENTS, join()), records, EVENTS)
    assert got["kernels"] == 9 and got["steps_profiled"] == 3 and got["windows"] == 1
    # GPU time: 50+20+4 eager, (25 x 3) x 2 replays, of which the unknown kernel 25 x 2
    assert got["share"]["unknown"] == round(50 / 224, 4) and got["share"]["attributed"] == round(174 / 224, 4)
    assert got["unattributed"] == [{"name": "mystery_kernel", "gpu_us": 0.05}]
    assert got["graphs"] == {"graph-1": {"nodes": 3, "attributed_nodes": 2, "replays": 2}}
    assert set(got["share_by_step_kind"]) == {"EXTEND eager", "DECODE graph"}
    assert got["cost"]["read_us_per_profiled_step"] == 1.0
    assert got["cost"]["execute_us_median_in_windows"] == 0.4 and got["cost"]["execute_us_median_outside"] == 0.4


def test_perfetto_track_nests_kernels_under_their_step_and_links_the_execute_call():
    kernels = kernels_of(KernelRecords([window()], {}), EVENTS, join())
    spec = {"url": "https://github.com/vllm-project/vllm", "permalink_ref": "v0.26.0"}
    events = kernel_events(kernels, EVENTS, spec, origin_ns=0)
    steps = [e for e in events if e.get("cat") == "gpu step"]
    assert [e["name"] for e in steps] == ["step 1", "step 2", "step 3"] and all(e["tid"] == GPU_TID + 7 for e in steps)
    reshape = next(e for e in events if e.get("cat") == "kernel" and e["args"]["static_id"] == NODE)
    assert reshape["name"] == "reshape_and_cache_flash_kernel"
    assert reshape["args"]["source"].endswith("/blob/v0.26.0/csrc/libtorch_stable/cache_kernels.cu#L315")
    starts = [e for e in events if e["ph"] == "s"]
    ends = [e for e in events if e["ph"] == "f"]
    assert len(starts) == len(ends) == 3 and starts[0]["tid"] == 5 and ends[0]["tid"] == GPU_TID + 7
    assert reshape["args"]["step"] == 1 and steps[0]["ts"] <= reshape["ts"] <= steps[0]["ts"] + steps[0]["dur"]


def test_capture_waits_for_cuda_and_off_imports_nothing():
    capture = KernelCapture(shard=None, options={"every_s": 0, "window_s": 0.1})
    capture.tick()  # no torch in this process: nothing starts, nothing raises
    assert capture.profile is None and capture.errors == 0
    code = (
        "import sys, probes.kernels, probes.runtime; print(sorted(m for m in ('torch', 'triton') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_bundle_spec_points_at_the_trace_folder_and_switches_kernels(tmp_path):
    import json

    import pytest

    from atlas.errors import ConfigError
    from atlas.runtime.kernels.capture import OPTIONS, bundle_spec

    (tmp_path / "vllm.spec.json").write_text(json.dumps({"framework": "vllm", "out": "/elsewhere", "kernel_nodes": []}))
    on = bundle_spec(tmp_path, "vllm", tmp_path / "t", "cuda", {"kernels": True, "edges": False})
    assert on["out"] == str(tmp_path / "t") and on["kernels"] == OPTIONS and on["edges"] is False
    assert "kernels" not in bundle_spec(tmp_path, "vllm", tmp_path / "t", "cuda", {"kernels": False})
    with pytest.raises(ConfigError, match="gpu/pack_atlas.py"):
        bundle_spec(tmp_path, "sglang", tmp_path / "t", "cuda", {})


def test_kernels_need_the_gpu(capsys):
    from atlas.cli import main

    assert main(["trace", "--framework", "vllm", "--kernels"]) == 2
    assert "--device cuda" in capsys.readouterr().err


class _Shard:
    def __init__(self) -> None:
        self.records: list[dict] = []
        self.tick_callbacks: list = []

    def add(self, record: dict) -> None:
        self.records.append(record)


class _Profile:
    """torch.profiler.profile as KernelCapture.stop reads it."""

    def __init__(self, events: list[Event]) -> None:
        self.profiler = self
        self.kineto_results = self
        self._events = events

    def stop(self) -> None:
        pass

    def events(self) -> list[Event]:
        return self._events


def test_a_window_is_written_as_a_kernels_record_the_schema_describes():
    from probes.schema import KINDS, SCHEMA_VERSION

    shard = _Shard()
    capture = KernelCapture(shard, {})
    capture.profile = _Profile([Event("cudaLaunchKernel", "CPU", 1_100, 5, 1), Event(RESHAPE, "CUDA", 1_200, 50, 1)])
    capture.stop()
    (record,) = shard.records
    assert record["kind"] == "kernels" and record["v"] == SCHEMA_VERSION and record["window"] == 1
    assert set(KINDS["kernels"][0]) <= set(record) and record["names"] == ["cudaLaunchKernel", RESHAPE]
    assert capture.stats()["kernel_windows"] == 1


def test_the_cli_reads_the_kernel_summary_from_the_typed_report():
    from atlas.cli.trace import report_lines
    from atlas.runtime.report import read_report

    records = KernelRecords([window()], {})
    got = summary(kernels_of(records, EVENTS, join()), records, EVENTS)
    r = read_report({"framework": "vllm", "kernels": got})
    assert r.kernels is not None and r.kernels.share.attributed == round(174 / 224, 4) and r.kernels.num_graphs == 1
    assert r.kernels.share_by_step_kind["DECODE graph"].unknown is not None
    lines = report_lines(r)
    assert any(line.startswith("  kernels: 9 in 1 windows over 3 steps") for line in lines)
    assert "    unattributed: mystery_kernel (0.05 us GPU)" in lines
    assert read_report({"framework": "vllm"}).kernels is None
