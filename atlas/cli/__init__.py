"""The `atlas` command: verb subcommands with thin bodies. Only this package prints. Exit codes: 0 ok,
1 findings, 2 errors (an AtlasError: one line on stderr saying what to do; --debug shows the traceback)."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import logging
import os
import pkgutil
import re
import sys
import textwrap

from atlas import __version__, journal, lifetime, locks
from atlas.cli import output
from atlas.env import CACHE_KNOB, check_knobs
from atlas.env import settings as load_settings
from atlas.errors import AtlasError, environment_problem

READS_CACHE = frozenset({"show", "find", "graph", "index", "check", "build", "diff", "pin"})  # verbs reading checkouts
NO_PROJECT = frozenset({"callgraph"})  # verbs that work on any folder, inside the project or not
HELP_WIDTH = 100  # a verb's description, wrapped


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2) that name the offending word, the nearest valid one, and where to
    read the usage."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}{_did_you_mean(self, message)}; see `{self.prog} --help`\n")


def _did_you_mean(parser: argparse.ArgumentParser, message: str) -> str:
    """`; did you mean --depth` for an unknown option or verb close to a known one."""
    word = re.search(r"unrecognized arguments: (\S+)|invalid choice: '([^']+)'|unknown option (\S+)", message)
    if not word:
        return ""
    wrong = next(w for w in word.groups() if w).split("=", 1)[0]
    known = set(_options(parser)) if wrong.startswith("-") else set(_verbs(parser))
    close = difflib.get_close_matches(wrong, sorted(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]}" if close else ""


def _options(parser: argparse.ArgumentParser):
    """Every option string of `parser` and of the verbs under it."""
    for action in parser._actions:
        yield from action.option_strings
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _options(sub)


def _verbs(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name
                yield from _verbs(sub)


def _unknown_option(top: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """An option before the verb that atlas does not know (argparse would only say the verb is missing)."""
    actions = top._option_string_actions
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--" or not word.startswith("-") or word == "-":
            return None
        name = word.split("=", 1)[0]
        if name not in actions:
            return word
        takes_value = (
            actions[name].nargs is None
            and actions[name].option_strings
            and "=" not in word
            and not isinstance(
                actions[name], (argparse._StoreTrueAction, argparse._VersionAction, argparse._HelpAction)
            )
        )
        i += 2 if takes_value else 1
    return None


def commands() -> list:
    """Every module of this package with a `register(subparsers)` function: one module per verb family."""
    modules = [importlib.import_module(f"atlas.cli.{m.name}") for m in pkgutil.iter_modules(__path__)]
    return [m for m in modules if hasattr(m, "register")]


def _common(suppress: bool) -> argparse.ArgumentParser:
    """Options every verb takes, before or after the verb. Under a verb their defaults are suppressed, so that
    `atlas --root X check` keeps X instead of the verb's default overwriting it."""
    common = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS if suppress else None)
    if not suppress:  # a verb names its own --format choices (`verb`)
        common.add_argument("--format", choices=output.FORMATS, default="human", help="output format (default human)")
    common.add_argument(
        "--pins",
        dest="pin_sets",
        help="pin set(s), comma-separated, as pinned_sources/*.yaml names them: default, latest, cpu, article "
        "(default: default)",
        **({} if suppress else {"default": "default"}),
    )
    common.add_argument("--root", help="project folder holding pinned_sources/ (default: found from the cwd)")
    common.add_argument("--cache", help="clone cache (default $ATLAS_CACHE, else $XDG_CACHE_HOME/atlas)")
    common.add_argument("--mirror", help="folder of <name>.git mirrors standing in for upstream ($ATLAS_MIRROR)")
    common.add_argument("--build", help="build folder for graphs (default $ATLAS_BUILD, else ./build)")
    common.add_argument(
        "--debug", action="store_true", help="show tracebacks", **({} if suppress else {"default": False})
    )
    return common


