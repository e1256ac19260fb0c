"""Shared by the engine drivers (standard library only): config, the probes on/off switch, rounds, result."""

import json
import os
import sys
import time


def load_config() -> dict:
    with open(sys.argv[1], encoding="utf-8") as f:
        return json.load(f)


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


def run_rounds(config: dict, run_once) -> list[dict]:
    """Replay the workload once per round (probes on or off as the round says); `run_once(prefix)` returns
    (output tokens, seconds, per-request timings)."""
    rounds = []
    for index, state in enumerate(config.get("rounds") or ["on"]):
        switch(config, state)
        mark("round_begin", round=index, probes=state)
        tokens, seconds, timings = run_once(f"r{index}-")
        mark("round_end", round=index, probes=state, out_tokens=tokens, seconds=seconds)
        rounds.append({"round": index, "probes": state, "out_tokens": tokens, "seconds": round(seconds, 4),
                       "out_tok_s": round(tokens / seconds, 2) if seconds else 0.0, "requests": timings})
        print(f"[driver] round {index} probes={state}: {tokens} tokens in {seconds:.3f} s", file=sys.stderr,
              flush=True)
    return rounds


def write_result(config: dict, result: dict) -> None:
    path = config["result"]
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    os.replace(tmp, path)
