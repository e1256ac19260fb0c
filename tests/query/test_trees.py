"""`atlas graph callees` / `callers` on a small synced tree: a function whose calls the graph keeps only on its
copies (here a decorator's wrapper, one per decorated function; a closure analysed per receiver class is kept the
same way) is answered with each copy and its edges, and says so; a function with edges of its own as before."""

from __future__ import annotations

import pytest
from gitfixtures import synced_project

from atlas.cli import main

FILES = {
    "pkg/__init__.py": "",
    "pkg/workers.py": """
import functools
def cache_once(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args)
    return wrapper
@cache_once
def arch():
    return 90
@cache_once
def version():
    return 12
def main():
    return arch() + version()
""",
}


@pytest.fixture
def project(tmp_path, monkeypatch):
    return synced_project(tmp_path, monkeypatch, {"engine": FILES})


def test_a_function_that_runs_only_as_copies_is_answered_by_its_copies(project, capsys):
    wrapper = "pkg.workers.cache_once.wrapper"
    assert main(["graph", "callees", wrapper, "--framework", "engine"]) == 0
    got = capsys.readouterr()
    assert "has no callees of its own: it runs as 2 copies" in got.err
    for f in ("arch", "version"):
        assert f"-> {wrapper}@pkg.workers.{f}  [copy 1.00]\n  -> pkg.workers.{f}  [" in got.out

    assert main(["graph", "callers", wrapper, "--framework", "engine", "--depth", "2"]) == 0
    got = capsys.readouterr()
    assert "has no callers of its own: it runs as 2 copies" in got.err
    for f in ("arch", "version"):
        assert f"<- {wrapper}@pkg.workers.{f}  [copy 1.00]\n  <- pkg.workers.main  [" in got.out

    assert main(["graph", "callers", "pkg.workers.main", "--framework", "engine"]) == 1  # no copies: said as before
    got = capsys.readouterr()
    assert "copies" not in got.err and "pkg.workers.main has no callers" in got.err

    assert main(["graph", "callees", "pkg.workers.main", "--framework", "engine"]) == 0
    got = capsys.readouterr()
    assert "copies" not in got.err and f"-> {wrapper}@pkg.workers.arch  [" in got.out
