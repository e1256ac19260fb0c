"""`atlas experiments VERB`: the article's experiments on the real engines. `report` joins the article's A100
figures with the committed H200 results; further verbs register in VERBS."""

from __future__ import annotations

import argparse

from atlas.cli import output
from atlas.runtime.experiments.report import collect
from atlas.runtime.experiments.tables import render_human, render_markdown, to_json


def register(sub) -> None:
    p = sub.add_parser("experiments", help="the article's experiments (sections 2-10): report (more verbs to come)")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    for add in VERBS:
        add(verbs)


def _verb(verbs, name: str, **kwargs) -> argparse.ArgumentParser:
    """A sub-verb that takes the global options (--format, --root, ...) after its name too, as the verbs do."""
    from atlas.cli import _common
    return verbs.add_parser(name, parents=[_common(True)], **kwargs)


def _add_report(verbs) -> None:
    q = _verb(verbs, "report", help="per scenario: the article's A100 figure, atlas's H200 figures with probes absent "
                                    "and on, and the evidence lines; scenarios without results say 'not run'")
    q.add_argument("names", nargs="*", metavar="NAME", help="scenarios (default: all nine)")
    q.set_defaults(func=report)


VERBS = [_add_report]


def report(args, settings) -> int:
    output.require(args, "human", "json", "markdown")
    result = collect(settings.root, args.names or None)
    if args.format == "json":
        output.data(to_json(result))
    elif args.format == "markdown":
        output.text(render_markdown(result).rstrip("\n"))
    else:
        output.text(render_human(result))
    return 0
