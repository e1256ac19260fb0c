"""`atlas diff FRAMEWORK OLD NEW`: what changed between two refs, and which annotations need a look."""

from __future__ import annotations

from atlas.cli import output
from atlas.diff import apply_suggestions, diff, render_github, render_human, render_json, render_markdown, save
from atlas.sources import load_all

RENDER = {"human": render_human, "json": render_json, "markdown": render_markdown, "github": render_github}


def register(sub) -> None:
    p = sub.add_parser("diff", help="what moved, changed or vanished between two refs; which annotations broke")
    p.add_argument("framework")
    p.add_argument("old", help="pin set name (default, latest), tag, branch or commit")
    p.add_argument("new", help="pin set name, tag, branch or commit")
    p.add_argument(
        "--apply-suggestions",
        action="store_true",
        help="write each broken item's suggested new anchor into the annotation YAML as an `at:` entry "
        "of the pin set (comments and layout kept)",
    )
    p.add_argument(
        "--into",
        default="",
        metavar="SET",
        help="the pin set the suggestions are for (default: NEW when it names a pin set, else OLD)",
    )
    p.add_argument(
        "--calls",
        action="store_true",
        help="compare call edges and kernel registrations too (builds both graphs when not built)",
    )
    p.set_defaults(func=run)


def run(args, settings) -> int:
    output.require(args, *RENDER)
    (manifest,) = load_all(settings.root, [args.framework])
    with output.progress(f"diff {manifest.name}") as report_progress:
        report = diff(settings, manifest, args.old, args.new, report_progress, with_calls=args.calls, into=args.into)
    text = RENDER[args.format](report)
    save(report, settings.build, text if args.format == "json" else "")
    output.text(text)
    if args.apply_suggestions:
        applied = apply_suggestions(settings.root, list(report.broken), report.into, tuple(manifest.pins))
        for item in applied:
            output.message(f"{item.where}: at {report.into}: {item.hit.symbol} {item.hit.pattern}".rstrip())
        output.message(
            f"atlas diff: wrote {len(applied)} suggestion(s) for pin set {report.into!r}; "
            f"{len(report.broken) - len(applied)} item(s) need a hand edit; then run "
            f"`atlas check --pins {','.join(dict.fromkeys(['default', report.into]))}`"
        )
    return report.exit_code
