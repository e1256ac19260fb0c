"""How atlas processes end: SIGTERM becomes an exception in the command (so its cleanup runs, as for Ctrl-C), and
every worker process atlas starts is tied to its parent (Linux parent-death signal), so no worker outlives a killed
command."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal

_PR_SET_PDEATHSIG = 1


class Terminated(BaseException):
    """SIGTERM (or SIGHUP) arrived: unwind like KeyboardInterrupt, running every cleanup on the way."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise(signum, frame) -> None:
    raise Terminated(signum)


def on_terminate() -> None:
    """Turn SIGTERM and SIGHUP into Terminated in this process (the CLI calls it once at start)."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(ValueError, OSError):  # not the main thread: leave the default
            signal.signal(signum, _raise)


_ENDING = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}


@contextlib.contextmanager
def forking():
    """Hold off SIGTERM, SIGINT and SIGHUP while starting workers: a signal landing mid-fork would otherwise raise in
    the child's at-fork handlers. The parent gets any that arrived once the block ends; workers in tie_to_parent."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _ENDING)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def tie_to_parent(parent: int | None = None) -> None:
    """Call first thing in a worker: the kernel kills it when its parent dies (however it dies); a worker whose
    parent is already gone ends at once. Default signal actions are restored (a signal ends it plainly, without a
    traceback) and the signals `forking` held off are let through."""
    for signum in _ENDING:
        with contextlib.suppress(ValueError, OSError):
            signal.signal(signum, signal.SIG_DFL)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if parent is not None and os.getppid() != parent:
        os._exit(1)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _ENDING)
