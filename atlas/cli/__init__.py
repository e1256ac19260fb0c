"""The `atlas` command: verb subcommands with thin bodies. Only this package prints. Exit codes: 0 ok,
1 findings, 2 errors (an AtlasError: one line on stderr saying what to do; --debug shows the traceback)."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from atlas import __version__
from atlas.cli import output
from atlas.env import settings as load_settings
from atlas.errors import AtlasError



def commands() -> list:
    """Every module of this package with a `register(subparsers)` function: one module per verb family."""
    modules = [importlib.import_module(f"atlas.cli.{m.name}") for m in pkgutil.iter_modules(__path__)]
    return [m for m in modules if hasattr(m, "register")]


def _common(suppress: bool) -> argparse.ArgumentParser:
    """Options every verb takes, before or after the verb. Under a verb their defaults are suppressed, so that
    `atlas --root X check` keeps X instead of the verb's default overwriting it."""
    common = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS if suppress else None)
    common.add_argument("--format", choices=output.FORMATS, help="output format (default human)",
                        **({} if suppress else {"default": "human"}))
    common.add_argument("--pins", dest="pin_sets", help="pin set(s), comma-separated: default, latest, article "
                        "(default: default)", **({} if suppress else {"default": "default"}))
    common.add_argument("--root", help="project folder holding pinned_sources/ (default: found from the cwd)")
    common.add_argument("--cache", help="clone cache (default $ATLAS_CACHE, else $XDG_CACHE_HOME/atlas)")
    common.add_argument("--mirror", help="folder of <name>.git mirrors standing in for upstream ($ATLAS_MIRROR)")
    common.add_argument("--build", help="build folder for graphs (default $ATLAS_BUILD, else ./build)")
    common.add_argument("--debug", action="store_true", help="show tracebacks",
                        **({} if suppress else {"default": False}))
    return common


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="atlas", description="A source-annotated code atlas of vLLM and SGLang.",
                                  epilog="Exit codes: 0 ok, 1 findings, 2 errors.", parents=[_common(False)])
    top.add_argument("--version", action="version", version=f"atlas {__version__}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    original = sub.add_parser
    verb_common = _common(True)

    def add_parser(name, **kwargs):
        kwargs.setdefault("parents", [verb_common])
        return original(name, **kwargs)

    sub.add_parser = add_parser
    for module in commands():
        module.register(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    args.pin_sets = [s.strip() for s in args.pin_sets.split(",") if s.strip()]
    try:
        settings = load_settings(args.root, args.cache, args.mirror, args.build)
        return args.func(args, settings)
    except AtlasError as exc:
        if args.debug:
            raise
        output.message(f"atlas: error: {exc}")
        return exc.exit_code
    except KeyboardInterrupt:
        output.message("atlas: interrupted; run the command again to finish (nothing half-written is kept)")
        return 130


def run() -> None:
    sys.exit(main())
