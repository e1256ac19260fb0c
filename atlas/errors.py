"""The one error hierarchy of atlas. Each message says what went wrong and what to do; the CLI prints it on one
line and exits 2. Problems found *in the analysed code* are Findings (atlas.model), not errors."""

from __future__ import annotations

import errno
import sys


class AtlasError(Exception):
    """Base of every error atlas reports to the user."""

    exit_code = 2


class ConfigError(AtlasError):
    """A manifest, annotation or option is malformed; the message names file:line where there is one."""


class SourceError(AtlasError):
    """Git, the remote or the cache failed: unreachable remote, unknown ref, corrupt cache, no space."""


class SymbolNotFound(AtlasError):
    """A symbol name matched nothing, or matched several (the message lists the candidates)."""


class BuildMissing(AtlasError):
    """A query needs a build that does not exist yet."""


class BuildFailed(AtlasError):
    """A build step could not finish (a worker process died); what was built before is kept."""


class EnvironmentProblem(AtlasError):
    """The machine refused what atlas needed of it: a full disk, a path that cannot be created or written."""


_FOLDERS = "--cache (ATLAS_CACHE), --build (ATLAS_BUILD) or --out"


def environment_problem(exc: OSError | UnicodeError) -> EnvironmentProblem:
    """An OSError that reached the command's top, in one line saying what to do. What atlas writes is staged and
    switched in whole (atlas.publish), so what a failed write leaves is cleared by the next run. A UnicodeError
    there is a path or text the locale's encoding cannot hold (`LC_ALL=C` without Python's UTF-8 mode)."""
    if isinstance(exc, UnicodeError):
        return EnvironmentProblem(
            f"a path or text that this locale's encoding ({sys.getfilesystemencoding()}) cannot hold; run atlas in "
            "a UTF-8 locale (LC_ALL=C.UTF-8) or with PYTHONUTF8=1"
        )
    where = f" ({exc.filename})" if exc.filename else ""
    reason = exc.strerror or type(exc).__name__
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return EnvironmentProblem(
            f"no space left on the device{where}; free some space (or point {_FOLDERS} at another disk) and run "
            "the command again: nothing half-written was kept"
        )
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return EnvironmentProblem(
            f"cannot write{where}: {reason}; make it writable, or point {_FOLDERS} at a folder you can write"
        )
    if exc.errno in (errno.ENOTDIR, errno.EEXIST, errno.EISDIR):
        return EnvironmentProblem(
            f"{reason}{where}: a file stands where a folder belongs, or the reverse; move it away (or point "
            f"{_FOLDERS} elsewhere) and run the command again"
        )
    return EnvironmentProblem(f"{reason}{where}; check that path (or point {_FOLDERS} elsewhere) and run again")
