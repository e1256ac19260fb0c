"""`atlas find PATTERN`: symbols, files and annotations by name, across engines and pin sets (atlas.query.find)."""

from __future__ import annotations

import argparse

from atlas.cli import output, verb
from atlas.env import Settings
from atlas.query import Atlas, find, to_json

KINDS = ("symbol", "file", "annotation")


def register(sub: argparse._SubParsersAction) -> None:
    p = verb(
        sub,
        "find",
        "search symbols, files and annotations by name, across engines and pin sets",
        "Symbols whose name is PATTERN, starts with it or holds it (case aside), or a glob over whole ids and paths "
        "(`*radix*cache*`); files by path; annotations by id, symbol, mechanism or summary. Best first: whole name, "
        "name prefix, part of the name, anywhere; engine components before the rest. Nothing by name: the nearest "
        "spellings. Exit 1 when nothing is found.",
        ("atlas find match_prefix", "atlas find 'KVCache*' --framework vllm --pins default,latest --kind symbol"),
    )
    p.add_argument("pattern")
    p.add_argument("--framework", help="vllm or sglang (default: both)")
    p.add_argument("--kind", default="", metavar="KINDS", help=f"comma-separated of {', '.join(KINDS)} (default: all)")
    p.add_argument("--limit", type=int, default=50, help="rows at most in human output (default 50; 0: all)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    output.require(args)
    kinds = tuple(k.strip() for k in args.kind.split(",") if k.strip()) or KINDS
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        from atlas.errors import ConfigError

        raise ConfigError(f"unknown --kind {', '.join(unknown)}; choose from: {', '.join(KINDS)}")
    hits = find(Atlas(settings), args.pattern, args.framework, args.pin_sets, kinds)
    if args.format == "json":
        output.data(to_json(hits))
    else:
        shown = hits if not args.limit else hits[: args.limit]
        for h in shown:
            pin = f"{h.pin.framework} {h.pin.pin_set}" if h.pin else "annotation"
            where = f"{h.path}:{h.line}" if h.line else h.path
            output.text(f"{h.kind:10} {h.name}  ({h.detail})  {pin}  {where}")
        if len(shown) < len(hits):
            output.message(f"atlas: {len(hits)} found, {len(shown)} shown; --limit 0 lists all")
    if not hits or all(h.is_near for h in hits):
        output.message(
            f"atlas: nothing matches {args.pattern!r}" + ("; the names spelled alike are listed" if hits else "")
        )
        return 1
    return 0
