"""Damaged state: stored graphs are checked when loaded (header with version, length, checksum) and rebuilt, or the
one command that repairs them is named; a deleted checkout is named with the command that re-creates it."""

from __future__ import annotations

import os
import random

import pytest
from project import promise

from atlas import stored


def _graph_files(project):
    return sorted(project.build.glob("graph/vllm-*/*.pickle"))


def _truncate(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _scramble(path):
    data = bytearray(path.read_bytes())
    rng = random.Random(7)
    for _ in range(16):
        data[rng.randrange(60, len(data))] ^= 0xFF
    path.write_bytes(bytes(data))


def _empty(path):
    path.write_bytes(b"")


@pytest.mark.parametrize("damage", [_truncate, _scramble, _empty, os.unlink])
def test_damaged_graph_is_rebuilt_by_show_and_index(project, damage):
    for path in _graph_files(project):
        damage(path)
    shown = project.atlas("show", "Scheduler.schedule", "--framework", "vllm")
    promise(shown)
    assert "allocate_slots" in shown.stdout
    for path in _graph_files(project):
        damage(path)
    indexed = project.atlas("index", "vllm")
    promise(indexed)
    if damage is not _scramble:  # a length check catches these without reading the whole file
        assert "built" in indexed.stdout
    promise(project.atlas("show", "Scheduler.schedule", "--framework", "vllm"))


def test_stored_refuses_every_damage(tmp_path):
    path = tmp_path / "x.pickle"
    stored.dump(path, {"a": list(range(1000))}, "v1")
    assert stored.load(path, "v1") == {"a": list(range(1000))} and stored.is_whole(path, "v1")
    with pytest.raises(stored.Damaged):
        stored.load(path, "v2")
    data = path.read_bytes()
    for bad in (data[:-1], data[:10], b"", data[:-5] + b"xxxxx", b"\x80\x05garbage"):
        path.write_bytes(bad)
        with pytest.raises(stored.Damaged):
            stored.load(path, "v1")


@pytest.mark.parametrize(
    "verb",
    [
        ("show", "Scheduler.schedule", "--framework", "vllm"),
        ("index",),
        ("check",),
        ("graph", "callees", "Scheduler.schedule", "--framework", "vllm"),
    ],
)
def test_deleted_checkout_is_named_then_recreated_by_sync(project, verb):
    from atlas.sources.gitops import remove_tree

    for checkout in (project.cache / "checkouts" / "vllm").iterdir():
        if checkout.is_dir():
            remove_tree(checkout)
    done = project.atlas(*verb)
    promise(done, (0, 2))
    if done.returncode == 2:
        assert "atlas sync vllm" in done.stderr
    promise(project.atlas("sync", "--pins", "default,latest"))
    promise(project.atlas(*verb))


def test_damaged_caches_of_sync_are_ignored(project):
    for path in list(project.cache.glob("verified/*.json")):
        path.write_bytes(b"\x00\xff{")
    promise(project.atlas("sync", "--pins", "default,latest"))
    promise(project.atlas("show", "Scheduler.schedule", "--framework", "vllm"))
