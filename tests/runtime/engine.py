"""Finding the CPU engine for the `engine` tests: $ATLAS_ENGINE_PYTHON, else the venv scripts/setup_cpu_engine.sh
makes. Without it the tests skip and say why, unless ATLAS_REQUIRE_ENGINE=1 (CI), where they fail."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def engine_python() -> str:
    python = os.environ.get("ATLAS_ENGINE_PYTHON") or str(Path.home() / ".cache/atlas/engine-cpu/bin/python")
    if not Path(python).is_file():
        message = f"no CPU engine at {python}: run `bash scripts/setup_cpu_engine.sh` or set ATLAS_ENGINE_PYTHON"
        if os.environ.get("ATLAS_REQUIRE_ENGINE") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return python
