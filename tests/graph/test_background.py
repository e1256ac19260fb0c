"""atlas.graph.background: a function run in a forked child gives back its result or raises its error."""

import pytest

from atlas.graph import background


def _pair(a, b):
    return {"sum": a + b, "args": (a, b)}


def _fail(message):
    raise ValueError(message)


@pytest.mark.parametrize("no_fork", [False, True])
def test_result_and_error_come_back(no_fork, monkeypatch):
    if no_fork:
        monkeypatch.setenv("ATLAS_NO_FORK", "1")
    else:
        monkeypatch.delenv("ATLAS_NO_FORK", raising=False)
    big = list(range(100_000))  # inherited by the child, not pickled on the way in
    assert background.start(_pair, 2, 3)() == {"sum": 5, "args": (2, 3)}
    assert background.start(len, big)() == 100_000
    pending = background.start(_fail, "no kernels here")
    with pytest.raises(ValueError, match="no kernels here"):
        pending()
