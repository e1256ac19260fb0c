"""vLLM captures on stand-in objects shaped like vLLM's SchedulerOutput (the real objects are exercised by the
engine test): the batch mode a plan step is classified as."""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from probes.captures.vllm import plan_mode


def _plan(new, cached, spec=None, outputs=None):
    """new/cached: {rid: (computed before, scheduled, prompt len)}; outputs: num_output_tokens of the cached
    requests (vLLM's CachedRequestData field; None: a version without it)."""
    out = NS(scheduled_new_reqs=[NS(req_id=r, num_computed_tokens=c) for r, (c, _, _) in new.items()],
             scheduled_cached_reqs=NS(req_ids=list(cached), num_computed_tokens=[c for c, _, _ in cached.values()],
                                      **({} if outputs is None else {"num_output_tokens": outputs})),
             num_scheduled_tokens={r: s for r, (_, s, _) in {**new, **cached}.items()},
             scheduled_spec_decode_tokens=spec or {})
    return out


@pytest.mark.parametrize("new, cached, spec, outputs, mode", [
    ({"a": (0, 64, 64)}, {}, None, None, "EXTEND"),
    ({}, {"a": (64, 1, 64), "b": (70, 1, 64)}, None, None, "DECODE"),
    ({}, {"a": (64, 1, 64), "b": (70, 1, 64)}, None, [1, 7], "DECODE"),
    ({"c": (0, 32, 200)}, {"a": (64, 1, 64)}, None, None, "MIXED"),
    ({}, {"a": (128, 64, 400)}, None, None, "EXTEND"),  # a later chunk of a chunked prefill
    ({}, {"a": (128, 64, 400)}, None, [0], "EXTEND"),
    ({}, {"a": (199, 1, 200)}, None, [0], "EXTEND"),  # a last chunk of one token: no output token yet
    ({}, {"a": (199, 1, 200), "b": (300, 1, 64)}, None, [0, 5], "MIXED"),
    ({}, {"a": (64, 3, 64)}, {"a": [5, 6]}, None, "TARGET_VERIFY"),
    ({}, {}, None, None, "IDLE"),
])
def test_vllm_batch_mode(new, cached, spec, outputs, mode):
    assert plan_mode(_plan(new, cached, spec, outputs)) == mode
