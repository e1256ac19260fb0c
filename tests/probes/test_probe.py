"""The probe in a fresh interpreter against a stand-in engine: events map to definition and call site, the version
guard, a capture that raises, flushes on SIGTERM and after SIGKILL."""

from __future__ import annotations

import signal
import time

import pytest

from tests.probes.fakeengine import RUN, SCHED, make_engine, records, run, spec


def _calls(rows):
    return [r for r in rows if r["kind"] == "call"]


def test_events_map_to_definition_and_call_site(tmp_path):
    blobs = make_engine(tmp_path)
    done = run(tmp_path, spec(tmp_path, tmp_path / "out", blobs), "from fakeengine.run import drive\ndrive(3)\n")
    assert done.returncode == 0, done.stderr
    rows = records(tmp_path / "out")
    (proc,) = [r for r in rows if r["kind"] == "process"]
    assert proc["version_at_pin"] is True and proc["engine_version"] == "1.2.3+local"
    calls = _calls(rows)
    assert [c["step"] for c in calls] == [0, 0, 0]
    def_line = SCHED.splitlines().index("    def schedule(self, n):") + 1
    call_line = RUN.splitlines().index("        out.append(s.schedule(i))") + 1
    for c in calls:
        assert (c["path"], c["line"], c["run_line"], c["at_pin"]) == ("fakeengine/sched.py", def_line, def_line, True)
        assert (c["call_path"], c["call_line"], c["call_at_pin"]) == ("fakeengine/run.py", call_line, True)
        assert c["dur_ns"] >= 0 and c["ts_ns"] > 0 and c["tid"] > 0
    stats = [r for r in rows if r["kind"] == "stats"][-1]
    hook = stats["hooks"]["fakeengine.sched.Scheduler.schedule"]
    assert hook.pop("own_ns") > 0  # the wrapper's own time over the 3 calls
    assert hook == {
        "installed": True,
        "calls": 3,
        "at_pin": True,
        "run_path": "fakeengine/sched.py",
        "run_line": def_line,
    }


@pytest.mark.parametrize(
    "change, version, at_pin, version_at_pin",
    [
        ("none", "1.2.3", True, True),
        ("file", "1.2.3", False, True),
        ("version", "1.3.0", True, False),
    ],
)
def test_version_guard_marks_not_at_pin(tmp_path, change, version, at_pin, version_at_pin):
    blobs = make_engine(tmp_path)
    if change == "file":
        blobs["fakeengine/sched.py"] = "0" * 40
    s = dict(spec(tmp_path, tmp_path / "out", blobs), engine_version=version)
    done = run(tmp_path, s, "from fakeengine.run import drive\ndrive(1)\n")
    assert done.returncode == 0, done.stderr
    rows = records(tmp_path / "out")
    (call,) = _calls(rows)
    assert call["symbol"] == "fakeengine.sched.Scheduler.schedule" and call["at_pin"] is at_pin
    assert [r for r in rows if r["kind"] == "process"][0]["version_at_pin"] is version_at_pin


def test_capture_that_raises_disables_only_that_hook(tmp_path):
    blobs = make_engine(tmp_path)
    body = "from fakeengine.run import drive\nassert drive(4) == [[], [0], [0, 1], [0, 1, 2]]\nprint('engine ok')\n"
    done = run(tmp_path, spec(tmp_path, tmp_path / "out", blobs, captures=["fail"]), body)
    assert done.returncode == 0 and "engine ok" in done.stdout, done.stderr
    rows = records(tmp_path / "out")
    assert _calls(rows) == []
    stats = [r for r in rows if r["kind"] == "stats"][-1]
    assert stats["capture_errors"] == {"fakeengine.sched.Scheduler.schedule": 1}
    assert stats["disabled_hooks"] == ["fakeengine.sched.Scheduler.schedule"]
    assert "fault injection" in stats["hooks"]["fakeengine.sched.Scheduler.schedule"]["error"]


