"""The mypyc-compiled parser and resolver (scripts/compile.py) are used only when they match their sources:
ATLAS_PURE=1 runs the sources, and compiled modules older than a source are set aside with a warning. Each case runs
in a fresh interpreter, since a module loads once per process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from atlas.parse.python import compiled

ROOT = Path(compiled.__file__).resolve().parents[3]
PROBE = ("import atlas.graph.resolve, atlas.parse.python as p, atlas.parse.python.compiled as c; "
         "print(sorted({c.is_compiled(m) for m in c.MODULES}))")
HAS_COMPILED = bool(compiled.compiled_files())


def probe(root: Path, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "ATLAS_PURE"} | {"PYTHONPATH": str(root), **env}
    return subprocess.run([sys.executable, "-W", "always", "-c", PROBE], capture_output=True, text=True,
                          env=environ, cwd=root, check=True)


def test_atlas_pure_runs_the_sources():
    assert probe(ROOT, ATLAS_PURE="1").stdout.strip() == "[False]"


@pytest.mark.skipif(not HAS_COMPILED, reason="not compiled here: run `python scripts/compile.py` to test this")
def test_current_compiled_modules_are_used_all_together():
    run = probe(ROOT)
    assert run.stdout.strip() == "[True]"
    assert "older than their sources" not in run.stderr


@pytest.mark.skipif(not HAS_COMPILED, reason="not compiled here: run `python scripts/compile.py` to test this")
def test_compiled_modules_older_than_a_source_are_set_aside(tmp_path):
    copy = tmp_path / "checkout"
    shutil.copytree(ROOT / "atlas", copy / "atlas", ignore=shutil.ignore_patterns("__pycache__"))
    source = copy / "atlas" / "graph" / "resolve" / "cells.py"
    source.write_text(source.read_text() + "\n# changed after compiling\n")
    run = probe(copy)
    assert run.stdout.strip() == "[False]"
    assert "older than their sources" in run.stderr and "scripts/compile.py" in run.stderr


NATIVE_PROBE = ("import atlas.graph.resolve, atlas.parse.python.compiled as c; "
                "print(c.native_walker() is not None, c.native_solver() is not None)")
HAS_NATIVE = bool(compiled.WALKER.files() and compiled.SOLVER.files())


def native_probe(root: Path, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "ATLAS_PURE"} | {"PYTHONPATH": str(root), **env}
    return subprocess.run([sys.executable, "-W", "always", "-c", NATIVE_PROBE], capture_output=True, text=True,
                          env=environ, cwd=root, check=True)


@pytest.mark.skipif(not HAS_NATIVE, reason="the C walker and C++ resolver are not built here: run "
                                           "`python scripts/compile.py` to test this")
def test_native_parts_are_used_when_current_and_not_when_pure():
    assert native_probe(ROOT).stdout.split() == ["True", "True"]
    assert native_probe(ROOT, ATLAS_PURE="1").stdout.split() == ["False", "False"]


@pytest.mark.skipif(not HAS_NATIVE, reason="the C walker and C++ resolver are not built here: run "
                                           "`python scripts/compile.py` to test this")
@pytest.mark.parametrize("source, which", [("parse/python/c/expressions.c", "C walker"),
                                           ("graph/resolve/cpp/cells.cpp", "C++ call resolver")])
def test_a_native_part_older_than_its_sources_is_set_aside(tmp_path, source, which):
    copy = tmp_path / "checkout"
    shutil.copytree(ROOT / "atlas", copy / "atlas", ignore=shutil.ignore_patterns("__pycache__"))
    changed = copy / "atlas" / source
    changed.write_text(changed.read_text() + "\n// changed after building\n")
    run = native_probe(copy)
    assert run.stdout.split() == (["False", "True"] if which == "C walker" else ["True", "False"])
    assert f"the {which} is out of date" in run.stderr and "scripts/compile.py" in run.stderr
