"""Turn what an H200 run brought back ($OUT/ENGINE.tar.xz, see run_on_device.sh) into a trace folder beside the
prepared spec, merge it (atlas.runtime.collect) and commit-ready results: results/gpu-ENGINE-summary.json and a
small Perfetto excerpt (a few steps of each phase). usage: python gpu/collect.py ENGINE TARBALL"""

from __future__ import annotations

import json
import shutil
import sys
import tarfile
from pathlib import Path

from atlas.env import settings as load_settings
from atlas.runtime import collect

ROOT = Path(__file__).resolve().parents[1]


def excerpt(trace: dict, max_ms: float = 15.0) -> dict:
    """The first `max_ms` of the trace after the first probes-on round of each phase begins."""
    events = trace["traceEvents"]
    starts = [e["ts"] for e in events if e.get("ph") == "i" and e["name"] == "round_begin"
              and e["args"].get("probes") == "on"]
    windows = [(t, t + max_ms * 1000) for t in starts]
    keep = [dict(e) for e in events if e["ph"] == "M" or any(a <= e.get("ts", -1) <= b for a, b in windows)]
    phases: dict = {}
    for e in keep:
        if e["ph"] in "stf":
            phases.setdefault(e["id"], []).append(e["ph"])
    whole = {i for i, p in phases.items() if p[0] == "s" and p[-1] == "f"}  # request flows cut by the window go
    keep = [e for e in keep if e["ph"] not in "stf" or e["id"] in whole]
    chains: dict = {}
    for e in keep:
        if "bind_id" in e:
            chains.setdefault(e["bind_id"], []).append(e)
    for chain in chains.values():  # a step cut by the window starts and ends where the window does
        chain[0]["flow_in"], chain[-1]["flow_out"] = False, False
    return {**trace, "traceEvents": keep}


def main() -> None:
    framework, tarball = sys.argv[1], Path(sys.argv[2])
    folder = ROOT / ".carry_run" / framework
    with tarfile.open(tarball) as tar:
        tar.extractall(folder.parent / "_back")
    back = folder.parent / "_back" / f"trace_{framework}"
    shutil.rmtree(folder / "shards", ignore_errors=True)
    shutil.copytree(back / "shards", folder / "shards")
    for name in ("result.json", "engine.log"):
        if (back / name).exists():
            shutil.copy(back / name, folder / name)
    spec = json.loads((folder / "spec.json").read_text())
    driver = json.loads((folder / "result.json").read_text()) if (folder / "result.json").exists() else None
    summary = collect(folder, spec, driver, load_settings())
    summary["driver"] = {k: driver[k] for k in ("version", "import_s", "init_s")} if driver else None
    results = ROOT / "results"
    results.mkdir(exist_ok=True)
    (results / f"gpu-{framework}-summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True))
    trace = json.loads((folder / "trace.json").read_text())
    (results / f"gpu-{framework}-trace-excerpt.json").write_text(json.dumps(excerpt(trace)))
    print(json.dumps({k: summary[k] for k in ("steps_by_batch_mode", "cuda_graph", "num_events", "num_dropped",
                                              "capture_errors", "prefix_hit_tokens", "preempted", "retracted")}))
    print(json.dumps(summary["throughput"]["phases"], indent=1))


if __name__ == "__main__":
    main()
