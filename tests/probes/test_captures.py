"""vLLM captures on stand-in objects shaped like vLLM's SchedulerOutput (the real objects are exercised by the
engine test): the batch mode a plan step is classified as."""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from probes.captures.vllm import batch_mode
from probes.hooks import Call


def _plan(new, cached, spec=None):
    """new/cached: {rid: (computed before, scheduled, prompt len)}."""
    out = NS(scheduled_new_reqs=[NS(req_id=r, num_computed_tokens=c) for r, (c, _, _) in new.items()],
             scheduled_cached_reqs=NS(req_ids=list(cached), num_computed_tokens=[c for c, _, _ in cached.values()]),
             num_scheduled_tokens={r: s for r, (_, s, _) in {**new, **cached}.items()},
             scheduled_spec_decode_tokens=spec or {})
    sched = NS(requests={r: NS(num_prompt_tokens=p) for r, (_, _, p) in {**new, **cached}.items()})
    return Call((sched,), {}, out, None)


@pytest.mark.parametrize("new, cached, spec, mode", [
    ({"a": (0, 64, 64)}, {}, None, "EXTEND"),
    ({}, {"a": (64, 1, 64), "b": (70, 1, 64)}, None, "DECODE"),
    ({"c": (0, 32, 200)}, {"a": (64, 1, 64)}, None, "MIXED"),
    ({}, {"a": (128, 64, 400)}, None, "EXTEND"),  # a later chunk of a chunked prefill
    ({}, {"a": (64, 3, 64)}, {"a": [5, 6]}, "TARGET_VERIFY"),
    ({}, {}, None, "IDLE"),
])
def test_vllm_batch_mode(new, cached, spec, mode):
    assert batch_mode(_plan(new, cached, spec)) == mode
