"""How the CLI talks: data on stdout (deterministic JSON or plain text), messages and progress on stderr, colour
only on a terminal and never with NO_COLOR."""

from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn

from atlas.errors import AtlasError, ConfigError

FORMATS = ("human", "json", "markdown", "github", "dot", "mermaid", "pycg")


def require(args) -> None:
    """Refuse a --format this command does not produce (given before the verb), naming the ones it does."""
    supported = getattr(args, "formats", FORMATS)
    if args.format not in supported:
        raise ConfigError(
            f"atlas {args.command} does not produce --format {args.format}; choose one of: {', '.join(supported)}"
        )


def paged(text_out: str) -> None:
    """Long human output, whole: through the terminal's pager ($PAGER, else `less -FRX`) when stdout is a
    terminal, else written as it is."""
    if not sys.stdout.isatty() or text_out.count("\n") < os.get_terminal_size().lines:
        _write(text_out + ("" if text_out.endswith("\n") else "\n"))
        return
    import pydoc

    os.environ.setdefault("LESS", "FRX")
    pydoc.pager(text_out)


def _colour() -> bool:
    return sys.stderr is not None and sys.stderr.isatty() and not os.environ.get("NO_COLOR")


err = Console(stderr=True, highlight=False, no_color=not _colour(), soft_wrap=True)


def prepare_streams() -> None:
    """A closed stdout or stderr (`>&-`) is written to /dev/null; text the terminal's encoding cannot hold (an ASCII
    locale) is written escaped (`\\u2192`), never an error."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - open while the process runs
        reconfigure = getattr(getattr(sys, name), "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def _write(text: str) -> None:
    """Write to stdout; a failure other than a closed pipe (a full disk under a redirect) is an error saying so."""
    try:
        sys.stdout.write(text)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise AtlasError(f"cannot write the output ({exc.strerror}); check where stdout goes") from None


def _holds_unicode(stream) -> bool:
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    return encoding.startswith(("utf8", "utf16", "utf32"))


def data(obj) -> None:
    """Write machine-readable output: sorted keys, stable across runs; escaped as JSON allows where stdout's
    encoding cannot hold the text."""
    _write(json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=not _holds_unicode(sys.stdout)) + "\n")


def text(line: str = "") -> None:
    _write(line + "\n")


def message(line: str) -> None:
    err.print(line, markup=False)


@contextmanager
def progress(label: str):
    """A callback (stage, fraction) drawing a rich progress bar on stderr; silent when stderr is not a terminal."""
    if not sys.stderr.isatty():
        yield None
        return
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%"),
        console=err,
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=1.0)

        def report(stage: str, fraction: float) -> None:
            bar.update(task, description=f"{label}: {stage}", completed=fraction)

        yield report
