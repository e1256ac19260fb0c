"""Packaging: everything is declared in pyproject.toml; this file only adds the modules mypyc compiles (the parser's
walker and the call resolver, the hot loops of `atlas index`), as mypy itself ships. A regular install (`pip install
.`) compiles them; `ATLAS_MYPYC=0`, or an editable install (`pip install -e .`, for working on atlas: edits take
effect at once), runs the same modules from source."""

import os
import sys
from pathlib import Path

from setuptools import setup

COMPILED = ["atlas/parse/python", "atlas/graph/resolve"]
NOT_COMPILED = {"__init__.py", "rules.py"}  # package faces and YAML loading: no hot loops


def compiled_modules() -> list[str]:
    return sorted(str(p) for folder in COMPILED for p in Path(folder).glob("*.py") if p.name not in NOT_COMPILED)


def extensions() -> list:
    editable = any(arg in ("editable_wheel", "develop") for arg in sys.argv)
    if os.environ.get("ATLAS_MYPYC", "1") == "0" or editable:
        return []
    from mypyc.build import mypycify

    return mypycify(
        ["--follow-imports=silent", "--ignore-missing-imports", *compiled_modules()],
        opt_level="3",
        group_name="atlas_core",
    )


setup(ext_modules=extensions())
