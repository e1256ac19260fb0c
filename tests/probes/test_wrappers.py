"""The generated wrappers: a wrapper with the hooked function's own signature passes every call through exactly as
the function would take it (defaults, keyword-only, *args, **kwargs, errors), records the call, and hands a LATER
raw the arguments by position; functions it cannot mirror get the *args, **kwargs form."""

from __future__ import annotations

import functools

import pytest

from probes.hooks import make_hook
from probes.runtime import Probe
from probes.shard import Shard
from probes.wrappers import signature_parts, wrap


def _bound(*args, **kwargs):
    return args, kwargs


def f_plain(self, a, b=2):
    return _bound(self, a, b)


def f_keywords(self, a, *, k=None, j):
    return _bound(self, a, k=k, j=j)


def f_star(self, a, *rest, k=3, **more):
    return _bound(self, a, *rest, k=k, **more)


def f_positional(a, b, /, c=4):
    return _bound(a, b, c)


@pytest.mark.parametrize(
    "fn, args, kwargs",
    [
        (f_plain, ("s", 1), {}),
        (f_plain, ("s",), {"a": 1, "b": 5}),
        (f_plain, ("s", 1, 5), {}),
        (f_keywords, ("s", 1), {"j": 2}),
        (f_keywords, ("s",), {"a": 1, "j": 2, "k": 9}),
        (f_star, ("s", 1, 7, 8), {"x": 1}),
        (f_star, ("s",), {"a": 1}),
        (f_positional, (1, 2), {"c": 3}),
        (f_positional, (1, 2), {}),
    ],
)
@pytest.mark.parametrize("state", ["on", "off"])
def test_a_mirrored_signature_passes_every_call_through(tmp_path, fn, args, kwargs, state):
    probe, hook = _installed(tmp_path, raw=None)
    assert signature_parts(fn) is not None  # the hooked function's own signature, not *args, **kwargs
    wrapper = wrap(probe, hook, fn)
    probe.is_active = state == "on"
    assert wrapper(*args, **kwargs) == fn(*args, **kwargs)
    assert len(probe.shard.buffer) == (state == "on")


@pytest.mark.parametrize(
    "fn, args, kwargs",
    [
        (f_plain, ("s",), {}),  # a missing argument
        (f_plain, ("s", 1), {"c": 1}),  # an unknown keyword
        (f_keywords, ("s", 1, 2), {"j": 1}),  # a keyword-only argument given by position
        (f_positional, (1,), {"b": 2}),  # a positional-only argument given by keyword
    ],
)
def test_a_call_the_function_refuses_raises_the_same(tmp_path, fn, args, kwargs):
    probe, hook = _installed(tmp_path, raw=None)
    wrapper = wrap(probe, hook, fn)
    with pytest.raises(TypeError):
        fn(*args, **kwargs)
    with pytest.raises(TypeError):
        wrapper(*args, **kwargs)
    assert len(probe.shard.buffer) == 0


def test_a_later_raw_reads_keywords_by_position(tmp_path):
    probe, hook = _installed(tmp_path, raw=lambda args, kwargs, result, before: (args, dict(kwargs)))
    wrap(probe, hook, f_keywords)("s", a=1, j=2)
    (row,) = probe.shard.buffer
    assert row[-1] == (("s", 1), {"k": None, "j": 2})


def _decorated(fn):
    @functools.wraps(fn)
    def inner(*args, **kwargs):
        return fn(*args, **kwargs)

    return inner


def f_result(self, result):  # a parameter named as one of the wrapper's own names
    return result


@pytest.mark.parametrize(
    "fn, args",
    [
        (_decorated(f_plain), ("s", 1)),  # a decorator may take other arguments than what it wraps
        (f_result, ("s", 5)),
        (len, ([1, 2],)),
        (functools.partial(f_plain, "s"), (1,)),
    ],
)
def test_what_cannot_be_mirrored_takes_args_and_kwargs(tmp_path, fn, args):
    assert signature_parts(fn) is None
    probe, hook = _installed(tmp_path, raw=None)
    assert wrap(probe, hook, fn)(*args) == fn(*args)
    assert len(probe.shard.buffer) == 1


def _installed(tmp_path, raw):
    """A probe (its flusher not started) and one plain hook whose LATER raw is `raw`."""
    entry = {"symbol": "m.f", "module": "m", "qualname": "f", "role": "execute", "capture": []}
    probe = Probe({"framework": "none", "out": str(tmp_path), "hooks": [entry]}, Shard(str(tmp_path / "s.shard")))
    hook = make_hook(entry, {}, {}, None, ((), raw, None) if raw else None, 0)
    probe.hooks = [hook]
    return probe, hook
