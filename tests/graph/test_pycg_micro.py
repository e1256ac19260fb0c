"""atlas on PyCG's micro-benchmark (../shared/benchmarks/pycg-micro, or $ATLAS_PYCG_MICRO): the issue's targets."""

import importlib.util
import sys
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "pycg_eval", Path(__file__).resolve().parents[2] / "benchmarks" / "pycg_eval.py"
)
pycg_eval = importlib.util.module_from_spec(_spec)
sys.modules["pycg_eval"] = pycg_eval
_spec.loader.exec_module(pycg_eval)

SNIPPETS = pycg_eval.snippets_dir()
needs_suite = pytest.mark.skipif(
    not SNIPPETS.is_dir(), reason=f"PyCG micro-benchmark not found at {SNIPPETS}; set ATLAS_PYCG_MICRO"
)


@needs_suite
def test_suite_meets_the_targets():
    scores = pycg_eval.score_all(SNIPPETS)
    result = pycg_eval.summary(scores)
    assert result["cases"] == 119
    failures = [(s.name, sorted(s.missing), sorted(s.extra)) for s in scores if not (s.is_complete and s.is_sound)]
    assert result["complete"] >= 116, failures
    assert result["sound"] >= 114, failures
    assert result["precision"] >= 0.98, failures
    assert result["recall"] >= 0.97, failures


@needs_suite
@pytest.mark.parametrize(
    "case",
    [
        "classes/base_class_calls_child",
        "mro/super_call",
        "dicts/assign",
        "lambdas/chained_calls",
        "imports/init_func_import",
    ],
)
def test_hard_cases_exact(case):
    score = pycg_eval.score_case(SNIPPETS / case)
    assert score.is_complete and score.is_sound, (score.missing, score.extra)


def test_cli_prints_pycg_json(tmp_path, capsys):
    from atlas.cli import main

    (tmp_path / "main.py").write_text("from to_import import func\nfunc()\n")
    (tmp_path / "to_import.py").write_text("def func():\n    len([])\n")
    (tmp_path / "pinned_sources").mkdir()
    assert main(["callgraph", str(tmp_path), "main.py", "--format", "pycg", "--root", str(tmp_path)]) == 0
    import json

    assert json.loads(capsys.readouterr().out) == {
        "<builtin>.len": [],
        "main": ["to_import.func"],
        "to_import.func": ["<builtin>.len"],
    }


def test_callgraph_works_outside_the_project(tmp_path, monkeypatch, capsys):
    """`atlas callgraph DIR` needs no atlas project around it (no pinned_sources/ above the current folder)."""
    from atlas.cli import main

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("def f():\n    g()\ndef g(): pass\n")
    monkeypatch.chdir(tmp_path)
    assert main(["callgraph", "pkg", "--format", "human"]) == 0
    assert capsys.readouterr().out.splitlines() == ["m.f -> m.g"]
