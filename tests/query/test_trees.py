"""`atlas graph callees` / `callers` on a small synced tree: a function whose calls the graph keeps on its copies
(a decorator's wrapper, one per decorated function; a closure analysed per receiver class of its method) is answered
with its own edges, then each copy and its edges, and says so; a function with no copies as before. A method that only
raises NotImplementedError, whose calls are drawn to the overrides that implement it, is answered by their callers."""

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
    "pkg/stages.py": """
def helper():
    return 1
class Stage:
    def run(self):
        def step():
            helper()
            return self.build()
        return step()
class AudioStage(Stage):
    def build(self):
        return 2
class VideoStage(Stage):
    def build(self):
        return 3
def main():
    return AudioStage().run() + VideoStage().run()
""",
    "pkg/wrappers.py": """
class Base:
    def add(self, x):
        \"\"\"Add x.\"\"\"
        raise NotImplementedError
    def unsupported(self):
        raise NotImplementedError
    def reset(self):
        raise NotImplementedError(f"{type(self).__name__} cannot reset")
class Gpu(Base):
    def add(self, x):
        return x + 1
    def reset(self):
        return 0
class Cpu(Base):
    pass
class Xpu(Cpu):
    def add(self, x):
        return x + 2
def pick(flag):
    return Gpu() if flag == 1 else Xpu() if flag == 2 else Cpu()
def step(flag):
    return pick(flag).add(3) + pick(flag).reset()
def direct():
    return Base().unsupported()
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


def test_a_closure_analysed_per_receiver_class_answers_with_its_own_calls_and_its_copies(project, capsys):
    step = "pkg.stages.Stage.run.step"
    assert main(["graph", "callees", step, "--framework", "engine"]) == 0
    got = capsys.readouterr()
    assert "also runs as 2 copies" in got.err
    own, _, copies = got.out.partition(f"-> {step}@")
    assert "-> pkg.stages.helper  [" in own  # its own edge (what does not depend on self) comes first
    for cls in ("AudioStage", "VideoStage"):  # what self.build() runs is on the copy for each class
        rows = copies.partition(f"pkg.stages.{cls}  [copy 1.00]\n")[2].partition("\n-> ")[0]
        assert "  -> pkg.stages.helper  [" in rows and f"  -> pkg.stages.{cls}.build  [" in rows
    assert ".build" not in own


def test_callers_of_a_stub_are_the_callers_of_the_overrides_that_implement_it(project, capsys):
    assert main(["graph", "callers", "pkg.wrappers.Base.add", "--framework", "engine"]) == 0
    got = capsys.readouterr()
    assert (
        "pkg.wrappers.Base.add only raises NotImplementedError" in got.err
        and "the 2 overrides that implement it; their callers" in got.err
    )
    for cls in ("Gpu", "Xpu"):  # a subclass's override, and one deeper in the cone
        assert f"<- pkg.wrappers.{cls}.add  [override 1.00]\n  <- pkg.wrappers.step  [" in got.out

    assert main(["graph", "callers", "pkg.wrappers.Base.reset", "--framework", "engine"]) == 0
    got = capsys.readouterr()
    assert "drawn to the override that implements it; its callers" in got.err
    assert "<- pkg.wrappers.Gpu.reset  [override 1.00]\n  <- pkg.wrappers.step  [" in got.out

    assert main(["graph", "callers", "pkg.wrappers.Base.unsupported", "--framework", "engine"]) == 0
    got = capsys.readouterr()  # a stub no subclass overrides keeps its own callers
    assert "NotImplementedError" not in got.err and "<- pkg.wrappers.direct  [" in got.out

    assert main(["graph", "callees", "pkg.wrappers.Base.add", "--framework", "engine"]) == 1  # callees: as before
    assert "NotImplementedError" not in capsys.readouterr().err


def test_a_path_to_a_stub_goes_to_the_overrides_that_implement_it(project, capsys):
    assert main(["graph", "path", "pkg.wrappers.step", "pkg.wrappers.Base.add", "--framework", "engine"]) == 0
    got = capsys.readouterr()
    assert "pkg.wrappers.Base.add only raises NotImplementedError" in got.err
    assert "pkg.wrappers.Gpu.add" in got.out or "pkg.wrappers.Xpu.add" in got.out

    assert main(["graph", "path", "pkg.wrappers.direct", "pkg.wrappers.Base.unsupported", "--framework", "engine"]) == 0
    assert "NotImplementedError" not in capsys.readouterr().err  # a stub with callers of its own: as before
