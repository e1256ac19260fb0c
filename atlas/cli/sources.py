"""`atlas sync` and `atlas pin`: thin bodies over atlas.sources."""

from __future__ import annotations

from atlas.cli import output, verb
from atlas.journal import commit
from atlas.sources import having, load_all, repin, sync_pin


def register(sub) -> None:
    p = verb(
        sub,
        "sync",
        "clone and check out the pinned commits (read-only, one worktree per commit)",
        "Fetch only the pinned commit of each framework (shallow; from ATLAS_MIRROR or --mirror where set), check it "
        "out read-only as one worktree per commit, verify it and write missing locks. A second run with nothing to "
        "do never touches the network.",
        ("atlas sync", "atlas sync vllm --pins default,latest,cpu"),
    )
    p.add_argument("frameworks", nargs="*", metavar="FRAMEWORK", help="default: every manifest in pinned_sources/")
    p.add_argument(
        "--repair",
        action="store_true",
        help="put back only what is damaged: changed files of a checkout, else the checkout, else the clone",
    )
    p.set_defaults(func=sync)

    p = verb(
        sub,
        "pin",
        "resolve a new ref and rewrite the manifest's pin set and lock",
        "Move a pin set to a new ref: `atlas diff` runs first and the pin is refused (exit 1) while annotations break, "
        "unless --accept; --apply-suggestions writes the diff's suggestions as `at:` entries first.",
        ("atlas pin vllm v0.34.0 --pins latest --apply-suggestions", "atlas pin sglang v0.5.24 --pins latest --accept"),
    )
    p.add_argument("framework")
    p.add_argument("ref", help="tag, branch, or full or abbreviated commit")
    p.add_argument(
        "--accept",
        action="store_true",
        help="write the new pin even when `atlas diff` finds drifted or broken annotations",
    )
    p.add_argument(
        "--apply-suggestions",
        action="store_true",
        help="write `atlas diff`'s suggestions for the pin set first; refuse only if items stay broken",
    )
    p.set_defaults(func=pin)


def sync(args, settings) -> int:
    output.require(args)
    rows = []
    chosen = {pin_set: having(settings.root, args.frameworks or None, pin_set) for pin_set in args.pin_sets}
    for manifest in load_all(settings.root, args.frameworks or None):
        for pin_set in args.pin_sets:
            if manifest.name not in {m.name for m in chosen[pin_set]}:
                continue
            with output.progress(f"{manifest.name} {manifest.pin_entry(pin_set)['ref']}") as report:
                checkout = sync_pin(manifest, pin_set, settings, report, repair=args.repair)
            rows.append(
                {
                    "name": manifest.name,
                    "pins": pin_set,
                    "ref": checkout.pin.ref,
                    "commit": checkout.pin.commit,
                    "path": str(checkout.path),
                    "source": checkout.source,
                }
            )
            if args.format == "human":
                state = "checked out" if checkout.fetched else "up to date"
                output.text(
                    f"{manifest.name:8} {checkout.pin.ref:10} {checkout.pin.commit[:12]}  {state}  {checkout.path}"
                )
    if args.format == "json":
        output.data(rows)
    return 0


def pin(args, settings) -> int:
    """Diff the current pin against the new ref first; refuse (exit 1) when annotations drift or break."""
    output.require(args)
    (manifest,) = load_all(settings.root, [args.framework])
    pin_set = args.pin_sets[0]
    texts: dict = {}  # annotation file -> its text with the suggestions, written with the manifest
    if manifest.pin_entry(pin_set)["ref"] != args.ref and (settings.root / "annotations").is_dir():
        from atlas.diff import diff, render_human, save, suggested_texts

        report = diff(settings, manifest, pin_set, args.ref, into=pin_set)
        save(report, settings.build)
        broken = list(report.broken)
        if args.apply_suggestions:
            texts, applied = suggested_texts(settings.root, broken, pin_set, tuple(manifest.pins))
            broken = [b for b in broken if b.hit is None]
            told = f"{len(applied)} suggestion(s) into the annotations for pin set {pin_set}"
        if broken and not args.accept:
            if texts:
                commit(settings.root, texts)
                output.message(f"atlas pin: wrote {told}")
            output.text(render_human(report))
            output.message(
                f"atlas: {len(broken)} annotation(s) drifted or broke at {args.ref}; fix them "
                "(atlas diff --apply-suggestions) or pass --accept to pin anyway"
            )
            return 1
    with output.progress(f"{manifest.name} {args.ref}") as report_progress:
        new = repin(manifest, pin_set, args.ref, settings, report_progress, together=texts)
    if args.apply_suggestions and texts:
        output.message(f"atlas pin: wrote {told}, with the manifest")
    if args.format == "json":
        output.data(
            {
                "name": new.framework,
                "pins": pin_set,
                "ref": new.ref,
                "commit": new.commit,
                "upstream_commit": new.upstream_commit,
                "manifest": str(manifest.path),
            }
        )
    else:
        output.text(f"{new.framework} {pin_set}: {new.ref} -> {new.commit}  ({manifest.path})")
    return 0
