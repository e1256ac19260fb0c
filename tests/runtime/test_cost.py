"""What the probes cost, from the diagnostics and the duty-cycle windows the probe writes (atlas.runtime.cost):
rates over a round from two diag samples, and on/off ratios from neighbouring windows, on hand-made records."""

from __future__ import annotations

import pytest

from atlas.runtime import cost
from probes.records import encode_frame

MS = 1_000_000


def _diag(t_ms, cpu_ms, engine_ms, wait_ms, flusher_ms, gc, gc_ms):
    return {
        "mono_ns": t_ms * MS,
        "cpu_ns": cpu_ms * MS,
        "flusher_cpu_ns": flusher_ms * MS,
        "flusher_tid": "9",
        "gc": gc,
        "gc_ns": [gc_ms * MS, 0, 0],
        "load": 1.5,
        "threads": {"7": [engine_ms * MS, wait_ms * MS, engine_ms, 3], "9": [flusher_ms * MS, 0, 1, 4]},
    }


def test_rates_over_a_round_are_per_second_of_it():
    first = _diag(0, 100, 80, 5, 10, [10, 1, 0], 2)
    last = _diag(3000, 2100, 1880, 15, 40, [40, 4, 1], 8)
    row = cost.rates(first, last, seconds=2.0)
    assert row["cpu_ms_s"] == 1000.0 and row["engine_run_ms_s"] == 900.0 and row["engine_wait_ms_s"] == 5.0
    assert row["flusher_ms_s"] == 15.0 and row["gc_ms_s"] == 3.0 and (row["gc0_s"], row["gc2_s"]) == (15.0, 0.5)
    assert row["engine_cpu"] == 3  # the busiest thread that is not the flusher


def _window(on, begin_ms, step_ms, steps=10, state="on duty=10"):
    return {
        "kind": "window",
        "v": 3,
        "pid": 5,
        "on": on,
        "begin_ns": begin_ms * MS,
        "end_ns": (begin_ms + step_ms * steps) * MS,
        "steps": steps,
        "state": state,
    }


@pytest.mark.parametrize(
    "step_ms, expected",
    [
        ([2, 2, 2, 2, 2], [1.0, 1.0]),  # on windows at 1 and 3: as fast as their neighbours
        ([2, 2.5, 2, 2.5, 2], [0.8, 0.8]),  # on 25% slower: on/off 0.8
        ([2, 2.5, 3, 3.75, 3], [1.0, 0.8]),  # a machine slowing down: each on window against its own neighbours
    ],
)
def test_duty_ratios_compare_each_on_window_with_its_neighbours(step_ms, expected):
    t, seq = 0, []
    for i, ms in enumerate(step_ms):
        seq.append(_window(i % 2 == 1, t, ms))
        t += ms * 10
    assert cost.duty_ratios([seq]) == pytest.approx(expected)


def test_duty_ratios_leave_out_on_windows_with_an_off_window_on_one_side_only():
    """A round's step time drifts up as the context grows; windows off, on, off, on: the last on window, measured
    against its earlier neighbour alone, would look 10% slower with the probes costing nothing."""
    t, seq = 0, []
    for i, ms in enumerate([2.0, 2.2, 2.4, 2.6]):
        seq.append(_window(i % 2 == 1, t, ms))
        t += ms * 10
    assert cost.duty_ratios([seq]) == pytest.approx([1.0])


def test_duty_summary_pools_pairs_so_the_drift_cancels(tmp_path):
    (tmp_path / "shards").mkdir()
    marks = [
        {
            "kind": "mark",
            "v": 3,
            "pid": 1,
            "name": name,
            "mono_ns": t * MS,
            "ts_ns": t * MS,
            "values": {"phase": "c16-ab", "round": 0, "probes": "on duty=10", "out_tokens": 100, "seconds": 1.0},
        }
        for name, t in (("round_begin", 0), ("round_end", 1000))
    ]
    t, windows = 0, []
    for i in range(8):  # off, on, ..., on: the step slows 0.2 ms a window; on windows 10% slower than that
        ms = (2.0 + 0.2 * i) * (1.1 if i % 2 else 1.0)
        windows.append(_window(i % 2 == 1, t, ms))
        t += ms * 10
    records = [{"kind": "process", "v": 3, "pid": 5, "ts_ns": 0, "mono_ns": 0}] + windows
    (tmp_path / "shards" / "driver-1.shard").write_bytes(encode_frame(marks))
    (tmp_path / "shards" / "engine-5.shard").write_bytes(encode_frame(records))
    (summary,) = cost.duty_summary(cost.load(tmp_path / "shards")).values()
    assert summary["pairs"] == 3
    assert summary["median"] == summary["geomean"] == summary["pooled"] == pytest.approx(1 / 1.1, abs=1e-4)


