"""Turn what H200 calls brought back ($OUT/run.tar.xz of gpu/run_on_device.sh, one or more) into committed results:
results/experiments/SCENARIO.json per scenario (atlas.runtime.experiments), and for the jobs that replayed issue
7's overhead phases results/gpu-FRAMEWORK-summary.json and a small Perfetto excerpt (a few steps of each phase).
Jobs that recorded call edges (prepare.py --edges) feed no figure (the recording slows every engine process): their
edges, all jobs of a framework merged, go to results/edges/FRAMEWORK-h200-REF.edges.json, for `atlas graph verify`.
usage: python gpu/collect.py [--command TEXT] TARBALL [TARBALL ...]"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import tarfile
from pathlib import Path

from atlas.env import settings as load_settings
from atlas.runtime import collect, recording
from atlas.runtime.experiments import results as rs
from atlas.runtime.experiments import scenarios as sc
from atlas.runtime.merge import merge
from atlas.yamlio import load as load_yaml

ROOT = Path(__file__).resolve().parents[1]
BACK = ROOT / ".carry_run" / "_back"


def excerpt(trace: dict, max_ms: float = 15.0) -> dict:
    """The first `max_ms` of the trace after the first probes-on round of each overhead phase begins."""
    events = trace["traceEvents"]
    starts = [
        e["ts"]
        for e in events
        if e.get("ph") == "i"
        and e["name"] == "round_begin"
        and e["args"].get("probes") == "on"
        and e["args"].get("phase") in ("c16", "c1")
    ]
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


def job_run(folder: Path) -> rs.JobRun:
    config = json.loads((folder / "engine.config.json").read_text())
    spec = json.loads((folder / "spec.json").read_text())
    framework, variant = config["job"].split("-", 1)
    job = sc.Job(framework, variant, config["engine"], (), tuple(config.get("scenarios", ())))
    driver = json.loads((folder / "result.json").read_text()) if (folder / "result.json").exists() else None
    merged = merge(folder / "shards")
    log = (folder / "engine.log").read_text(errors="replace") if (folder / "engine.log").exists() else ""
    return rs.JobRun(job, driver, merged.events, merged.marks, spec, log)


def overhead(folder: Path, framework: str) -> None:
    """Issue 7's figures from a graph job: the summary (throughput per probe state) and a trace excerpt."""
    spec = json.loads((folder / "spec.json").read_text())
    driver = json.loads((folder / "result.json").read_text())
    summary = collect(folder, spec, driver, load_settings())
    summary["driver"] = {k: driver[k] for k in ("version", "import_s", "init_s")}
    results = ROOT / "results"
    (results / f"gpu-{framework}-summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True))
    trace = json.loads((folder / "trace.json").read_text())
    (results / f"gpu-{framework}-trace-excerpt.json").write_text(json.dumps(excerpt(trace)))
    print(framework, json.dumps({k: summary["throughput"]["phases"].get(k) for k in ("c16", "c1")}))


def edges(folders: list[Path]) -> None:
    """One recording per framework from the edge files of all its jobs (engine processes of one pin)."""
    by_framework: dict[str, list[Path]] = {}
    for folder in folders:
        by_framework.setdefault(json.loads((folder / "spec.json").read_text())["framework"], []).append(folder)
    for framework, jobs in by_framework.items():
        spec = json.loads((jobs[0] / "spec.json").read_text())
        merged = BACK / f"edges-{framework}"
        (merged / "edges").mkdir(parents=True)
        for job in jobs:
            for file in sorted((job / "edges").glob("*.json")):
                shutil.copy(file, merged / "edges" / f"{job.name}-{file.name}")
        doc = recording.collect(merged, spec)
        if doc is None:
            print(f"{framework}: no edges recorded")
            continue
        target = ROOT / "results" / "edges" / f"{framework}-h200-{spec['ref']}.edges.json"
        shutil.copy(merged / "edges.json", target)
        print(
            f"{framework}: {len(doc['edges'])} edges from {doc['num_processes']} processes of {len(jobs)} jobs -> "
            f"{target.relative_to(ROOT)}"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("tarballs", nargs="+", type=Path)
    ap.add_argument(
        "--command",
        default="python gpu/prepare.py ...; BUDGET=540 bash gpu/run_on_device.sh; python gpu/collect.py run.tar.xz",
    )
    a = ap.parse_args()
    shutil.rmtree(BACK, ignore_errors=True)
    folders, overhead_only = {}, []  # job name -> trace folder; a later tarball wins (a warm machine keeps earlier
    recorded: dict[str, Path] = {}  # calls' folders); a job with no scenario only measured probe overhead
    for i, tarball in enumerate(a.tarballs):
        with tarfile.open(tarball) as tar:
            tar.extractall(BACK / str(i))
        for folder in sorted((BACK / str(i) / "trace").iterdir()):
            if (folder / "spec.json").exists() and json.loads((folder / "spec.json").read_text()).get("edges"):
                recorded[folder.name] = folder
            elif (folder / "engine.config.json").exists():
                if json.loads((folder / "engine.config.json").read_text()).get("scenarios"):
                    folders[folder.name] = folder
                else:
                    overhead_only.append(folder)
    edges(list(recorded.values()))
    runs = []
    for folder in folders.values():
        runs.append(job_run(folder))
    for folder in [*folders.values(), *overhead_only]:  # the last overhead run of a framework writes its summary
        config = json.loads((folder / "engine.config.json").read_text())
        if any(p["name"] == "c16" for p in config["phases"]) and (folder / "result.json").exists():
            overhead(folder, config["job"].split("-", 1)[0])
    context = {
        "command": a.command,
        "date": datetime.date.today().isoformat(),
        "gpu": "NVIDIA H200 (141 GB)",
        "model": "Qwen3-0.6B architecture (atlas/data/models/qwen3-0.6b), random weights, token ids in/out",
    }
    served = {name for r in runs for name in r.job.scenarios}
    folder = ROOT / "results" / "experiments"
    notes = load_yaml(folder / "notes.yaml") if (folder / "notes.yaml").exists() else {}
    for name in sc.SCENARIOS:
        if name in served:
            result = rs.scenario_results(name, runs, context)
            result["notes"] += [" ".join(n.split()) for n in (notes.get("_all") or []) + (notes.get(name) or [])]
            path = rs.write(result, folder)
            print(f"{name}: {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
