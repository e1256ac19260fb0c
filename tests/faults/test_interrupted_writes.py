"""Interrupted writes: a kill at any moment of `build`, `index` or `sync` leaves the old result or the new one
whole, and the next run recovers."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys

import git
import pytest
from project import REPO, SIGNALS, files_of, kill_after, promise

from atlas import publish


@pytest.mark.parametrize("signum", SIGNALS)
def test_killed_site_build_keeps_the_previous_site(built, signum):
    html = built.root / "site_build" / "html"
    before = files_of(html)
    rng = random.Random(signum)
    for delay in (rng.uniform(0.2, 2.5) for _ in range(3)):
        proc = built.start("build", "--no-check")
        code, err = kill_after(proc, delay, signum, group=signum == signal.SIGTERM)
        assert "Traceback" not in err, err
        after = files_of(html)
        assert after.keys() == before.keys(), "the site changed its file set: half-written"
        assert (html / "index.html").is_file()
    promise(built.atlas("build", "--no-check"), (0, 1))
    assert files_of(html).keys() == before.keys()
    assert not [p for p in html.parent.iterdir() if ".staging-" in p.name or ".old-" in p.name]


@pytest.mark.parametrize("signum", SIGNALS)
def test_killed_index_keeps_a_loadable_graph(project, signum):
    for delay in (0.3, 0.7, 1.1):
        proc = project.start("index", "--force")
        code, err = kill_after(proc, delay, signum)
        assert "Traceback" not in err, err
        shown = project.atlas("show", "Scheduler.schedule", "--framework", "vllm")
        promise(shown)
        assert "allocate_slots" in shown.stdout
    promise(project.atlas("index"))


@pytest.mark.parametrize("signum", (signal.SIGTERM, signal.SIGKILL))
def test_killed_first_sync_is_finished_by_the_next(fresh, signum):
    for delay in (0.2, 0.5, 0.9):
        proc = fresh.start("sync", "--pins", "default,latest")
        code, err = kill_after(proc, delay, signum)
        assert "Traceback" not in err, err
    promise(fresh.atlas("sync", "--pins", "default,latest"))
    promise(fresh.atlas("index"))


REMOTE_LOOP = """
import sys
from pathlib import Path
from atlas.sources.gitops import open_cache_repo
for i in range(10**6):
    open_cache_repo(Path(sys.argv[1]), f"/mirror/{i % 2}/engine.git")
"""


def test_killed_while_setting_the_remote_leaves_a_cache_git_reads(tmp_path):
    """Each sync opens the cache repository and (re)sets its remote: a SIGKILL at any moment of that leaves a
    repository git still reads (a config emptied in place makes it 'not a git repository')."""
    repo_dir = tmp_path / "engine.git"
    rng = random.Random(7)
    for _ in range(20):
        proc = subprocess.Popen(
            [sys.executable, "-c", REMOTE_LOOP, str(repo_dir)],
            env={**os.environ, "PYTHONPATH": str(REPO)},
            stderr=subprocess.PIPE,
            text=True,
        )
        kill_after(proc, rng.uniform(0.6, 1.2), signal.SIGKILL)
        assert git.Repo(repo_dir).git.config("--get", "remote.origin.url").startswith("/mirror/")


def test_folder_publish_keeps_old_on_error_and_clears_dead_leftovers(tmp_path):
    target = tmp_path / "html"
    target.mkdir()
    (target / "old.txt").write_text("old")
    with pytest.raises(RuntimeError):
        with publish.folder(target) as staging:
            (staging / "half.txt").write_text("half")
            raise RuntimeError("killed")
    assert files_of(target) == {"old.txt": b"old"}
    dead = tmp_path / ".html.staging-999999999"  # a staging folder of a process that no longer exists
    dead.mkdir()
    with publish.folder(target) as staging:
        (staging / "new.txt").write_text("new")
    assert files_of(target) == {"new.txt": b"new"} and not dead.exists()


def test_old_folder_moved_aside_is_put_back(tmp_path):
    """A kill between the two renames of the fallback swap: the old folder is restored by the next run."""
    target = tmp_path / "html"
    aside = tmp_path / ".html.old-999999999"
    aside.mkdir()
    (aside / "index.html").write_text("previous")
    publish.recover(target)
    assert (target / "index.html").read_text() == "previous"


def test_file_publish_is_whole_or_absent(tmp_path):
    path = tmp_path / "results.json"
    publish.write_text(path, "one")
    with pytest.raises(ZeroDivisionError):
        with publish.writer(path) as handle:
            handle.write("two, half")
            raise ZeroDivisionError
    assert path.read_text() == "one" and [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_staged_files_equal_to_the_live_ones_are_links_to_them(tmp_path):
    """A staged folder takes the live folder's unchanged files as hard links (nothing written again, nothing freed
    by the swap) and never writes into a file it holds: the live folder stays as it was until the swap."""
    target = tmp_path / "html"
    target.mkdir()
    for name, text in (("same.txt", "same"), ("changed.txt", "old"), ("built.txt", "built"), ("gone.txt", "gone")):
        (target / name).write_text(text)
    inodes = {p.name: p.stat().st_ino for p in target.iterdir()}
    with publish.folder(target) as staging:
        publish.write_new(staging / "same.txt", b"same", target / "same.txt")
        publish.write_new(staging / "changed.txt", b"new", target / "changed.txt")
        (staging / "built.txt").write_text("built")  # as mkdocs writes its pages
        (staging / "other.txt").write_text("other")
        assert publish.share_unchanged(staging, target) == 1
        with pytest.raises(FileExistsError):
            publish.write_new(staging / "same.txt", b"into the live file")
        assert files_of(target) == {
            "same.txt": b"same",
            "changed.txt": b"old",
            "built.txt": b"built",
            "gone.txt": b"gone",
        }
    assert files_of(target) == {
        "same.txt": b"same",
        "changed.txt": b"new",
        "built.txt": b"built",
        "other.txt": b"other",
    }
    assert {
        name: (target / name).stat().st_ino == inodes[name] for name in ("same.txt", "changed.txt", "built.txt")
    } == {"same.txt": True, "changed.txt": False, "built.txt": True}
