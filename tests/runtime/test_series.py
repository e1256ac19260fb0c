"""The per-step and per-request series of a trace: plan rows joined with the execute and commit events that answer
them (also when commits come after the next plan, as in pipelined engines), requests' lives collected from the same
rows, the columnar file read back as it was written."""

from __future__ import annotations

import copy

from atlas.runtime import series as series_io
from atlas.runtime.merge import merge
from atlas.runtime.series import MISSING
from atlas.runtime.series.build import build
from tests.runtime import synthetic


def _series(tmp_path, edit=None):
    synthetic.write(tmp_path)
    merged = merge(tmp_path / "shards")
    if edit is not None:
        edit(merged.events)
    return build(merged, synthetic.SPEC)


def test_steps_split_prefill_from_decode_and_join_execute_and_commit(tmp_path):
    s = _series(tmp_path)
    st = s.steps
    assert st.step == [1, 2, 3] and [s.modes[m] for m in st.mode] == ["EXTEND", "DECODE", "DECODE"]
    assert (st.prefill_tokens, st.decode_tokens) == ([16, 0, 0], [0, 2, 2])
    assert st.exec_us == [5000, 5000, 5000]  # each plan's execute call (5 ms), joined
    assert st.commit_us == [18000 + 1000, 28000 + 1000, 38000 + 1000]  # the commit's end, from the first event
    assert st.running == [MISSING] * 3  # a probe that did not record the scheduler's state: -1, never a guess


def test_requests_lives_from_the_rows(tmp_path):
    s = _series(tmp_path)
    r = s.requests
    assert r.id == ["a", "b"] and r.arrival_us == [0, 1000]
    assert r.first_row == [0, 0] and r.output_tokens == [3, 3] and r.num_chunks == [1, 1]
    assert r.first_token_us == [19000, 19000]
    schedules = s.schedules
    assert schedules.of(0) == [(0, 1, 8, 1), (1, 2, 1, 0)]  # one prefill row of 8, then a run of 2 decode rows
    assert s.emits.of(1) == [(0, 3, 1, 0)]  # a token at each of the three commits: one run


def test_commits_after_the_next_plan_still_answer_their_own(tmp_path):
    def pipeline(events):  # each commit lands after the next step's plan began (vLLM async, SGLang overlap)
        for e in events:
            if e["role"] == "commit":
                e["mono_ns"] += 5 * synthetic.MS
        events.sort(key=lambda e: e["mono_ns"])

    s = _series(tmp_path, pipeline)
    assert s.steps.commit_us == [24000, 34000, 44000]
    assert s.requests.output_tokens == [3, 3]


def test_an_execute_that_ran_another_batch_is_not_joined(tmp_path):
    def other_batch(events):
        for e in events:
            if e["symbol"].endswith("execute_model") and e["step"] == 2:
                e["values"] = {"batch_size": 5}

    s = _series(tmp_path, other_batch)
    assert s.steps.exec_us == [5000, MISSING, 5000]


def test_series_file_round_trips(tmp_path):
    s = _series(tmp_path)
    path = series_io.write(s, tmp_path / "series.json")
    again = series_io.load(tmp_path)
    assert again is not None and series_io.to_json(again) == series_io.to_json(s)
    assert path.stat().st_size < 4000
    assert series_io.load(tmp_path / "nothing") is None  # a trace recorded before series: no series, no error


def test_scheduler_state_and_new_blocks_fill_the_kv_columns(tmp_path):
    def with_state(events):
        for e in events:
            if e["symbol"].endswith("Scheduler.schedule"):
                first = e["step"] == 1
                e["values"].update(
                    running=2,
                    waiting=1,
                    kv_free=90,
                    kv_cached=3,
                    kv_total=100,
                    block_size=4,
                    new_blocks={"a": 2, "b": 2} if first else {},
                    num_computed_tokens={"a": 0, "b": 0} if first else {"a": 7 + e["step"], "b": 7 + e["step"]},
                )

    s = _series(copy.deepcopy(tmp_path), with_state)
    st = s.steps
    assert (st.running, st.waiting, st.kv_used, st.kv_free) == ([2] * 3, [1] * 3, [10] * 3, [90] * 3)
    assert st.kv_committed[0] == 4  # 8 tokens each after the prefill: 2 blocks of 4 for each request
    assert s.blocks.of(0) == [(0, 1, 2, 0)] and (s.block_size, s.kv_total) == (4, 100)
