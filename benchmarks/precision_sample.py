"""Draw the precision sample from the built graphs and extend the judged record with it (results/precision/).

Usage: ATLAS_MIRROR=... python benchmarks/precision_sample.py [--out DIR] [--pins SET] [FRAMEWORK ...]
Per framework (default: every manifest), from the graph of the pin set (built on demand): edges stratified by
provenance and caller component (atlas.graph.precision.sample.QUOTAS) and `graph path` answers from the core to a
kernel, a KV-cache method and an attention-backend method at 3 or more hops. DIR/edges.yaml and DIR/paths.yaml are
extended: a row already judged (the same framework, caller, callee and line; for a path the same hops) keeps its
verdict, new rows come in unjudged, judged rows the graph no longer has stay marked `current: false`. Judge the
unjudged rows by reading the source (docs/architecture.md, "The precision record"), then run
benchmarks/precision_report.py."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from atlas import yamlio
from atlas.env import settings as load_settings
from atlas.errors import AtlasError
from atlas.graph import load_graph
from atlas.graph.precision import record, sample
from atlas.sources import load_all

HEADER = {
    "edges.yaml": "Sampled call edges judged by reading the source",
    "paths.yaml": "Sampled `atlas graph path` answers judged by reading the source",
}


def read(path: Path) -> dict:
    return yamlio.load(path) if path.exists() else {}


def write(path: Path, graphs: list[dict], rows: list[dict]) -> None:
    head = (
        f"# {HEADER[path.name]}: drawn by benchmarks/precision_sample.py, figures by benchmarks/precision_report.py\n"
        '# (docs/architecture.md, "The precision record").\n'
    )
    yamlio.write_atomic(path, head + yamlio.dump({"graphs": graphs, "rows": rows}))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("frameworks", nargs="*", metavar="FRAMEWORK")
    p.add_argument("--out", type=Path, default=Path("results/precision"))
    p.add_argument("--pins", default="default", help="the pin set whose graphs are sampled (default: default)")
    args = p.parse_args(argv)
    settings = load_settings()
    edges_file, paths_file = args.out / "edges.yaml", args.out / "paths.yaml"
    old_edges, old_paths = read(edges_file), read(paths_file)
    edge_rows = [record.edge_from_data(d) for d in old_edges.get("rows", [])]
    path_rows = [record.path_from_data(d) for d in old_paths.get("rows", [])]
    edge_graphs = {g["framework"]: dict(g) for g in old_edges.get("graphs", [])}
    path_graphs = {g["framework"]: dict(g) for g in old_paths.get("graphs", [])}
    for m in load_all(settings.root, args.frameworks or None):
        g = load_graph(settings, m.name, args.pins)
        present = sample.graph_rows(g, m.name)
        drawn = sample.draw_edges(present.values(), sample.QUOTAS)
        mine = [r for r in edge_rows if r.framework == m.name]
        merged = record.merge_edges(drawn, mine, present)
        edge_rows = [r for r in edge_rows if r.framework != m.name] + merged
        pin = {"framework": m.name, "pins": args.pins, "ref": g.pin.ref, "commit": g.pin.commit[:12]}
        edge_graphs[m.name] = {**pin, "edges": len(present), "strata": sample.strata_sizes(present.values())}
        paths = sample.draw_paths(g, m.name)
        mine_paths = [r for r in path_rows if r.framework == m.name]
        merged_paths = record.merge_paths(paths, mine_paths)
        path_rows = [r for r in path_rows if r.framework != m.name] + merged_paths
        path_graphs[m.name] = pin
        print(
            f"{m.name} {g.pin.ref}: {len(present)} edges between symbols of the tree; sample {len(drawn)} edges "
            f"({sum(not r.verdict for r in merged)} unjudged, {sum(not r.current for r in merged)} judged no longer "
            f"in the graph), {len(paths)} paths ({sum(not r.verdict for r in merged_paths)} unjudged)",
            file=sys.stderr,
        )
    args.out.mkdir(parents=True, exist_ok=True)
    write(
        edges_file,
        [edge_graphs[k] for k in sorted(edge_graphs)],
        [record.edge_to_data(r) for r in sorted(edge_rows, key=record.edge_order)],
    )
    write(
        paths_file,
        [path_graphs[k] for k in sorted(path_graphs)],
        [record.path_to_data(r) for r in sorted(path_rows, key=record.path_order)],
    )
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AtlasError as exc:  # a record or graph to fix first: one line saying what to do
        sys.exit(f"{Path(sys.argv[0]).name}: {exc}")
