"""Atomic publication of results: every file or folder atlas writes as a result goes through here, so that a kill at
any moment leaves either the old result or the new one, never half of one. Files: staged beside the target, fsynced,
renamed over it. Folders: built in a staging folder beside the target, swapped with it in one rename; a file equal
to the one it replaces is a hard link to it (`write_new`, `share_unchanged`), so the swap frees only what changed.
Files in a staging folder are therefore never rewritten in place: a link shares its bytes with the live folder."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import shutil
import stat
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
    sync_folder(path.parent)


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
    sync_folder(target.parent)


def write_new(path: Path, data: bytes, previous: Path | None = None) -> None:
    """Create `path` (in a staging folder) holding `data`, or, when `previous` (the same file in the folder being
    replaced) holds the same bytes, as a hard link to it: an unchanged file is neither written again nor freed when
    the old folder goes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if previous is not None and _holds(previous, data):
        try:
            os.link(previous, path)
            return
        except OSError:  # a file system without hard links: written as any other
            pass
    with open(path, "xb") as handle:  # never into an existing file: it may be a link into the live folder
        handle.write(data)


def share_unchanged(staging: Path, previous: Path) -> int:
    """Replace each file written into `staging` that equals its counterpart in `previous` (the folder `staging`
    replaces) by a hard link to that one; returns how many were replaced."""
    num_shared = 0
    for folder, _, names in os.walk(staging):
        for name in names:
            path = os.path.join(folder, name)
            old = os.path.join(previous, os.path.relpath(path, staging))
            try:
                written = os.lstat(path)
                if (
                    written.st_nlink != 1
                    or not stat.S_ISREG(written.st_mode)
                    or os.stat(old).st_size != written.st_size
                ):  # already shared, not a plain file, or changed
                    continue
                with open(path, "rb") as handle:
                    if not _holds(old, handle.read()):
                        continue
            except OSError:  # the previous folder lacks it
                continue
            tmp = f"{path}{_STAGING}{os.getpid()}"
            try:
                os.link(old, tmp)
                os.replace(tmp, path)
                num_shared += 1
            except OSError:  # it cannot be linked: the written copy stays
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
    return num_shared


def _holds(path: Path | str, data: bytes) -> bool:
    """Whether the plain file at `path` holds exactly `data`."""
    try:
        with open(path, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode) or os.fstat(handle.fileno()).st_size != len(data):
                return False
            return handle.read() == data
    except OSError:
        return False


def make_room(path: Path, top: Path, is_folder: bool = False) -> None:
    """Clear what stands in the way of writing `path` (a file, or a folder with `is_folder`) inside `top`, a folder
    atlas owns (a cache, a build folder, a site's memo): a file or a broken link where one of its folders belongs, or a
    thing of the other kind at `path` itself, is removed (atlas.publish.discard), so the write makes it anew."""
    path, top = Path(path), Path(top)
    if top not in path.parents:
        return
    for folder in [*reversed(path.relative_to(top).parents[:-1]), None]:
        here = top / folder if folder is not None else path
        wants_folder = folder is not None or is_folder
        if not (here.exists() or here.is_symlink()):
            return
        if here.is_dir() != wants_folder:
            discard(here)
            return


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
    sync_folder(target.parent)
    _remove(aside)


def recover(target: Path) -> None:
    """Clear what killed runs left beside `target`: staging folders of dead processes, and an old folder moved
    aside (put back when `target` itself is missing)."""
    parent = target.parent
    if not parent.is_dir():
        return
    for leftover in parent.glob(f".{target.name}.*-*"):
        kind, _, pid = leftover.name[len(target.name) + 1 :].rpartition("-")
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
        shutil.rmtree(path, onerror=functools.partial(_retry_writable, str(path)))


def _retry_writable(root: str, step, path: str, _) -> None:
    """rmtree's error handler: a step refused in a read-only folder under `root` (checkouts are read-only) is
    retried once that folder is writable; what still fails is left, as rmtree's ignore_errors would."""
    with contextlib.suppress(OSError):
        for folder in (os.path.dirname(path), os.fspath(path)):
            if (folder + os.sep).startswith(root + os.sep) and os.path.isdir(folder) and not os.path.islink(folder):
                os.chmod(folder, os.stat(folder).st_mode | 0o700)
        step(path)


def sync_folder(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
