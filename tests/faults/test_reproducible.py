"""Reproducible output: two builds of the same site, in processes with different hash seeds, are byte-identical;
so are two exports of one graph."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
BUILD = """
import sys
sys.path[1:1] = [{tests!r}, {render!r}]  # after the checkout itself: tests/probes is not the probes package
from pathlib import Path
import sitefixture
from atlas.render import build_site
tmp = Path({tmp!r})
build_site(sitefixture.settings_for(tmp), site=sitefixture.site_for(tmp), out=str(tmp / "out"))
"""


def _digests(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != ".atlas.lock"
    }


def _build(where: Path, seed: str) -> dict[str, str]:
    code = BUILD.format(tests=str(TESTS), render=str(TESTS / "render"), tmp=str(where))
    env = {**os.environ, "PYTHONHASHSEED": seed}
    env.pop("SOURCE_DATE_EPOCH", None)
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=TESTS.parent, timeout=600)
    return _digests(where / "out")


def test_two_site_builds_are_byte_identical(tmp_path):
    if not (TESTS.parent / "site" / "node_modules").is_dir():
        pytest.skip("npm ci --prefix site has not been run (the site bundles its graph library)")
    first, second = _build(tmp_path / "a", "1"), _build(tmp_path / "b", "2")
    assert first.keys() == second.keys()
    differing = sorted(name for name in first if first[name] != second[name])
    assert not differing, f"{len(differing)} files differ between two builds: {differing[:10]}"


@pytest.mark.parametrize("fmt", ["json", "dot", "mermaid"])
def test_two_exports_of_each_graph_are_byte_identical(project, fmt):
    """Each graph built twice (hash seeds differ, once in one process, once forked) and exported: the same bytes."""
    exports = []
    for seed, fork in (("1", ""), ("2", "1")):
        env = {"PYTHONHASHSEED": seed, "ATLAS_NO_FORK": fork}
        assert project.atlas("index", "--force", env=env).returncode == 0
        exports.append(
            [project.atlas("graph", "export", name, "--format", fmt, env=env).stdout for name in ("vllm", "sglang")]
        )
    assert exports[0] == exports[1] and all(exports[0])


def test_two_real_site_builds_are_byte_identical(built):
    html = built.root / "site_build" / "html"
    first = _digests(html)
    done = built.atlas("build", "--no-check", env={"PYTHONHASHSEED": "3"})
    assert done.returncode == 0, done.stderr
    second = _digests(html)
    assert first == second, sorted(k for k in first if first.get(k) != second.get(k))[:10]
