"""Fixtures of the fault suite: the small project (tests/faults/project.py) fresh, synced and indexed, or also
built into a site. Each test gets its own: real git state does not survive being copied to another path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from project import Project, make_project, promise  # noqa: E402


@pytest.fixture
def fresh(tmp_path) -> Project:
    """The project before any sync: an empty cache."""
    return make_project(tmp_path)


@pytest.fixture
def project(fresh) -> Project:
    """Synced (both pin sets) and indexed."""
    for args in (["sync", "--pins", "default,latest"], ["index"]):
        promise(fresh.atlas(*args))
    return fresh


@pytest.fixture
def built(project) -> Project:
    """Also built into site_build/html."""
    if not (project.root / "site" / "node_modules").is_dir():
        pytest.skip("npm ci --prefix site has not been run (the site bundles its graph library)")
    promise(project.atlas("build"))
    return project
