"""Prepare the H200 runs here (where the pinned trees and atlas live): per engine a trace folder skeleton under
.carry_run/ with the probe spec (default pins, device cuda, built-in hooks), the boot folder (probes, drivers,
entry points) and the driver config: overhead phases at concurrency 16 and 1 (probes off/on in ABBA order, 4 pairs)
and two mechanism phases (shared prefix, long prefill into a stream). usage: python gpu/prepare.py [--pairs 4] [--gpu-every 16]"""

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


def phases(pairs: int, vocab: int) -> list[dict]:
    overhead = ("off", "on", "on", "off") * (pairs // 2) + ("off", "on") * (pairs % 2)  # ABBA: cancels drift
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
    ap.add_argument("--pairs", type=int, default=4)
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
                          extra={"gpu_sample_every": a.gpu_every})
        write_spec(spec, out / "spec.json")
        launch.make_boot(out)
        config = {"model": "", "engine": ENGINE_DEFAULTS[(framework, "cuda")], "phases": phases(a.pairs, vocab),
                  "warmup": True, "switch_wait_s": 1.2}
        (out / "engine.config.json").write_text(json.dumps(config))
        print(f"{framework}: {spec['ref']} {spec['commit'][:12]}, {len(spec['hooks'])} hooks -> {out}")


if __name__ == "__main__":
    main()