def verb(
    subparsers,
    name: str,
    summary: str,
    description: str,
    examples: tuple[str, ...],
    formats: tuple[str, ...] = ("human", "json"),
) -> argparse.ArgumentParser:
    """A verb (or a verb's verb): `summary` in its parent's list, `description` and `examples` in its own help,
    the common options, and `--format` with the choices it produces."""
    p = subparsers.add_parser(
        name,
        help=summary,
        description=textwrap.fill(description, HELP_WIDTH),
        epilog="examples:\n" + "\n".join(f"  {e}" for e in examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[_common(True)],
    )
    p.add_argument("--format", choices=formats, default=argparse.SUPPRESS, help=f"output format (default {formats[0]})")
    p.set_defaults(formats=formats)
    return p


def group(subparsers, name: str, summary: str, description: str, examples: tuple[str, ...]):
    """A verb that holds verbs (`atlas graph callees`): its parser's subparsers."""
    p = subparsers.add_parser(
        name,
        help=summary,
        description=textwrap.fill(description, HELP_WIDTH),
        epilog="examples:\n" + "\n".join(f"  {e}" for e in examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return p.add_subparsers(dest="verb", required=True, metavar="VERB", parser_class=_Parser)


def parser() -> argparse.ArgumentParser:
    top = _Parser(
        prog="atlas",
        description="A source-annotated code atlas of vLLM and SGLang: pinned sources, a call graph with provenance, "
        "contracts and claims, runtime evidence; answered on the command line, on the site and over MCP.",
        epilog="Every verb has --help with a description and examples. Exit codes: 0 ok, 1 findings (or nothing "
        "found), 2 errors.",
        parents=[_common(False)],
    )
    top.add_argument("--version", action="version", version=f"atlas {__version__}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    for module in commands():
        module.register(sub)
    return top


class _ToMessages(logging.Handler):
    """Lines other layers log on the `atlas` logger (a lock being waited for) go to stderr as messages."""

    def emit(self, record: logging.LogRecord) -> None:
        output.message(record.getMessage())


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    output.prepare_streams()
    lifetime.on_terminate()
    args = None
    try:
        top = parser()
        try:  # a usage error (or --help) ends here with argparse's exit code, as a return value
            unknown = _unknown_option(top, argv)
            if unknown:
                top.error(f"unknown option {unknown.split('=', 1)[0]}")
            args = top.parse_args(argv)
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else 2
        args.pin_sets = list(dict.fromkeys(s.strip() for s in args.pin_sets.split(",") if s.strip()))  # once each
        args.pins_given = any(a == "--pins" or a.startswith("--pins=") for a in argv)
        log = logging.getLogger("atlas")
        if not any(isinstance(h, _ToMessages) for h in log.handlers):
            log.addHandler(_ToMessages())
            log.propagate = False
        check_knobs()
        if args.command in NO_PROJECT:
            return args.func(args, None)
        settings = load_settings(args.root, args.cache, args.mirror, args.build)
        journal.replay(settings.root)  # a write of several project files a kill interrupted: finished first
        reading = (
            locks.hold(settings.cache, f"atlas {args.command}", shared=True, knob=CACHE_KNOB)
            if args.command in READS_CACHE
            else contextlib.nullcontext()
        )
        with reading:  # the checkouts it reads are not removed under it (`sync --repair` waits)
            return args.func(args, settings)
    except BrokenPipeError:  # handled by `run`: the reader of stdout went away
        raise
    except (AtlasError, OSError, UnicodeError) as exc:
        if args is not None and args.debug:
            raise
        error = environment_problem(exc) if isinstance(exc, (OSError, UnicodeError)) else exc
        output.message(f"atlas: error: {error}")
        return error.exit_code
    except KeyboardInterrupt:
        _end_quietly()
        output.message("atlas: interrupted; run the command again to finish (nothing half-written is kept)")
        return 130
    except lifetime.Terminated as exc:
        _end_quietly()
        output.message("atlas: terminated; run the command again to finish (nothing half-written is kept)")
        return 128 + exc.signum


def _end_quietly() -> None:
    """After an interruption, objects it cut short in their `__init__` (a library's, such as gitpython's config
    parser) may fail in their finalizers as they are freed; the one-line message says what happened, so Python's
    "Exception ignored in ..." reports of those are not shown."""
    sys.unraisablehook = lambda unraisable: None


def run() -> None:
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:  # the reader of stdout went away (`atlas ... | head -1`): end quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 141
    except OSError as exc:  # what was left in stdout's buffer could not be written (a full disk under a redirect)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        output.message(f"atlas: error: cannot write the output ({exc.strerror}); check where stdout goes")
        code = 2
    except KeyboardInterrupt:  # a second Ctrl-C while the first one's message was being written
        _end_quietly()
        code = 130
    sys.exit(code)
