"""The `atlas` program's entry point (`python -m atlas`, and the console script): until the command has set up its
own handling, Ctrl-C or SIGTERM ends the process quietly; then atlas.cli runs."""

from __future__ import annotations

import os
import signal


def _early(signum, frame) -> None:
    os._exit(128 + signum)  # nothing is written before the command starts: end without a traceback


def run() -> None:
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _early)
    from atlas.cli import run as cli_run

    signal.signal(signal.SIGINT, signal.default_int_handler)  # the command's own handling from here on
    cli_run()


if __name__ == "__main__":
    run()
