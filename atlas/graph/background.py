"""Run one pure function in a forked child while the parent works on (the kernel layer beside call resolution): the
child inherits the arguments (nothing is pickled on the way in) and sends its result back through a pipe."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable

from atlas import env, lifetime


def start(fn: Callable, *args) -> Callable[[], object]:
    """Begin `fn(*args)`; returns a function that waits for its result (or raises what it raised). Where fork is
    not available, or ATLAS_NO_FORK is set, `fn` runs when the result is asked for. The child is a daemon: it ends
    with its parent, and may not start processes of its own."""
    if env.no_fork() or "fork" not in multiprocessing.get_all_start_methods():
        return lambda: fn(*args)
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_run, args=(send, fn, args, os.getpid()), daemon=True)
    with lifetime.forking():
        child.start()
    send.close()

    def result():
        try:
            ok, value = receive.recv()
        except EOFError:
            child.join()
            raise RuntimeError(
                f"{getattr(fn, '__name__', fn)} died in its child process "
                f"(exit code {child.exitcode}); set ATLAS_NO_FORK=1 to run it in-process"
            ) from None
        child.join()
        if not ok:
            raise value
        return value

    return result


_RETAINED: list = []
_IN_CHILD = False


def retain(*objects) -> None:
    """In a child `start` forked, keep `objects` until the child ends: it ends with os._exit, which frees its memory
    at once, where dropping a million objects one by one costs a second. Elsewhere this does nothing."""
    if _IN_CHILD:
        _RETAINED.append(objects)


def mark_child() -> None:
    """This process is a child forked for a part of a build (its exit frees its memory at once: see `retain`)."""
    global _IN_CHILD
    _IN_CHILD = True


def _run(send, fn: Callable, args: tuple, parent: int) -> None:
    lifetime.tie_to_parent(parent)
    mark_child()
    try:
        send.send((True, fn(*args)))
    except BaseException as exc:  # noqa: BLE001 - carried to the parent, raised there
        send.send((False, exc))
    finally:
        send.close()
