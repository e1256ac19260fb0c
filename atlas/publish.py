"""Atomic publication of results: every file or folder atlas writes as a result goes through here, so that a kill at
any moment leaves either the old result or the new one, never half of one. Files: staged beside the target, fsynced,
renamed over it. Folders: built in a staging folder beside the target, swapped with it in one rename."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

_STAGING, _OLD, _TRASH = ".staging-", ".old-", ".trash-"


def write_bytes(path: Path, data: bytes) -> None:
    """Replace `path` with `data` atomically (staging file beside it, fsync, rename, fsync of the folder)."""
    with _staged(path, "wb") as handle:
        handle.write(data)


def write_text(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def writer(path: Path):
    """A text handle for writing `path` in pieces; the file appears whole (atomically) when the block ends."""
    return _staged(path, "w")


@contextlib.contextmanager
def _staged(path: Path, mode: str) -> Iterator:
    """A handle on a staging file beside `path` ("w": text, UTF-8; "wb": bytes), flushed, synced and renamed over
    `path` when the block ends normally, removed when it raises; then the folder is synced."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}{_STAGING}{os.getpid()}")
    try:
        with open(tmp, mode, encoding=None if "b" in mode else "utf-8") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


@contextlib.contextmanager
def folder(target: Path) -> Iterator[Path]:
    """Build a folder to replace `target`: yields an empty staging folder beside it; when the block ends normally the
    staging folder takes `target`'s place in one atomic exchange and the old one is removed. On an exception or a
    signal the staging folder is removed and `target` is untouched. Leftovers of killed runs are cleared first."""
    target = Path(target)
    recover(target)
    staging = target.with_name(f".{target.name}{_STAGING}{os.getpid()}")
    _remove(staging)
    staging.mkdir(parents=True)
    try:
        yield staging
    except BaseException:
        _remove(staging)
        raise
    swap(staging, target)


def swap(staging: Path, target: Path) -> None:
    """Put the finished folder `staging` at `target`, atomically; the previous `target` (if any) is removed after."""
    if not target.exists():
        os.rename(staging, target)
    elif _exchange(staging, target):  # staging now holds the old folder
        _remove(staging)
    else:  # no renameat2 here: two renames; recover() puts the old one back if a kill falls between them
        old = target.with_name(f".{target.name}{_OLD}{os.getpid()}")
        os.rename(target, old)
        os.rename(staging, target)
        _remove(old)
    _fsync_folder(target.parent)


def discard(target: Path) -> None:
    """Remove a file or folder as one step: renamed aside first (a kill then leaves it whole or gone), then deleted;
    what a killed run left aside is deleted by the next `recover` of the same target."""
    target = Path(target)
    recover(target)
    if not (target.exists() or target.is_symlink()):
        return
    aside = target.with_name(f".{target.name}{_TRASH}{os.getpid()}")
    _remove(aside)
    os.rename(target, aside)
    _fsync_folder(target.parent)
    _remove(aside)


def recover(target: Path) -> None:
    """Clear what killed runs left beside `target`: staging folders of dead processes, and an old folder moved
    aside (put back when `target` itself is missing)."""
    parent = target.parent
    if not parent.is_dir():
        return
    for leftover in parent.glob(f".{target.name}.*-*"):
        kind, _, pid = leftover.name[len(target.name) + 1:].rpartition("-")
        if f"{kind}-" not in (_STAGING, _OLD, _TRASH) or not pid.isdigit() or _alive(int(pid)):
            continue
        if kind + "-" == _OLD and not target.exists():
            os.rename(leftover, target)
        else:
            _remove(leftover)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where the system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return result == 0


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    elif path.exists():
        for p in [path, *path.rglob("*")]:  # read-only checkouts: make writable first
            if not p.is_symlink():
                with contextlib.suppress(OSError):
                    p.chmod(p.stat().st_mode | 0o200)
        shutil.rmtree(path, ignore_errors=True)


def _fsync_folder(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
