"""Dump the full result of a build (symbols, edges with provenance and call-site line, unresolved call sites,
resolution stats) and compare two dumps, so a speed change can be shown to leave the graph as it was.

Usage: ATLAS_MIRROR=... python benchmarks/graph_edges.py dump OUT.pickle [--pins default] [FRAMEWORK ...]
       python benchmarks/graph_edges.py compare OLD.pickle NEW.pickle
`dump` builds the trees into the build folder (ATLAS_BUILD; atlas.graph.build_many) when they are not built yet,
then reads the stored graphs.
`compare` prints, per framework, the number of rows only in OLD and only in NEW for each part (with examples) and
exits 1 when anything differs."""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

from atlas.env import settings as load_settings
from atlas.graph import load_graph

try:
    from atlas.graph import build_many
except ImportError:  # older code (a baseline checked out to compare with): load_graph builds on demand
    build_many = None
from atlas.sources import load_all


def dump(frameworks: list[str], pin_set: str) -> dict:
    settings = load_settings()
    out = {}
    manifests = load_all(settings.root, frameworks or None)
    if build_many is not None:
        build_many(settings, [m.name for m in manifests], pin_set)
    for m in manifests:
        g = load_graph(settings, m.name, pin_set, on_demand=build_many is None)
        t = g.table
        nodes = t.nodes
        edges = {(nodes[t.callers[i]], nodes[t.callees[i]], *t.attrs(i).values()) for i in range(len(t))}
        symbols = {
            (
                s.id,
                s.kind.value,
                s.span.path if s.span else "",
                s.span.start if s.span else 0,
                s.span.end if s.span else 0,
                s.signature,
                s.decorators,
                s.bases,
                s.component,
            )
            for s in g.symbols.values()
        }
        unresolved = {(c.caller, c.expression, c.span.path, c.span.start) for c in g.unresolved}
        stats = {k: v for k, v in g.stats.items()}
        out[m.name] = {"symbols": symbols, "edges": edges, "unresolved": unresolved, "stats": stats}
        print(f"{m.name}: {len(symbols)} symbols, {len(edges)} edges, {len(unresolved)} unresolved", file=sys.stderr)
    return out


def compare(old: dict, new: dict, examples: int = 8) -> bool:
    same = True
    for fw in sorted(set(old) | set(new)):
        if fw not in old or fw not in new:
            print(f"{fw}: only in {'new' if fw in new else 'old'}")
            same = False
            continue
        for part in ("symbols", "edges", "unresolved"):
            a, b = old[fw][part], new[fw][part]
            gone, added = sorted(a - b, key=repr), sorted(b - a, key=repr)
            print(f"{fw} {part}: {len(a)} -> {len(b)}; only in old {len(gone)}, only in new {len(added)}")
            for row in gone[:examples]:
                print(f"   - {row}")
            for row in added[:examples]:
                print(f"   + {row}")
            same &= not gone and not added
        sa, sb = old[fw]["stats"], new[fw]["stats"]
        for k in sorted(set(sa) | set(sb)):
            if sa.get(k) != sb.get(k):
                print(f"{fw} stats[{k}]: {sa.get(k)} -> {sb.get(k)}")
                same &= k == "rounds"  # the number of rounds may change with the schedule; the result may not
    print("identical" if same else "DIFFERENT")
    return same


def main() -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="verb", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out")
    d.add_argument("frameworks", nargs="*")
    d.add_argument("--pins", default="default")
    c = sub.add_parser("compare")
    c.add_argument("old")
    c.add_argument("new")
    args = ap.parse_args()
    if args.verb == "dump":
        Path(args.out).write_bytes(pickle.dumps(dump(args.frameworks, args.pins)))
        return 0
    old, new = (pickle.loads(Path(p).read_bytes()) for p in (args.old, args.new))
    return 0 if compare(old, new) else 1


if __name__ == "__main__":
    sys.exit(main())
