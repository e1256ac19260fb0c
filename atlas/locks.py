"""The one lock between atlas processes: an exclusive flock on `<folder>/.atlas.lock` (the cache, a build folder, a
site folder) held while a command writes there. A second process waits, saying so once on the `atlas` logger, and
refuses in one line after ATLAS_LOCK_WAIT seconds. Re-entrant within a process; released by the kernel at exit."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

from atlas.env import lock_wait
from atlas.errors import AtlasError

log = logging.getLogger("atlas")
NAME = ".atlas.lock"
_held: dict[Path, list] = {}  # lock file -> [fd, depth, mode] in this process


class Busy(AtlasError):
    """Another atlas process held the folder longer than we would wait."""


class ReadOnly(AtlasError):
    """The folder cannot be written (a read-only cache or build folder) and the command needs to write there."""


@contextlib.contextmanager
def hold(folder: Path, doing: str, shared: bool = False, knob: str = "") -> Iterator[None]:
    """Hold the lock of `folder` (created if needed) while `doing` (words for the messages: 'syncing sources');
    `knob`: the setting that chooses the folder, named when it cannot be written.
    `shared`: a reader's lock, held by many at once, which keeps writers (exclusive) out while it reads; a reader
    on a read-only folder needs no lock (nobody can write there). A process holding the shared lock may take the
    exclusive one inside it (converted while held, back to shared after)."""
    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    path = Path(folder).resolve() / NAME
    entry = _held.get(path)
    if entry is not None:
        fd, _, held_mode = entry
        upgrade = held_mode == fcntl.LOCK_SH and mode == fcntl.LOCK_EX
        if upgrade:
            _acquire(fd, path, doing, mode)
            _claim(fd, doing)
            entry[2] = mode
        entry[1] += 1
        try:
            yield
        finally:
            entry[1] -= 1
            if upgrade:
                fcntl.flock(fd, fcntl.LOCK_SH)
                entry[2] = fcntl.LOCK_SH
        return
    fd = _open(path, doing, shared, knob)
    if fd is None:
        yield
        return
    try:
        _acquire(fd, path, doing, mode)
        if mode == fcntl.LOCK_EX:
            _claim(fd, doing)
        _held[path] = [fd, 1, mode]
        try:
            yield
        finally:
            del _held[path]
            if _held.get(path) is None and mode == fcntl.LOCK_EX:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, 0)  # no longer the holder's name once it is released
    finally:
        os.close(fd)  # closing drops the flock


def _claim(fd: int, doing: str) -> None:
    """Say who holds the lock (read by a waiting process for its message)."""
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()} {doing}\n".encode(), 0)


def _open(path: Path, doing: str, shared: bool, knob: str) -> int | None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir() and not path.is_symlink():  # a folder where the lock file belongs: only ever a folder
            shutil.rmtree(path, ignore_errors=True)  # is removed (a lock file made meanwhile is left alone)
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        if shared:  # a folder that cannot be written: lock if a lock file is there, else nobody can be writing
            try:
                return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                return None
        fix = f"point {knob} at a folder you can write" if knob else f"make {path.parent} writable"
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise ReadOnly(f"{path.parent} is read-only ({exc.strerror}), and {doing} writes there; {fix}") from None
        raise ReadOnly(f"cannot create {path.parent} ({exc.strerror}), and {doing} writes there; {fix}") from None


def _acquire(fd: int, path: Path, doing: str, mode: int) -> None:
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    holder = _holder(path)
    wait = lock_wait()
    if wait <= 0:
        raise Busy(
            f"another atlas process ({holder}) is using {path.parent}; wait for it to finish, then run the "
            "command again"
        )
    log.warning(f"atlas: waiting for another atlas process ({holder}) using {path.parent} ...")
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise Busy(
                    f"another atlas process ({holder}) has been using {path.parent} for over {wait:.0f} s; "
                    f"wait for it to finish (or raise ATLAS_LOCK_WAIT), then run the command again"
                ) from None
            time.sleep(0.1)


def _holder(path: Path) -> str:
    try:
        pid, _, doing = path.read_text().strip().partition(" ")
        return f"pid {pid}, {doing}" if pid else "reading it"
    except OSError:
        return "reading it"