def test_duty_summary_reads_windows_inside_rounds_from_shards(tmp_path):
    (tmp_path / "shards").mkdir()
    marks = [
        {
            "kind": "mark",
            "v": 3,
            "pid": 1,
            "name": name,
            "mono_ns": t * MS,
            "ts_ns": t * MS,
            "values": {"phase": "c16-ab", "round": 0, "probes": "on duty=10", "out_tokens": 100, "seconds": 1.0},
        }
        for name, t in (("round_begin", 0), ("round_end", 1000))
    ]
    windows = [_window(i % 2 == 1, i * 20, 2 if i % 2 == 0 else 2.5) for i in range(7)]
    windows.append(_window(True, 990, 2.0))  # runs past the round's end: left out
    records = [{"kind": "process", "v": 3, "pid": 5, "ts_ns": 0, "mono_ns": 0}] + windows
    (tmp_path / "shards" / "driver-1.shard").write_bytes(encode_frame(marks))
    (tmp_path / "shards" / "engine-5.shard").write_bytes(encode_frame(records))
    (summary,) = cost.duty_summary(cost.load(tmp_path / "shards")).values()
    assert summary["pairs"] == 3 and summary["median"] == pytest.approx(0.8) and summary["pooled"] == pytest.approx(0.8)
    assert summary["ci95"] == [pytest.approx(0.8), pytest.approx(0.8)]


def test_profiles_fold_samples_by_phase_and_state_and_diff_them(tmp_path):
    (tmp_path / "shards").mkdir()
    marks = []
    for rnd, (t0, t1, state) in enumerate([(0, 1000, "absent"), (2000, 3000, "off")]):
        values = {"phase": "c16", "round": rnd, "probes": state, "out_tokens": 10, "seconds": 1.0}
        marks += [
            {"kind": "mark", "v": 3, "pid": 1, "name": "round_begin", "mono_ns": t0 * MS, "ts_ns": 0, "values": values},
            {"kind": "mark", "v": 3, "pid": 1, "name": "round_end", "mono_ns": t1 * MS, "ts_ns": 0, "values": values},
        ]

    def samples(t, state, step_n, wrapper_n):
        return {
            "kind": "samples",
            "v": 3,
            "pid": 5,
            "mono_ns": t * MS,
            "state": state,
            "hz": 100,
            "n": 10,
            "self": [[1, "core.py", "step", 10, step_n], [1, "hooks.py", "wrapper", 20, wrapper_n]],
            "incl": [[1, "core.py", "step", 10], [1, "hooks.py", "wrapper", wrapper_n]],
        }

    records = [
        {"kind": "process", "v": 3, "pid": 5, "ts_ns": 0, "mono_ns": 0},
        samples(500, "absent", 10, 0),
        samples(1200, "absent", 10, 0),  # the flush just after the round
        samples(1800, "off", 9, 1),  # between rounds: not counted
        samples(2500, "off", 7, 3),
    ]
    (tmp_path / "shards" / "driver-1.shard").write_bytes(encode_frame(marks))
    (tmp_path / "shards" / "engine-5.shard").write_bytes(encode_frame(records))
    slots = cost.profiles(cost.load(tmp_path / "shards"))[5]
    assert {k: v["n"] for k, v in slots.items()} == {("c16", "absent"): 20, ("c16", "off"): 10}
    assert cost.profile_diff(slots, "absent", "off", "c16", kind="incl") == [
        ("hooks.py:wrapper", 0.0, 0.3, 0.3),
        ("core.py:step", 1.0, 1.0, 0.0),
    ]
    assert cost.profile_diff(slots, "absent", "off", "c16", kind="self") == [
        ("core.py:step:10", 1.0, 0.7, -0.3),
        ("hooks.py:wrapper:20", 0.0, 0.3, 0.3),
    ]
