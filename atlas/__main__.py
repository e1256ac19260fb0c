"""The `atlas` program's entry point (`python -m atlas`, and the console script): until the command has set up its
own handling, Ctrl-C or SIGTERM ends the process quietly; then atlas.cli runs."""

from __future__ import annotations

import os
import signal
import sys


def _early(signum, frame) -> None:
    os._exit(128 + signum)  # nothing is written before the command starts: end without a traceback


def run() -> None:
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _early)
    for name in ("stdout", "stderr"):  # closed (`>&-`): written to /dev/null, as the rest of the CLI expects a stream
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - open while the process runs
    from atlas.cli import run as cli_run

    signal.signal(signal.SIGINT, signal.default_int_handler)  # the command's own handling from here on
    cli_run()


if __name__ == "__main__":
    run()
