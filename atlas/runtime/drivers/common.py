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
    if os.environ.get("ATLAS_TURN_DIR") and config.get("turn"):
        config["turn"]["dir"] = os.environ["ATLAS_TURN_DIR"]
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
    return config.get("phases") or [
        {"name": config["workload"]["name"], "workload": config["workload"], "rounds": config.get("rounds") or ["on"]}
    ]


def wait_turn(config: dict) -> None:
    """Engines started side by side (their slow starts overlap) measure one at a time: with `turn` = {"dir": folder,
    "order": [names], "name": this one}, wait until every engine is ready (or has failed) and those before this
    one are done (a `failed-NAME` file, written by whoever started it, counts as done)."""
    turn = config.get("turn")
    if not turn:
        return
    folder, order, name = turn["dir"], turn["order"], turn["name"]
    _touch(os.path.join(folder, f"ready-{name}"))
    deadline = time.monotonic() + turn.get("max_wait_s", 400)

    def has(kind, other):
        return os.path.exists(os.path.join(folder, f"{kind}-{other}"))

    while time.monotonic() < deadline:  # pipelined: engines after this one may still be starting
        everyone_ready = turn.get("pipeline") or all(has("ready", o) or has("failed", o) for o in order)
        before_done = all(has("done", o) or has("failed", o) for o in order[: order.index(name)])
        if everyone_ready and before_done:
            break
        time.sleep(0.2)
    print(f"[driver] {name}: my turn", file=sys.stderr, flush=True)


def wait_build(config: dict) -> None:
    """With `turn.build_after` = NAME: construct the engine only once NAME's engine is built (or failed), so that
    two engines never profile GPU memory at the same time. The imports before it overlap freely."""
    turn = config.get("turn") or {}
    other = turn.get("build_after")
    if not other:
        return
    deadline = time.monotonic() + turn.get("max_wait_s", 400)
    while time.monotonic() < deadline and not any(
        os.path.exists(os.path.join(turn["dir"], f"{kind}-{other}")) for kind in ("inited", "failed", "done")
    ):
        time.sleep(0.2)


def salted(prompt: list, salt: int) -> list:
    """The prompt with its first token made unique to one replay: a fresh prefix, no cache hit across replays."""
    return [100 + salt] + list(prompt[1:]) if prompt else prompt


def announce(config: dict, what: str) -> None:
    """A `WHAT-NAME` file in the turn folder (e.g. 'inited' once the engine is built: the next may start)."""
    turn = config.get("turn")
    if turn:
        _touch(os.path.join(turn["dir"], f"{what}-{turn['name']}"))


def end_turn(config: dict) -> None:
    turn = config.get("turn")
    if turn:
        _touch(os.path.join(turn["dir"], f"done-{turn['name']}"))


def _touch(path: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(str(time.time()))


def run_rounds(config: dict, run_once, snapshot=None) -> list[dict]:
    """Replay each phase's workload once per round (probes on, off or absent as the round says), after an untimed
    warm-up with probes off; `run_once(prefix, workload, salt)` returns (output tokens, seconds, per-request
    timings). `snapshot()` (optional) returns the engine's counters, stored before and after each round.
    A phase that raises is recorded with its error and the next phase runs (one broken scenario costs only itself).
    The first warm-up runs before this engine's turn (wait_turn), so that one-time compiles overlap the other's."""
    rounds, salt = [], 0
    for index, phase in enumerate(phases(config)):
        try:
            if config.get("warmup", True) and phase.get("warmup", True):
                switch(config, "off")
                salt += 1
                run_once(f"{phase['name']}-warmup-", phase["workload"], salt)
        except Exception as exc:  # noqa: BLE001 - the run goes on without this phase
            rounds.append(_failed(phase, -1, exc))
            if index == 0:
                wait_turn(config)
            continue
        if index == 0:
            wait_turn(config)
        for index, state in enumerate(phase["rounds"]):
            switch(config, state)
            salt += 1
            before = snapshot() if snapshot else None
            mark("round_begin", phase=phase["name"], round=index, probes=state)
            begin_ns = time.monotonic_ns()  # the clock the probes stamp events with: request times map onto them
            try:
                tokens, seconds, timings = run_once(f"{phase['name']}-r{index}-", phase["workload"], salt)
            except Exception as exc:  # noqa: BLE001
                rounds.append(_failed(phase, index, exc))
                break
            mark("round_end", phase=phase["name"], round=index, probes=state, out_tokens=tokens, seconds=seconds)
            row = {
                "phase": phase["name"],
                "round": index,
                "probes": state,
                "begin_ns": begin_ns,
                "out_tokens": tokens,
                "seconds": round(seconds, 4),
                "out_tok_s": round(tokens / seconds, 2) if seconds else 0.0,
                "requests": timings,
            }
            if snapshot:
                row["counters"] = {"before": before, "after": snapshot()}
            rounds.append(row)
            print(
                f"[driver] {phase['name']} round {index} probes={state}: {tokens} tokens in {seconds:.3f} s",
                file=sys.stderr,
                flush=True,
            )
    switch(config, "on")
    end_turn(config)
    return rounds


def _failed(phase: dict, index: int, exc: Exception) -> dict:
    import traceback

    print(f"[driver] {phase['name']} round {index} FAILED: {exc!r}", file=sys.stderr, flush=True)
    traceback.print_exc()
    return {"phase": phase["name"], "round": index, "probes": "", "error": f"{type(exc).__name__}: {exc}"[:500]}


def write_result(config: dict, result: dict) -> None:
    path = config["result"]
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    os.replace(tmp, path)
