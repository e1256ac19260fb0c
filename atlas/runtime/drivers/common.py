"""Shared by the engine drivers (standard library only): config, the probes on/off switch, rounds, result."""

import json
import os
import sys
import time


def load_config() -> dict:
    """The config file named on the command line; ATLAS_TRACE_DIR and ATLAS_MODEL (set where the config was
    written on another machine) relocate the control file, the result and the model."""
    with open(sys.argv[1], encoding="utf-8") as f:
        config = json.load(f)
    folder = os.environ.get("ATLAS_TRACE_DIR")
    if folder:
        config["control"] = os.path.join(folder, "control")
        config["result"] = os.path.join(folder, "result.json")
    if os.environ.get("ATLAS_MODEL"):
        config["model"] = os.environ["ATLAS_MODEL"]
    return config


def switch(config: dict, state: str) -> None:
    """Turn probes on/off in every engine process: they poll the control file at each flush."""
    control = config.get("control")
    if not control:
        return
    with open(control, "w", encoding="utf-8") as f:
        f.write(state)
    time.sleep(config.get("switch_wait_s", 1.2))


def mark(name: str, **values) -> None:
    try:
        from probes.runtime import mark as probe_mark
    except ImportError:
        return
    probe_mark(name, **values)


def phases(config: dict) -> list[dict]:
    """What to replay: `phases` (each a named workload with its rounds), else the one workload and its rounds."""
    return config.get("phases") or [{"name": config["workload"]["name"], "workload": config["workload"],
                                     "rounds": config.get("rounds") or ["on"]}]


def run_rounds(config: dict, run_once) -> list[dict]:
    """Replay each phase's workload once per round (probes on or off as the round says), after an untimed warm-up
    with probes off; `run_once(prefix, workload)` returns (output tokens, seconds, per-request timings)."""
    rounds = []
    for phase in phases(config):
        if config.get("warmup", True):
            switch(config, "off")
            run_once(f"{phase['name']}-warmup-", phase["workload"])
        for index, state in enumerate(phase["rounds"]):
            switch(config, state)
            mark("round_begin", phase=phase["name"], round=index, probes=state)
            tokens, seconds, timings = run_once(f"{phase['name']}-r{index}-", phase["workload"])
            mark("round_end", phase=phase["name"], round=index, probes=state, out_tokens=tokens, seconds=seconds)
            rounds.append({"phase": phase["name"], "round": index, "probes": state, "out_tokens": tokens,
                           "seconds": round(seconds, 4), "out_tok_s": round(tokens / seconds, 2) if seconds else 0.0,
                           "requests": timings})
            print(f"[driver] {phase['name']} round {index} probes={state}: {tokens} tokens in {seconds:.3f} s",
                  file=sys.stderr, flush=True)
    switch(config, "on")
    return rounds


def write_result(config: dict, result: dict) -> None:
    path = config["result"]
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    os.replace(tmp, path)
