"""gpu/prepare.py's measuring rounds name real built-in hooks, and its balanced order puts every state early and
late equally often."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "gpu" / "prepare.py"


@pytest.fixture(scope="module")
def prepare():
    spec = importlib.util.spec_from_file_location("gpu_prepare", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_group_names_built_in_hooks(prepare):
    assert prepare.unknown_hooks() == []
    assert all(
        state.startswith(("on ", "off "))
        for states in (*prepare.BISECT.values(), *prepare.OFF_BISECT.values())
        for state in states
    )


def test_balanced_rounds_rotate_the_states(prepare):
    rounds = prepare.balanced(4, ("absent", "on", "off"))
    assert Counter(rounds) == {"absent": 4, "on": 4, "off": 4}
    assert rounds[:3] == ["absent", "on", "off"] and rounds[3:6] == ["absent", "off", "on"]