def test_skip_none_and_step_hooks(tmp_path):
    blobs = make_engine(tmp_path)
    s = spec(tmp_path, tmp_path / "out", blobs, step=True)
    s["hooks"].append(
        {
            **s["hooks"][0],
            "symbol": "fakeengine.sched.Scheduler.idle",
            "qualname": "Scheduler.idle",
            "skip_none": True,
            "step": False,
        }
    )
    done = run(
        tmp_path,
        s,
        "from fakeengine.sched import Scheduler\nx = Scheduler()\nfor i in range(3):\n    x.idle(); x.schedule(i)\n",
    )
    assert done.returncode == 0, done.stderr
    calls = _calls(records(tmp_path / "out"))
    assert [(c["symbol"].rsplit(".", 1)[1], c["step"]) for c in calls] == [
        ("schedule", 1),
        ("schedule", 2),
        ("schedule", 3),
    ]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_killed_process_leaves_flushed_events(tmp_path, sig):
    blobs = make_engine(tmp_path)
    body = "import sys, time\nfrom fakeengine.run import drive\ndrive(5)\nprint('ready', flush=True)\ntime.sleep(60)\n"
    proc = run(tmp_path, spec(tmp_path, tmp_path / "out", blobs), body, wait=False)
    assert proc.stdout.readline().strip() == "ready"
    if sig == signal.SIGKILL:
        time.sleep(0.5)  # the flusher runs every 0.1 s; SIGKILL leaves what it flushed
    proc.send_signal(sig)
    proc.wait(timeout=30)
    assert len(_calls(records(tmp_path / "out"))) == 5


def test_a_forked_child_is_its_own_process(tmp_path):
    blobs = make_engine(tmp_path)
    body = (
        "import os, sys\nfrom fakeengine.run import drive\ndrive(1)\npid = os.fork()\n"
        "if pid == 0:\n    drive(2)\n    sys.exit(0)\nos.waitpid(pid, 0)\nprint(pid)\n"
    )
    done = run(tmp_path, spec(tmp_path, tmp_path / "out", blobs), body)
    assert done.returncode == 0, done.stderr
    child = int(done.stdout.split()[-1])
    rows = records(tmp_path / "out")
    parent = [r for r in rows if r["kind"] == "process" and r["pid"] != child]
    assert len(parent) == 1 and [r["pid"] for r in rows if r["kind"] == "process"].count(child) == 1
    assert sorted(r["pid"] == child for r in _calls(rows)) == [False, True, True]  # 1 call before fork, 2 after


def test_absent_state_removes_the_wrappers_and_on_puts_them_back(tmp_path):
    blobs = make_engine(tmp_path)
    body = """
from probes import runtime
from fakeengine.sched import Scheduler
original = Scheduler.__dict__["schedule"].__wrapped__
p = runtime._PROBE
s = Scheduler()
s.schedule(1)                                   # on: recorded
p.set_state("absent")
assert Scheduler.__dict__["schedule"] is original, "absent: the engine's own function is back"
s.schedule(2)
p.set_state("off")
assert Scheduler.__dict__["schedule"] is not original
s.schedule(3)                                   # off: wrapper passing through
p.set_state("on")
s.schedule(4)
print("calls", p.hooks[0].num_calls, "stale", p.hooks[0].num_stale_calls)
"""
    done = run(tmp_path, spec(tmp_path, tmp_path / "out", blobs, captures=["batch_size"]), body)
    assert done.returncode == 0, done.stderr
    assert "calls 2 stale 0" in done.stdout
    calls = _calls(records(tmp_path / "out"))
    assert [c["seq"] for c in calls] == [1, 2] and all(c["call_line"] > 0 for c in calls)


def test_a_kept_reference_to_a_detached_wrapper_is_counted(tmp_path):
    blobs = make_engine(tmp_path)
    body = """
from probes import runtime
from fakeengine.sched import Scheduler
kept = Scheduler().schedule                     # a bound method taken while the wrapper is on
runtime._PROBE.set_state("absent")
kept(1); kept(2)
print("stale", runtime._PROBE.hooks[0].num_stale_calls)
"""
    done = run(tmp_path, spec(tmp_path, tmp_path / "out", blobs), body)
    assert done.returncode == 0, done.stderr
    assert "stale 2" in done.stdout


