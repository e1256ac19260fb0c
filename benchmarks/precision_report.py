"""Print the graph's precision from the judged record (results/precision/) and a runtime proxy beside it.

Usage: ATLAS_MIRROR=... python benchmarks/precision_report.py [--record DIR] [--no-runtime] [RECORDING ...]
Edges: the share that can happen, overall, per engine, per provenance and per engine and provenance, each with its
95% Wilson interval and n, and the share weighted by the size of each stratum (the graph's edges, not the sample's);
the errors per class; judged rows the graph no longer has. Paths: the share feasible, and where the infeasible ones
break. Runtime proxy (RECORDING: edges.json files, default results/edges/*.edges.json of the default pins): at call
sites a recording ran at least MIN_CALLS times, always into one function, how many targets the graph gives there.
Exits 1 when the record is malformed (each problem listed)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from atlas import yamlio
from atlas.errors import AtlasError
from atlas.graph.precision import record, tally
from atlas.graph.precision.record import ErrorClass

Z_NOTE = "95% Wilson interval"


def figure(s: tally.Share) -> str:
    lo, hi = s.interval
    return f"{s.value:6.1%}  [{lo:5.1%}, {hi:5.1%}]  {s.good:3}/{s.n:<3}" if s.n else "     -  (none judged)"


def edge_lines(rows: list[record.EdgeRow], sizes: dict) -> list[str]:
    out = [f"Edges that can happen (judged by reading the source; share, {Z_NOTE}, can/n; weighted by stratum size):"]
    groups: list[tuple[str, list]] = [("all", rows)]
    groups += [(fw, [r for r in rows if r.framework == fw]) for fw in sorted({r.framework for r in rows})]
    for name, members in groups:
        weighted, covered = tally.weighted(members, sizes)
        out.append(f"  {name:32} {figure(tally.share(members))}  weighted {weighted:5.1%} of {covered} edges")
    out.append("  per provenance:")
    for prov, s in tally.shares_by(rows, lambda r: r.provenance).items():
        weighted, _ = tally.weighted([r for r in rows if r.provenance == prov], sizes)
        out.append(f"    {prov:30} {figure(s)}  weighted {weighted:5.1%}")
    out.append("  per engine and provenance:")
    for (fw, prov), s in tally.shares_by(rows, lambda r: (r.framework, r.provenance)).items():
        out.append(f"    {fw + ' ' + prov:30} {figure(s)}")
    out.append("  per caller component:")
    for comp, s in tally.shares_by(rows, lambda r: r.component or record.NO_COMPONENT).items():
        out.append(f"    {comp:30} {figure(s)}")
    return out


def error_lines(title: str, rows: list) -> list[str]:
    counts = tally.errors(rows)
    out = [f"{title} ({sum(counts.values())}):"]
    for key, n in counts.items():
        wording = ErrorClass(key).wording if key in {e.value for e in ErrorClass} else key
        by_fw = ", ".join(
            f"{fw} {sum(1 for r in tally.judged(rows) if r.framework == fw and r.error == key)}"
            for fw in sorted({r.framework for r in rows})
        )
        out.append(f"  {n:4}  {key:22} {wording}  ({by_fw})")
    return out


def path_lines(rows: list[record.PathRow]) -> list[str]:
    out = [f"Paths feasible (`graph path` answers from the core, 3+ hops; share, {Z_NOTE}, feasible/n):"]
    out.append(f"  {'all':32} {figure(tally.share(rows))}")
    for fw, s in tally.shares_by(rows, lambda r: r.framework).items():
        out.append(f"  {fw:32} {figure(s)}")
    for (fw, stratum), s in tally.shares_by(rows, lambda r: (r.framework, r.stratum)).items():
        out.append(f"    {fw + ' to ' + stratum:30} {figure(s)}")
    counted = tally.judged(rows)
    if counted:
        hops = sum(len(r.hops) for r in counted) / len(counted)
        bad = [r for r in counted if not tally.is_good(r)]
        first = [int(r.bad_hop.split("-")[0]) for r in bad if r.bad_hop]
        pairs = sum("-" in r.bad_hop for r in bad)
        out.append(
            f"  hops per path {hops:.1f}; infeasible paths break at hop {sum(first) / len(first):.1f} on average"
            f" ({pairs} of {len(bad)} at two hops each possible alone)"
            if first
            else f"  hops per path {hops:.1f}"
        )
    return out


def gone_lines(edges: list, paths: list) -> list[str]:
    e, p = tally.gone(edges), tally.gone(paths)
    if not e and not p:
        return ["Judged rows the graph no longer has: none"]
    return [
        "Judged rows the graph no longer has (not counted above): edges "
        + ", ".join(f"{v} {n}" for v, n in e.items())
        + "; paths "
        + ", ".join(f"{v} {n}" for v, n in p.items())
    ]


def runtime_lines(recordings: list[Path]) -> list[str]:
    from atlas.env import settings as load_settings
    from atlas.graph import load_graph, load_index
    from atlas.runtime import fanout, recording, verify
    from atlas.sources import load_all

    settings = load_settings()
    out = [
        f"Runtime proxy: call sites a recording ran >= {fanout.MIN_CALLS} times, always into one function; "
        "the graph's targets there (symbols of the tree):"
    ]
    for path in recordings:
        rec = recording.load(path)
        (manifest,) = load_all(settings.root, [rec.framework])
        index = load_index(settings, rec.framework, rec.pin_set)
        graph = load_graph(settings, rec.framework, rec.pin_set)
        report = verify.verify(rec, index, graph, manifest.package_root)
        static = verify.StaticEdges(graph)
        sites = fanout.site_fanouts(report, static, graph.symbols, manifest.package_root)
        one = sum(s.num_static == 1 for s in sites)
        held = sum(s.callee in s.static for s in sites)
        mean = sum(s.num_static for s in sites) / len(sites) if sites else 0.0
        out.append(
            f"  {path.name}: {len(sites)} sites; exactly one target {one} ({one / max(len(sites), 1):.1%}); "
            f"the observed target among them {held}; mean targets {mean:.2f}"
        )
        hist = fanout.histogram(sites)
        out.append("    targets: " + "  ".join(f"{k}: {n}" for k, n in hist.items()))
        widest = sorted(sites, key=lambda s: (-s.num_static, s.path, s.line))[:3]
        out += [f"    widest: {s.path}:{s.line} -> {s.callee}, {s.num_static} targets, {s.calls} calls" for s in widest]
    return out


def default_recordings(root: Path) -> list[Path]:
    """results/edges/*.edges.json recorded at the default pins (the graphs the sample is drawn from)."""
    from atlas.runtime import recording

    return [
        p for p in sorted((root / "results" / "edges").glob("*.edges.json")) if recording.load(p).pin_set == "default"
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("recordings", nargs="*", type=Path, metavar="RECORDING")
    p.add_argument("--record", type=Path, default=Path("results/precision"))
    p.add_argument("--no-runtime", action="store_true", help="leave out the runtime proxy (it loads the graphs)")
    args = p.parse_args(argv)
    edges_doc = yamlio.load(args.record / "edges.yaml")
    paths_doc = yamlio.load(args.record / "paths.yaml")
    edges = [record.edge_from_data(d) for d in edges_doc.get("rows", [])]
    paths = [record.path_from_data(d) for d in paths_doc.get("rows", [])]
    wrong = record.problems([*edges, *paths])
    if wrong:
        print("\n".join(wrong))
        return 1
    sizes = {(g["framework"], k): int(n) for g in edges_doc.get("graphs", []) for k, n in g["strata"].items()}
    unjudged = sum(1 for r in [*edges, *paths] if r.current and not r.verdict)
    lines = [f"Record {args.record}: {len(edges)} edges, {len(paths)} paths; {unjudged} current rows unjudged"]
    lines += edge_lines(edges, sizes)
    lines += error_lines("Edges that cannot happen, by error class", edges)
    lines += path_lines(paths)
    lines += error_lines("Infeasible paths, by the error class of their first bad hop", paths)
    lines += gone_lines(edges, paths)
    if not args.no_runtime:
        lines += runtime_lines(args.recordings or default_recordings(Path.cwd()))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AtlasError as exc:  # a record or graph to fix first: one line saying what to do
        sys.exit(f"{Path(sys.argv[0]).name}: {exc}")
