"""`atlas experiments VERB`: the article's experiments on the real engines. `report` joins the article's A100
figures with the committed H200 results; further verbs register in VERBS."""

from __future__ import annotations

import argparse
from pathlib import Path

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
    q = _verb(
        verbs,
        "report",
        help="per scenario: the article's A100 figure, atlas's H200 figures with probes absent "
        "and on, and the evidence lines; scenarios without results say 'not run'",
    )
    q.add_argument("names", nargs="*", metavar="NAME", help="scenarios (default: all nine)")
    q.set_defaults(func=report)


def _add_run(verbs) -> None:
    q = _verb(
        verbs,
        "run",
        help="run the scenarios on this machine's engines (one engine start per framework and "
        "variant, probes on and absent) and write a results file per scenario",
    )
    q.add_argument("names", nargs="*", metavar="NAME", help="scenarios (default: all nine)")
    q.add_argument("--framework", action="append", choices=("vllm", "sglang"), help="only this engine; repeatable")
    q.add_argument("--device", choices=("cpu", "cuda"), default="cuda")
    q.add_argument("--variant", action="append", default=[], help="only this engine variant (e.g. graph)")
    q.add_argument("--config", action="append", default=[], metavar="KEY=VALUE", help="workload overrides")
    q.add_argument("--model", type=Path, help="folder with a config.json (default: atlas's model for the device)")
    q.add_argument("--python", help="the engines' interpreter (default $ATLAS_ENGINE_PYTHON, else this one)")
    q.add_argument("--out", type=Path, default=Path("build/experiments"), help="trace folders, one per job")
    q.add_argument("--results", type=Path, help="results folder (default: results/experiments of the project)")
    q.add_argument("--timeout", type=float, default=900.0, help="seconds before an engine is stopped")
    q.set_defaults(func=run)


VERBS = [_add_report, _add_run]


def run(args, settings) -> int:
    from atlas.cli.trace import parse_config
    from atlas.runtime.experiments import results as rs
    from atlas.runtime.experiments import run as runner
    from atlas.runtime.experiments import scenarios as sc
    from atlas.runtime.trace import model_dir

    chosen = sc.apply_config(sc.pick(args.names or None), parse_config(args.config))
    frameworks = tuple(args.framework or ("vllm", "sglang"))
    model = model_dir(args.model, args.device)
    opts = runner.RunOptions(
        out=args.out.resolve(),
        device=args.device,
        model=model,
        python=args.python,
        pin_set=args.pin_sets[0],
        timeout_s=args.timeout,
    )
    command = "atlas experiments run " + " ".join(args.names or ["(all)"])
    folder = args.results or settings.root / "results" / "experiments"
    failed = 0
    for result in runner.run_scenarios(chosen, frameworks, opts, settings, model, command, tuple(args.variant)):
        output.message(
            f"{result['scenario']}: {rs.write(result, folder)} ({len(result['rows'])} figures, "
            f"{len(result['errors'])} errors)"
        )
        failed += bool(result["errors"])
    return 1 if failed else 0


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
