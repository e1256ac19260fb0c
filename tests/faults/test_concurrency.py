"""Concurrency: two atlas processes on one cache or one build folder both succeed (one waits, saying so in one line)
or one refuses in one line."""

from __future__ import annotations

import fcntl
import os

from project import promise

from atlas import locks


def _both(project, *args, env=None):
    procs = [project.start(*args, env=env) for _ in range(2)]
    return [(p.wait(timeout=300), p.communicate()[1]) for p in procs]


def test_two_first_syncs_at_once_both_succeed(fresh):
    results = _both(fresh, "sync", "--pins", "default,latest")
    for result in results:
        promise(result)
    waits = [err for _, err in results if "waiting for another atlas process" in err]
    assert all(len(err.strip().splitlines()) == 1 for err in waits)
    promise(fresh.atlas("index"))


def test_two_forced_index_runs_at_once_both_succeed(project):
    for result in _both(project, "index", "--force"):
        promise(result)
    promise(project.atlas("show", "Scheduler.schedule", "--framework", "sglang"))


def test_two_site_builds_at_once_both_succeed(built):
    for result in _both(built, "build", "--no-check"):
        promise(result, (0, 1))
    assert (built.root / "site_build" / "html" / "index.html").is_file()


def test_a_held_lock_is_refused_in_one_line_when_told_not_to_wait(project):
    path = project.build / locks.NAME
    with open(path, "a+") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        done = project.atlas("index", "--force", env={"ATLAS_LOCK_WAIT": "0"})
    promise(done, (2,))
    assert "another atlas process" in done.stderr and str(project.build) in done.stderr


def test_a_waiting_process_says_so_once_then_finishes(project):
    path = project.cache / locks.NAME
    held = open(path, "a+")
    fcntl.flock(held.fileno(), fcntl.LOCK_EX)
    proc = project.start("sync", "--repair", "vllm")
    try:
        first = proc.stderr.readline()  # written once it finds the lock held
        assert "waiting for another atlas process" in first and proc.poll() is None
    finally:
        held.close()
    code, rest = proc.wait(timeout=120), proc.communicate()[1]
    promise((code, rest))
    assert "waiting" not in rest


def test_lock_is_reentrant_and_released_at_exit(tmp_path):
    with locks.hold(tmp_path, "outer"):
        with locks.hold(tmp_path, "inner"):
            pass
        pid = os.fork()
        if pid == 0:  # another process cannot take it meanwhile
            fd = os.open(tmp_path / locks.NAME, os.O_RDWR)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                os._exit(1)
            except BlockingIOError:
                os._exit(0)
        assert os.waitpid(pid, 0)[1] == 0
    fd = os.open(tmp_path / locks.NAME, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.close(fd)