@pytest.mark.parametrize(
    "text, expected",
    [
        ("on", ("on", frozenset(), True, True, False, True, 0)),
        ("absent\n", ("absent", frozenset(), True, True, False, True, 0)),
        (
            "on skip=Scheduler.schedule,KVCacheManager.free gpu=0",
            ("on", frozenset({"Scheduler.schedule", "KVCacheManager.free"}), False, True, False, True, 0),
        ),
        ("on write=0", ("on", frozenset(), True, False, False, True, 0)),
        ("on pack=1 wake=0", ("on", frozenset(), True, True, True, False, 0)),
        ("on duty=100 gpu=0", ("on", frozenset(), False, True, False, True, 100)),
        ("on duty=lots", ("on", frozenset(), True, True, False, True, 0)),
        ("", ("on", frozenset(), True, True, False, True, 0)),
        ("bogus skip= junk", ("on", frozenset(), True, True, False, True, 0)),
    ],
)
def test_control_text_reads_state_and_options(text, expected):
    from probes.control import parse_control

    assert parse_control(text) == expected


def test_control_options_leave_hooks_out_and_hold_writes(tmp_path):
    blobs = make_engine(tmp_path)
    body = """
from probes import runtime
from fakeengine.sched import Scheduler
original = Scheduler.__dict__["schedule"].__wrapped__
p = runtime._PROBE
kept = Scheduler().schedule                     # a reference that keeps the wrapper
p.set_state("on skip=Scheduler.schedule")
assert Scheduler.__dict__["schedule"] is original, "skipped: the engine's own function is back"
kept(1)                                         # through the kept wrapper: passes through, not recorded
p.set_state("on write=0")
kept(2); kept(3)
p.shard.flush()
print("held", sum(type(r) is tuple for r in p.shard.buffer))  # call rows; records are dicts
p.set_state("on")
p.shard.flush()
print("after", len(p.shard.buffer), "calls", p.hooks[0].num_calls)
"""
    done = run(tmp_path, dict(spec(tmp_path, tmp_path / "out", blobs), diagnostics=True), body)
    assert done.returncode == 0, done.stderr
    assert "held 2" in done.stdout and "after 0 calls 2" in done.stdout
    rows = records(tmp_path / "out")
    assert [c["seq"] for c in _calls(rows)] == [1, 2]
    diag = [r["diag"] for r in rows if r["kind"] == "stats"]
    assert diag and all(d["cpu_ns"] > 0 and len(d["gc"]) == 3 and len(d["gc_ns"]) == 3 for d in diag)


def test_packed_rows_read_back_as_plain_ones(tmp_path):
    blobs = make_engine(tmp_path)
    body = """
from probes import runtime
from fakeengine.sched import Scheduler
p = runtime._PROBE
s = Scheduler()
s.schedule(1)
p.set_state("on pack=1 wake=0")
s.schedule(2)
print("packed", sum(type(r) is bytes for r in p.shard.buffer), "wake", p.shard.flush_rows)
p.set_state("on")
s.schedule(3)
"""
    done = run(tmp_path, spec(tmp_path, tmp_path / "out", blobs, captures=["batch_size"]), body)
    assert done.returncode == 0, done.stderr
    assert "packed 1 wake -1" in done.stdout
    calls = _calls(records(tmp_path / "out"))
    assert [c["seq"] for c in calls] == [1, 2, 3]
    plain = {k: v for k, v in calls[0].items() if k not in ("seq", "ts_ns", "mono_ns", "dur_ns", "call_line")}
    assert all({k: v for k, v in c.items() if k in plain} == plain for c in calls[1:])
    assert all(c["call_path"] == "main.py" or c["call_line"] > 0 for c in calls)


def _duty_run(tmp_path, duty: int, steps: int) -> tuple[list, list]:
    """(records, duty windows) of `steps` scheduler steps under 'on duty=N', then 'on'."""
    blobs = make_engine(tmp_path)
    body = f"""
from probes import runtime
from fakeengine.sched import Scheduler
p = runtime._PROBE
s = Scheduler()
p.set_state("on duty={duty}")
for i in range({steps}):
    s.schedule(i)
p.set_state("on")
"""
    done = run(tmp_path, spec(tmp_path, tmp_path / "out", blobs, step=True), body)
    assert done.returncode == 0, done.stderr
    rows = records(tmp_path / "out")
    return rows, [r for r in rows if r["kind"] == "window"]


