"""Built-in workloads and engine-argument parsing."""

from __future__ import annotations

import pytest

from atlas.errors import ConfigError
from atlas.runtime import workloads
from atlas.runtime.trace import parse_engine_args


@pytest.mark.parametrize(
    "name, params, n, concurrency, out_tokens",
    [
        ("requests", {"n": 3, "input_len": 8, "output_len": 4, "concurrency": 2}, 3, 2, 12),
        ("shared-prefix", {"prefix_len": 10, "suffix_len": 2, "output_len": 5}, 2, 1, 10),
        ("long-prefill", {"n": 2, "input_len": 4, "output_len": 6, "long_len": 50}, 3, 3, 20),
        ("sequential", {"lengths": (8, 16), "output_len": 1, "repeat": 2}, 4, 1, 4),
        ("repeat-prompt", {"length": 20, "output_len": 1}, 2, 1, 2),
        ("stream-inject", {"input_len": 4, "stream_len": 30, "inject_len": 50, "after": 5}, 2, 2, 31),
        ("pattern", {"kind": "repeat", "input_len": 12, "output_len": 7}, 1, 1, 7),
        ("beam", {"input_len": 8, "output_len": 3, "beam_width": 2}, 1, 1, 3),
    ],
)
def test_builtin_workloads(name, params, n, concurrency, out_tokens):
    w = workloads.build(name, **params)
    assert (len(w.requests), w.concurrency, w.num_output_tokens) == (n, concurrency, out_tokens)
    assert w == workloads.build(name, **params)  # deterministic
    assert len({r.id for r in w.requests}) == n


def test_shared_prefix_really_shares_and_waits():
    a, b = workloads.build("shared-prefix", prefix_len=10, suffix_len=3).requests
    assert a.prompt_ids[:10] == b.prompt_ids[:10] and a.prompt_ids[10:] != b.prompt_ids[10:]
    assert (a.after_finished, b.after_finished) == (0, 1)


def test_scenario_workloads_order_and_freshness():
    seq = workloads.build("sequential", lengths=(8, 16), repeat=2).requests
    assert [r.after_finished for r in seq] == [0, 1, 2, 3] and [len(r.prompt_ids) for r in seq] == [8, 8, 16, 16]
    cold, warm = workloads.build("repeat-prompt", length=20).requests
    assert cold.prompt_ids == warm.prompt_ids and warm.after_finished == 1
    stream, inject = workloads.build("stream-inject", stream_len=30, after=5).requests
    assert inject.after_tokens == ("stream", 5) and stream.max_tokens == 30
    (rep,) = workloads.build("pattern", kind="repeat", input_len=12).requests
    (rnd,) = workloads.build("pattern", kind="random", input_len=12).requests
    assert rep.prompt_ids[:4] * 3 == rep.prompt_ids and len(set(rnd.prompt_ids)) > 4
    assert all(workloads.build(n).salt for n in ("sequential", "repeat-prompt", "stream-inject", "pattern", "beam"))
    assert workloads.build("beam", beam_width=3).to_json()["kind"] == "beam"


def test_salted_prompts_differ_per_replay_only_in_their_first_token():
    from atlas.runtime.drivers.common import salted

    prompt = list(workloads.build("repeat-prompt", length=20).requests[0].prompt_ids)
    a, b = salted(prompt, 1), salted(prompt, 2)
    assert a[1:] == b[1:] == prompt[1:] and a[0] != b[0] and salted(prompt, 1) == a


def test_unknown_workload_names_the_choices():
    with pytest.raises(ConfigError, match="choose one of: requests, shared-prefix, long-prefill"):
        workloads.build("nope")


@pytest.mark.parametrize(
    "args, parsed",
    [
        (("--max-num-seqs", "4"), {"max_num_seqs": 4}),
        (("--enforce-eager",), {"enforce_eager": True}),
        (("--dtype=float16", "--x", "1.5"), {"dtype": "float16", "x": 1.5}),
        (("--attention-backend", "TRITON_ATTN", "--flag"), {"attention_backend": "TRITON_ATTN", "flag": True}),
    ],
)
def test_engine_args(args, parsed):
    assert parse_engine_args(args) == parsed


def test_engine_args_must_be_options():
    with pytest.raises(ConfigError, match="--name value"):
        parse_engine_args(("4",))
