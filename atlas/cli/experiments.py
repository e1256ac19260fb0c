"""`atlas experiments VERB`: the article's experiments on the real engines. `report` joins the article's A100
figures with the committed H200 results; further verbs register in VERBS."""

from __future__ import annotations

from pathlib import Path

from atlas.cli import group, output, verb
from atlas.runtime.experiments.report import collect
from atlas.runtime.experiments.tables import render_human, render_markdown, to_json


def register(sub) -> None:
    verbs = group(
        sub,
        "experiments",
        "the article's experiments (sections 2-10): run them, report them beside the article's figures",
        "The article's nine experiments as data: `run` runs every engine variant each needs with probes on and absent "
        "and writes a results file with evidence lines; `report` sets the article's A100 figures beside atlas's.",
        ("atlas experiments report", "atlas experiments run prefix-cache --framework sglang"),
    )
    for add in VERBS:
        add(verbs)


def _add_report(verbs) -> None:
    q = verb(
        verbs,
        "report",
        "the article's A100 figures beside atlas's H200 figures, with the evidence lines",
        "Per scenario: the article's A100 figure, atlas's H200 figures with probes absent and on, and the evidence "
        "lines (symbol, file:line at the pin); scenarios without results say 'not run'.",
        ("atlas experiments report", "atlas experiments report prefix-cache --format markdown"),
        ("human", "json", "markdown"),
    )
    q.add_argument("names", nargs="*", metavar="NAME", help="scenarios (default: all nine)")
    q.set_defaults(func=report)


def _add_run(verbs) -> None:
    q = verb(
        verbs,
        "run",
        "run the scenarios on this machine's engines and write a results file per scenario",
        "Run the scenarios on this machine's engines (one engine start per framework and variant, probes on and "
        "absent) and write a results file per scenario into results/experiments (or --results).",
        ("atlas experiments run", "atlas experiments run prefix-cache --framework vllm --device cpu"),
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
    output.require(args)
    result = collect(settings.root, args.names or None)
    if args.format == "json":
        output.data(to_json(result))
    elif args.format == "markdown":
        output.text(render_markdown(result).rstrip("\n"))
    else:
        output.text(render_human(result))
    return 0
