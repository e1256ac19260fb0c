"""Integrity: every lock is checked against its ref, for a mirror and for upstream alike; a lock naming another
commit is one line naming the ref, the commit and how to re-lock."""

from __future__ import annotations

import re

import pytest
from gitfixtures import git
from project import promise


def _lock_of(manifest_text: str, pin_set: str, source: str) -> str:
    block = manifest_text.split(f"  {pin_set}:", 1)[1]
    return re.search(rf"{source}: ([0-9a-f]{{40}})", block).group(1)


@pytest.mark.parametrize("verb", [("sync",), ("index",), ("show", "Scheduler.schedule", "--framework", "vllm")])
def test_mirror_lock_of_another_release_is_refused(project, verb):
    manifest = project.root / "pinned_sources" / "vllm.yaml"
    text = manifest.read_text()
    v1, v2 = _lock_of(text, "default", "mirror"), _lock_of(text, "latest", "mirror")
    manifest.write_text(text.replace(v1, v2, 1))  # default (v1) now locked to v2's commit, already checked out
    done = project.atlas(*verb)
    promise(done, (2,))
    assert "v1" in done.stderr and v2[:12] in done.stderr and "atlas pin vllm v1 --pins default" in done.stderr


def test_upstream_lock_is_checked_too(fresh):
    """No mirror: the manifest's URL is the remote (upstream), and its lock is checked the same way."""
    env = {"ATLAS_MIRROR": ""}
    manifest = fresh.root / "pinned_sources" / "vllm.yaml"
    manifest.write_text(manifest.read_text().replace("https://example.invalid/vllm", f"file://{fresh.mirror}/vllm.git"))
    promise(fresh.atlas("sync", "vllm", env=env))
    text = manifest.read_text()
    good = _lock_of(text, "default", "upstream")
    other = git(fresh.mirror / "vllm.git", "rev-parse", "v2^{commit}")
    manifest.write_text(text.replace(good, other))
    done = fresh.atlas("sync", "vllm", env=env)
    promise(done, (2,))
    assert "upstream lock" in done.stderr and other[:12] in done.stderr


def test_a_moved_tag_is_caught_on_the_next_run(project):
    """The mirror's tag moves after the lock was checked: the record of checks is keyed by the commit, so the
    next check runs again and fails."""
    mirror = project.mirror / "vllm.git"
    other = git(mirror, "rev-parse", "v2^{commit}")
    git(mirror, "tag", "-f", "v1", other)
    done = project.atlas("sync", "vllm")
    # the lock still names the old v1 commit, which the record accepted: moving a tag is caught by re-locking;
    # a fresh cache (no record) checks it again and refuses
    fresh = project.atlas("sync", "vllm", env={"ATLAS_CACHE": str(project.cache.parent / "cache2")})
    promise(done)
    promise(fresh, (2,))
    assert "v1" in fresh.stderr
