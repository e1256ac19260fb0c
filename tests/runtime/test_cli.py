"""`atlas trace` errors that must come before any engine starts: one line, exit 2, saying what to do."""

from __future__ import annotations

import time

import pytest

from atlas.cli import main


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--out", "{blocker}/trace"], "is not writable"),
        (["--python", "/nonexistent/python"], "pass --python or set ATLAS_ENGINE_PYTHON"),
        (["--model", "{tmp}"], "has no config.json"),
        (["--rounds", "on,maybe"], "round 'maybe' is not a probe state; give on/off/absent"),
        (["--rounds", "absent;on gpu=2"], "round 'on gpu=2' is not a probe state"),
        (["--rounds", "absent;on colour=red"], "round 'on colour=red' is not a probe state"),
        (["--device", "cpu", "--framework", "sglang"], "no engine recipe for sglang on cpu"),
        (["--tp", "0"], "give the tensor-parallel size, 1 or more"),
        (["--gpu-every", "-1"], "give N >= 1 (time every Nth execute call)"),
    ],
)
def test_bad_input_fails_fast_with_one_line(tmp_path, capsys, argv, says):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    argv = [a.format(blocker=blocker, tmp=tmp_path) for a in argv]
    base = ["trace", "--framework", "vllm", "--out", str(tmp_path / "out")]
    start = time.monotonic()
    assert main(base + argv) == 2
    assert time.monotonic() - start < 10  # no engine was started
    err = capsys.readouterr().err.strip()
    assert err.startswith("atlas: error:") and says in err and "\n" not in err
    assert not (tmp_path / "out" / "engine.log").exists()


def test_the_report_sets_the_probe_cost_beside_the_rounds(capsys, tmp_path):
    from types import SimpleNamespace

    from atlas.cli.trace import report

    summary = {
        "framework": "vllm",
        "ref": "v0.26.0",
        "commit": "b3a370f04a60" * 3,
        "hook_source": "builtin",
        "num_events": 10,
        "num_dropped": 0,
        "capture_errors": {},
        "steps_by_batch_mode": {"DECODE": 5},
        "cuda_graph": {},
        "preempted": [],
        "retracted": [],
        "prefix_hit_tokens": 0,
        "ttft_ms_median": 1.0,
        "hooks": {},
        "throughput": {"rounds": [{"round": 0, "probes": "absent", "out_tok_s": 100.0}]},
        "cost": {
            "c16": {
                "absent": {
                    "tok_s": 100.0,
                    "cpu_ms_s": 990.0,
                    "engine_run_ms_s": 960.0,
                    "engine_wait_ms_s": 0.0,
                    "flusher_ms_s": 2.0,
                    "gc_ms_s": 0.5,
                    "gc2_s": 0.1,
                }
            }
        },
        "duty": {
            "c16-ab: on duty=100": {
                "median": 0.97,
                "ci95": [0.95, 0.99],
                "pooled": 0.96,
                "pairs": 40,
                "window_ms": 250.0,
            }
        },
    }
    assert report(summary, SimpleNamespace(format="text", out=tmp_path)) == 0
    out = capsys.readouterr().out
    assert (
        "cost c16 absent  : 100.0 tok/s, process CPU 990.0 ms/s, engine thread 960.0 ms/s on a CPU + 0.0 waiting" in out
    )
    assert (
        "duty-cycled c16-ab: on duty=100: on/off 0.97 (95% 0.95-0.99, pooled 0.96, 40 pairs of 250.0 ms windows)" in out
    )


@pytest.mark.parametrize(
    "text, rounds",
    [
        ("absent,on,off", ("absent", "on", "off")),
        (
            "absent;on duty=100 pack=1;off skip=Scheduler.schedule,BlockPool.get_new_blocks wake=0",
            ("absent", "on duty=100 pack=1", "off skip=Scheduler.schedule,BlockPool.get_new_blocks wake=0"),
        ),
        ("on gpu=0 write=0", ("on gpu=0 write=0",)),
    ],
)
def test_rounds_take_every_option_the_probes_read(text, rounds):
    from atlas.cli.trace import parse_rounds

    assert parse_rounds(text) == rounds


@pytest.mark.parametrize(
    "text, problems",
    [
        ("on", []),
        ("sideways", ["sideways"]),
        ("on duty=often", ["duty=often"]),
        ("on pack", ["pack"]),
        ("off gpu=2 skip=A,B", ["gpu=2"]),
        ("", ["(no state)"]),
    ],
)
def test_control_problems_name_what_the_probe_would_ignore(text, problems):
    from probes.control import control_problems

    assert control_problems(text) == problems
