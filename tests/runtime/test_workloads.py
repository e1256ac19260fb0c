"""Built-in workloads and engine-argument parsing."""

from __future__ import annotations

import pytest

from atlas.errors import ConfigError
from atlas.runtime import workloads
from atlas.runtime.trace import parse_engine_args


@pytest.mark.parametrize("name, params, n, concurrency, out_tokens", [
    ("requests", {"n": 3, "input_len": 8, "output_len": 4, "concurrency": 2}, 3, 2, 12),
    ("shared-prefix", {"prefix_len": 10, "suffix_len": 2, "output_len": 5}, 2, 1, 10),
    ("long-prefill", {"n": 2, "input_len": 4, "output_len": 6, "long_len": 50}, 3, 3, 20),
])
def test_builtin_workloads(name, params, n, concurrency, out_tokens):
    w = workloads.build(name, **params)
    assert (len(w.requests), w.concurrency, w.num_output_tokens) == (n, concurrency, out_tokens)
    assert w == workloads.build(name, **params)  # deterministic
    assert len({r.id for r in w.requests}) == n


def test_shared_prefix_really_shares_and_waits():
    a, b = workloads.build("shared-prefix", prefix_len=10, suffix_len=3).requests
    assert a.prompt_ids[:10] == b.prompt_ids[:10] and a.prompt_ids[10:] != b.prompt_ids[10:]
    assert (a.after_finished, b.after_finished) == (0, 1)


def test_unknown_workload_names_the_choices():
    with pytest.raises(ConfigError, match="choose one of: requests, shared-prefix, long-prefill"):
        workloads.build("nope")


@pytest.mark.parametrize("args, parsed", [
    (("--max-num-seqs", "4"), {"max_num_seqs": 4}),
    (("--enforce-eager",), {"enforce_eager": True}),
    (("--dtype=float16", "--x", "1.5"), {"dtype": "float16", "x": 1.5}),
    (("--attention-backend", "TRITON_ATTN", "--flag"), {"attention_backend": "TRITON_ATTN", "flag": True}),
])
def test_engine_args(args, parsed):
    assert parse_engine_args(args) == parsed


def test_engine_args_must_be_options():
    with pytest.raises(ConfigError, match="--name value"):
        parse_engine_args(("4",))
