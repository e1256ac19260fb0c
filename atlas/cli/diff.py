"""`atlas diff FRAMEWORK OLD NEW`: what changed between two refs, and which annotations need a look; with
--under, --symbol or --kind, a slice of the symbol changes (atlas.query.diffs)."""

from __future__ import annotations

from atlas.cli import output, verb
from atlas.diff import apply_suggestions, diff, render_github, render_human, render_json, render_markdown, save
from atlas.diff.report import change_row
from atlas.query import KIND_WORDS, Atlas, diff_slice, kinds_of, to_json
from atlas.query.diffs import keep
from atlas.sources import load_all

RENDER = {"human": render_human, "json": render_json, "markdown": render_markdown, "github": render_github}


def register(sub) -> None:
    p = verb(
        sub,
        "diff",
        "what moved, changed or vanished between two refs; which annotations broke",
        "Symbol changes between two refs (added, removed, renamed, moved, split, signature and body changed), which "
        "annotation anchors and evidence items they broke, and where their code went. The whole report is listed "
        "(through the terminal's pager). --under, --symbol and --kind cut a slice of the symbol changes instead: "
        "the changes are kept in build/diff/ after the first run, so slices answer at once.",
        (
            "atlas diff vllm default latest --under vllm/v1/core --kind added,changed",
            "atlas diff sglang default latest --symbol RadixCache --format json",
        ),
        tuple(RENDER),
    )
    p.add_argument("framework")
    p.add_argument("old", help="pin set name (default, latest), tag, branch or commit")
    p.add_argument("new", help="pin set name, tag, branch or commit")
    p.add_argument("--under", default="", metavar="PATH", help="only changes in files under PATH (a slice)")
    p.add_argument(
        "--symbol",
        default="",
        metavar="PREFIX",
        help="only symbols whose id starts with PREFIX, or has it after a dot: KVCacheManager (a slice)",
    )
    p.add_argument(
        "--kind",
        default="",
        metavar="KINDS",
        help=f"only these kinds of change, comma-separated: {', '.join(KIND_WORDS)} (a slice)",
    )
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
    output.require(args)
    if args.under or args.symbol or args.kind:
        return _slice(args, settings)
    (manifest,) = load_all(settings.root, [args.framework])
    with output.progress(f"diff {manifest.name}") as report_progress:
        report = diff(settings, manifest, args.old, args.new, report_progress, with_calls=args.calls, into=args.into)
    text = RENDER[args.format](report)
    save(report, settings.build, text if args.format == "json" else "")
    keep(Atlas(settings), report, args.old, args.new)
    if args.format == "human":
        output.paged(text)
    else:
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


def _slice(args, settings) -> int:
    kinds = kinds_of([k.strip() for k in args.kind.split(",") if k.strip()])
    found = diff_slice(Atlas(settings), args.framework, args.old, args.new, args.under, args.symbol, kinds)
    if args.format == "json":
        output.data(to_json(found))
    else:
        head = (
            f"{found.framework} {found.old.ref} -> {found.new.ref}: {len(found.changes)} of {found.num_all} changes"
            + (f" under {found.under}" if found.under else "")
            + (f" of {found.symbol}" if found.symbol else "")
            + (f" ({', '.join(found.kinds)})" if found.kinds else "")
        )
        rows = [head] + [f"  {c.kind.value:18} {' '.join(change_row(c).split())}" for c in found.changes]
        output.paged("\n".join(rows))
    if not found.changes:
        output.message("atlas: no change matches; widen --under, --symbol or --kind")
        return 1
    return 0
