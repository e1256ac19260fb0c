"""Prepare the H200 runs here (where the pinned trees and atlas live): per engine a trace folder skeleton under
.carry_run/ with the probe spec (default pins, device cuda, built-in hooks), the boot folder (probes, drivers,
entry points) and the driver config: overhead phases at concurrency 16 and 1 (probes absent / on / off, each state
`--reps` times in a balanced order: absent,on,off,off,on,absent,...) and two mechanism phases (shared prefix, long
prefill into a stream). Both engines start side by side on the device and measure one after the other (`turn`).
usage: python gpu/prepare.py [--reps 4] [--gpu-every 16]"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from atlas.env import settings as load_settings
from atlas.runtime import launch, workloads
from atlas.runtime.spec import build_spec, write_spec
from atlas.runtime.trace import DEFAULT_MODEL, ENGINE_DEFAULTS

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / ".carry_run"


ORDER = ("vllm", "sglang")  # who measures first once both engines are up
# Engine arguments on top of atlas.runtime.trace.ENGINE_DEFAULTS: CUDA graphs for batch sizes up to 32 only (the
# workloads keep at most 16 in flight; fewer captures start faster), and GPU memory shared by two engines.
DEVICE_ARGS = {"vllm": {"gpu_memory_utilization": 0.3, "max_num_seqs": 32,
                        "compilation_config": {"cudagraph_capture_sizes": [1, 2, 4, 8, 16, 24, 32]}},
               "sglang": {"mem_fraction_static": 0.5, "cuda_graph_max_bs_decode": 32}}


def balanced(reps: int) -> list[str]:
    """Each of absent/on/off `reps` times, every state equally often early and late (cancels drift)."""
    block = ("absent", "on", "off", "off", "on", "absent")
    return list((block * reps)[:3 * reps])


def phases(reps: int, vocab: int) -> list[dict]:
    overhead = balanced(reps)
    c16 = workloads.requests(n=64, input_len=256, output_len=128, concurrency=16, vocab=vocab)
    c1 = workloads.requests(n=4, input_len=256, output_len=128, concurrency=1, vocab=vocab, seed=1)
    return [{"name": "c16", "workload": c16.to_json(), "rounds": list(overhead)},
            {"name": "c1", "workload": c1.to_json(), "rounds": list(overhead)},
            {"name": "prefix", "workload": workloads.shared_prefix(prefix_len=512, suffix_len=32, output_len=16,
                                                                    vocab=vocab, seed=2).to_json(), "rounds": ["on"]},
            {"name": "longprefill", "workload": workloads.long_prefill(n=8, input_len=64, output_len=128,
                                                                        long_len=3000, delay_s=0.15, vocab=vocab,
                                                                        seed=3).to_json(), "rounds": ["on"]}]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=4, help="rounds per probe state in each overhead phase")
    ap.add_argument("--gpu-every", type=int, default=16, help="CUDA-event timing on every Nth execute call")
    a = ap.parse_args()
    settings = load_settings()
    shutil.rmtree(RUN, ignore_errors=True)
    model = RUN / "models" / "qwen3-0.6b"
    model.mkdir(parents=True)
    shutil.copy(DEFAULT_MODEL["cuda"] / "config.json", model / "config.json")
    vocab = json.loads((model / "config.json").read_text())["vocab_size"]
    for framework in ("vllm", "sglang"):
        out = launch.prepare_out(RUN / framework)
        spec = build_spec(framework, "default", "cuda", out, settings, source="builtin",
                          extra={"gpu_sample_every": a.gpu_every, "flush_interval_s": 0.3})
        write_spec(spec, out / "spec.json")
        launch.make_boot(out)
        config = {"model": "", "engine": {**ENGINE_DEFAULTS[(framework, "cuda")], **DEVICE_ARGS[framework]},
                  "phases": phases(a.reps, vocab), "warmup": True, "switch_wait_s": 0.8,
                  "turn": {"dir": "", "order": list(ORDER), "name": framework, "max_wait_s": 420}}
        (out / "engine.config.json").write_text(json.dumps(config))
        print(f"{framework}: {spec['ref']} {spec['commit'][:12]}, {len(spec['hooks'])} hooks -> {out}")


if __name__ == "__main__":
    main()