def test_duty_cycle_alternates_on_and_off_every_n_steps(tmp_path):
    rows, windows = _duty_run(tmp_path, duty=2, steps=9)
    assert [w["on"] for w in windows] == [True, False, True, False]  # steps 1-2 on, 3-4 off, 5-6 on, 7-8 off
    assert all(w["steps"] == 2 and w["end_ns"] >= w["begin_ns"] and w["state"] == "on duty=2" for w in windows)
    calls = _calls(rows)
    assert [c["step"] for c in calls] == [1, 2, 3, 4, 5]  # recorded: steps 1, 2, 5, 6, 9 (numbered 1-5)
    on = [(w["begin_ns"], w["end_ns"]) for w in windows if w["on"]] + [(windows[-1]["end_ns"], float("inf"))]
    assert all(any(b <= c["mono_ns"] < e for b, e in on) for c in calls)  # each within an on window


def test_duty_windows_carry_the_probes_own_time(tmp_path):
    rows, windows = _duty_run(tmp_path, duty=10, steps=60)
    # the wrappers' own time (less the engine's calls) lands in the on windows; the call that ends an on window is
    # the off window's first step, passed through: an off window holds none
    on, off = [w["own_ns"] for w in windows if w["on"]], [w["own_ns"] for w in windows if not w["on"]]
    assert (len(on), len(off)) == (3, 2) and all(n > 0 for n in on) and off == [0, 0]
    stats = [r for r in rows if r["kind"] == "stats"]
    assert stats[-1]["own_ns"] >= sum(on) + sum(off)


def test_the_sampler_counts_where_the_threads_are_under_each_state(tmp_path):
    blobs = make_engine(tmp_path)
    body = """
import time
from probes import runtime
p = runtime._PROBE

def busy_loop(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass

busy_loop(0.4)
p.set_state("absent")
busy_loop(0.4)
p.shard.flush()
"""
    done = run(tmp_path, dict(spec(tmp_path, tmp_path / "out", blobs), sample_hz=200), body)
    assert done.returncode == 0, done.stderr
    rows = [r for r in records(tmp_path / "out") if r["kind"] == "samples"]
    by_state: dict = {}
    for r in rows:
        hits = sum(n for _, path, fn, n in r["incl"] if fn == "busy_loop" and path.endswith("main.py"))
        by_state[r["state"]] = by_state.get(r["state"], 0) + hits
    assert by_state.get("on", 0) >= 20 and by_state.get("absent", 0) >= 20, by_state  # 200 Hz x 0.4 s, each
    assert all(not any(fn == "_run" and "sampler" in path for _, path, fn, _ in r["incl"]) for r in rows)


def test_every_record_a_run_writes_is_in_the_schema(tmp_path):
    """Duty windows, sampler counts, diagnostics, marks and calls of one run: each record kind is one of
    probes.schema.KINDS and carries its required fields."""
    from probes.schema import KINDS

    blobs = make_engine(tmp_path)
    body = """
import time
from probes import runtime
from fakeengine.sched import Scheduler
p = runtime._PROBE
s = Scheduler()
p.set_state("on duty=2")
for i in range(7):
    s.schedule(i)
p.set_state("on")
runtime.mark("round_begin", phase="x")
time.sleep(0.3)
"""
    flags = {"diagnostics": True, "sample_hz": 200}
    done = run(tmp_path, dict(spec(tmp_path, tmp_path / "out", blobs, step=True), **flags), body)
    assert done.returncode == 0, done.stderr
    shards = list((tmp_path / "out" / "shards").glob("*.shard"))
    from probes.records import read_frames

    written = [r for path in shards for r in read_frames(path.read_bytes())[0] if type(r) is dict]
    kinds = {r["kind"] for r in written}
    assert {"process", "hook", "window", "mark", "stats", "samples"} <= kinds <= set(KINDS)
    for r in written:
        required, _ = KINDS[r["kind"]]
        assert set(required) <= set(r), (r["kind"], set(required) - set(r))
