"""The one lock between atlas processes: an exclusive flock on `<folder>/.atlas.lock` (the cache, a build folder, a
site folder) held while a command writes there. A second process waits, saying so once on the `atlas` logger, and
refuses in one line after ATLAS_LOCK_WAIT seconds. Re-entrant within a process; released by the kernel at exit."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path

from atlas.env import lock_wait
from atlas.errors import AtlasError

log = logging.getLogger("atlas")
NAME = ".atlas.lock"
_held: dict[Path, tuple[int, int]] = {}  # lock file -> (fd, depth)


class Busy(AtlasError):
    """Another atlas process held the folder longer than we would wait."""


class ReadOnly(AtlasError):
    """The folder cannot be written (a read-only cache or build folder) and the command needs to write there."""


@contextlib.contextmanager
def hold(folder: Path, doing: str) -> Iterator[None]:
    """Hold the lock of `folder` (created if needed) while `doing` (words for the messages: 'syncing sources')."""
    path = Path(folder).resolve() / NAME
    if path in _held:
        fd, depth = _held[path]
        _held[path] = (fd, depth + 1)
        try:
            yield
        finally:
            fd, depth = _held[path]
            _held[path] = (fd, depth - 1)
        return
    fd = _open(path, doing)
    try:
        _acquire(fd, path, doing)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {doing}\n".encode())
        _held[path] = (fd, 1)
        try:
            yield
        finally:
            del _held[path]
    finally:
        os.close(fd)  # closing drops the flock


def _open(path: Path, doing: str) -> int:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise ReadOnly(f"{path.parent} is read-only ({exc.strerror}), and {doing} writes there; point "
                           f"{_knob(path.parent)} at a writable folder") from None
        raise


def _knob(folder: Path) -> str:
    return "--build (ATLAS_BUILD)" if "build" in folder.name else "--cache (ATLAS_CACHE)"


def _acquire(fd: int, path: Path, doing: str) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    holder = _holder(path)
    wait = lock_wait()
    if wait <= 0:
        raise Busy(f"another atlas process ({holder}) is using {path.parent}; wait for it to finish, then run the "
                   "command again")
    log.warning(f"atlas: waiting for another atlas process ({holder}) using {path.parent} ...")
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise Busy(f"another atlas process ({holder}) has been using {path.parent} for over {wait:.0f} s; "
                           f"wait for it to finish (or raise ATLAS_LOCK_WAIT), then run the command again") from None
            time.sleep(0.1)


def _holder(path: Path) -> str:
    try:
        pid, _, doing = path.read_text().strip().partition(" ")
        return f"pid {pid}, {doing}" if pid else "unknown"
    except OSError:
        return "unknown"
