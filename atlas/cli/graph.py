"""`atlas index`, `atlas show`, `atlas graph callees|callers|path|unresolved|export` and `atlas callgraph`: thin bodies
over atlas.graph. Queries build the graph on demand; formats human, json, dot, mermaid (pycg for callgraph)."""

from __future__ import annotations

from pathlib import Path

from atlas.cli import _common, output, verify
from atlas.errors import SymbolNotFound
from atlas.graph import Index, build_many, load_graph, load_index
from atlas.graph.calls import call_rows, common_name
from atlas.graph.pycg import callgraph
from atlas.parse.kernels import reason
from atlas.sources import having

GRAPH_FORMATS = ("human", "json", "dot", "mermaid")


def register(sub) -> None:
    p = sub.add_parser("index", help="build (or refresh) the Python index and call graph of pinned trees")
    p.add_argument("frameworks", nargs="*", metavar="FRAMEWORK", help="default: every manifest")
    p.add_argument("--force", action="store_true", help="resolve again even when no file changed")
    p.set_defaults(func=index)

    p = sub.add_parser("show", help="a symbol: location, signature, permalink, component, callers and callees")
    p.add_argument("symbol", help="dotted id or a unique suffix, e.g. Scheduler.schedule")
    p.add_argument("--framework", help="vllm or sglang (default: whichever has the symbol)")
    p.add_argument(
        "--expand",
        action="store_true",
        help="list every target of a dispatch fan-out (one row with its count otherwise)",
    )
    p.set_defaults(func=show)

    p = sub.add_parser("graph", help="query the call graph: callees, callers, path, export")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="QUERY")
    for name, text in (("callees", "what SYMBOL calls"), ("callers", "who calls SYMBOL")):
        q = verbs.add_parser(name, help=text, parents=[_common(True)])
        q.add_argument("symbol")
        q.add_argument("--depth", type=_depth, default=1, help="levels to follow, 1 or more (default 1)")
        q.add_argument("--framework", help="vllm or sglang (default: whichever has the symbol)")
        q.set_defaults(func=walk)
    q = verbs.add_parser(
        "path",
        help="the shortest call chain FROM -> TO (an op or C++ function: on to its kernel)",
        parents=[_common(True)],
    )
    q.add_argument("source", metavar="FROM")
    q.add_argument(
        "target",
        metavar="TO",
        help="a symbol, or an op named at several layers (its lowest is taken); "
        "kernel ids by suffix: reshape_and_cache_flash_kernel, cuda:vllm::reshape_and_cache_flash_kernel",
    )
    q.add_argument("--framework", help="vllm or sglang (default: whichever has FROM)")
    q.add_argument(
        "--exact",
        action="store_true",
        help="stop at TO (an op or C++ function is otherwise followed "
        "down the kernel layer to the __global__ or Triton kernel it launches)",
    )
    q.set_defaults(func=path)
    q = verbs.add_parser(
        "unresolved", help="call sites and kernel-layer links that could not be resolved", parents=[_common(True)]
    )
    q.add_argument("framework")
    q.add_argument(
        "--kind",
        choices=("python", "kernel", "all"),
        default="all",
        help="python call sites, kernel-layer sites (ops, registrations, JIT loads, launches), or all",
    )
    q.set_defaults(func=unresolved)
    q = verbs.add_parser(
        "export", help="every node and edge of a framework's graph, with provenance", parents=[_common(True)]
    )
    q.add_argument("framework")
    q.set_defaults(func=export)
    verify.add_verb(verbs, [_common(True)])

    p = sub.add_parser("callgraph", help="the call graph of any Python package folder (PyCG's JSON with --format pycg)")
    p.add_argument("folder", metavar="DIR")
    p.add_argument("entries", nargs="*", metavar="ENTRY.py", help="entry modules (default: every module)")
    p.set_defaults(func=run_callgraph)


def _depth(text: str) -> int:
    """--depth: a whole number of levels, at least 1 (argparse names the option and the value otherwise)."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of levels") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} levels answers nothing; give 1 or more")
    return value


def index(args, settings) -> int:
    rows = []
    for pin_set in args.pin_sets:  # the trees of one pin set build together: one resolves while the next parses
        names = [m.name for m in having(settings.root, args.frameworks or None, pin_set)]
        with output.progress(f"index {', '.join(names)} ({pin_set})") as report:
            reports = build_many(settings, names, pin_set, report, force=args.force)
        for r in reports:
            rows.append(
                {
                    "framework": r.framework,
                    "pins": pin_set,
                    "ref": r.ref,
                    "files": r.num_files,
                    "parsed": r.num_parsed,
                    "seconds": round(r.seconds, 2),
                    "rebuilt": r.rebuilt,
                    "timings": {stage: round(t, 2) for stage, t in r.timings.items()},
                }
            )
            if args.format == "human":
                state = f"built, {r.num_parsed} files parsed" if r.rebuilt else "up to date"
                output.text(f"{r.framework:8} {r.ref:10} {r.num_files} files  {state}  {r.seconds:.1f}s")
    if args.format == "json":
        output.data(rows)
    return 0


def _locate(settings, name: str, framework: str | None, pin_set: str):
    """(framework, graph, symbol id) for a name; an ambiguous or unknown name raises SymbolNotFound."""
    frameworks = [m.name for m in having(settings.root, [framework] if framework else None, pin_set)]
    hits, errors = [], []
    tagged = []
    for fw in frameworks:
        idx = load_index(settings, fw, pin_set)
        found = idx.find(name)
        hits.extend((fw, sid) for sid in found)
        tagged.extend((fw, sid) for sid in found if idx.symbols[sid].component)
    if len(hits) > 1 and len(tagged) == 1:  # one candidate lies in an engine component: take it, name the rest
        others = ", ".join(sid for _, sid in hits if (_, sid) != tagged[0])
        output.message(f"atlas: {name!r} also names {others}; showing the one in an engine component")
        hits = tagged
    if len(hits) == 1:
        fw, sid = hits[0]
        return fw, load_graph(settings, fw, pin_set), sid
    if not hits:
        raise SymbolNotFound(
            f"no symbol {name!r} in {', '.join(frameworks)} ({pin_set} pins); give a dotted "
            "suffix such as Scheduler.schedule and check --framework"
        )
    shown = "\n  ".join(f"{fw}: {sid}" for fw, sid in hits[:25]) + ("\n  ..." if len(hits) > 25 else "")
    raise SymbolNotFound(
        f"{name!r} names {len(hits)} symbols; give a longer suffix or --framework:\n  {shown}" + "".join(errors)
    )


def show(args, settings) -> int:
    output.require(args, "human", "json")
    fw, g, sid = _locate(settings, args.symbol, args.framework, args.pin_sets[0])
    attrs = g.node(sid)
    link = g.pin.permalink(attrs["path"], attrs["start"], attrs["end"]) if attrs["path"] else ""
    callees = _edge_rows(g.callees(sid), forward=True)
    callers = _edge_rows(g.callers(sid), forward=False)
    if args.format == "json":
        output.data(
            {
                "id": sid,
                "framework": fw,
                "ref": g.pin.ref,
                **{k: attrs[k] for k in ("kind", "path", "start", "end", "signature", "component")},
                "decorators": list(attrs["decorators"]),
                "permalink": link,
                "callees": callees,
                "callers": callers,
                "call_sites": [
                    {
                        "path": r.path,
                        "line": r.line,
                        "targets": [
                            {"symbol": t.id, "provenance": t.provenance, "confidence": t.confidence} for t in r.targets
                        ],
                    }
                    for r in call_rows((b, e) for _, _, b, e in g.callees(sid))
                ],
            }
        )
        return 0
    output.text(f"{sid}  ({attrs['kind']}{', ' + attrs['component'] if attrs['component'] else ''})")
    if attrs["signature"]:
        output.text(f"  {attrs['signature']}")
    if attrs["path"]:
        output.text(f"  {attrs['path']}:{attrs['start']}-{attrs['end']}  ({fw} {g.pin.ref})")
        output.text(f"  {link}")
    sites = call_rows((b, e) for _, _, b, e in g.callees(sid))
    output.text(f"calls ({len(sites)} sites, {len(callees)} targets), in source order:")
    for row in sites:
        _print_call_row(row, row.line, args.expand)
    calling = call_rows((a, e) for _, a, _, e in g.callers(sid))
    output.text(f"callers ({len(callers)}):")
    for row in sorted(calling, key=lambda r: (r.targets[0].id, r.line)):
        for t in row.targets:
            output.text(f"  {t.id}  [{t.provenance} {t.confidence:.2f}]  {row.path}:{row.line}")
    return 0


def _print_call_row(row, line: int, expand: bool) -> None:
    """One call site: its line and target; a fan-out as one row with its count (`--expand` lists them)."""
    where = f"L{line}" if line else "L?"
    if not row.is_fan_out:
        t = row.targets[0]
        output.text(f"  {where:>7}  {t.id}  [{t.provenance} {t.confidence:.2f}]")
        return
    output.text(
        f"  {where:>7}  {common_name(row)}  -> {len(row.targets)} targets  "
        f"[{'/'.join(row.provenances)} {row.confidence:.2f}]" + ("" if expand else "  (--expand lists them)")
    )
    if expand:
        for t in row.targets:
            output.text(f"           | {t.id}  [{t.provenance} {t.confidence:.2f}]")


def _edge_rows(walked, forward: bool) -> list[dict]:
    rows = {}
    for depth, a, b, attrs in walked:
        key = (b if forward else a, attrs["provenance"])
        if key not in rows:
            rows[key] = {
                "symbol": key[0],
                "provenance": attrs["provenance"],
                "confidence": attrs["confidence"],
                "path": attrs["path"],
                "line": attrs["line"],
                "depth": depth,
            }
    return sorted(rows.values(), key=lambda r: (r["depth"], r["symbol"]))


def walk(args, settings) -> int:
    output.require(args, *GRAPH_FORMATS)
    _, g, sid = _locate(settings, args.symbol, args.framework, args.pin_sets[0])
    forward = args.verb == "callees"
    walked = g.callees(sid, args.depth) if forward else g.callers(sid, args.depth)
    _print_edges(args.format, [(a, b, attrs) for _, a, b, attrs in walked], _edge_rows(walked, forward))
    return 0


def path(args, settings) -> int:
    output.require(args, *GRAPH_FORMATS)
    fw, g, source = _locate(settings, args.source, args.framework, args.pin_sets[0])
    target = _path_target(g, fw, args.target, source)
    chain = g.path(source, target)
    if not chain:
        output.message(f"no call path from {source} to {target} in {fw} {g.pin.ref}")
        return 1
    if not args.exact and target.startswith(("op:", "cpp:", "jit:")):
        chain += g.kernel_below(target)[1:]
    edges = [
        (a, b, min(g.graph.get_edge_data(a, b).values(), key=lambda e: -e["confidence"]))
        for a, b in zip(chain, chain[1:])
    ]
    rows = [
        {
            "symbol": b,
            "provenance": e["provenance"],
            "confidence": e["confidence"],
            "path": e["path"],
            "line": e["line"],
            "depth": i,
        }
        for i, (_, b, e) in enumerate(edges, 1)
    ]
    if args.format == "human":
        output.text(chain[0])
        for r in rows:
            output.text(f"{'  ' * r['depth']}-> {r['symbol']}  [{r['provenance']}]  {r['path']}:{r['line']}")
        end = g.node(chain[-1])
        if end["path"]:
            kinds = {"cuda_kernel": "__global__ kernel", "triton_kernel": "Triton kernel"}
            what = kinds.get(end["kind"], end["kind"])
            output.text(f"{chain[-1]} ({what}) is defined at {end['path']}:{end['start']}")
        return 0
    _print_edges(args.format, edges, rows)
    return 0


def _path_target(g, framework: str, name: str, source: str) -> str:
    """The symbol TO names. Several (the same op as Python wrapper, op and C++ function): the lowest layer FROM
    reaches, said on stderr; otherwise SymbolNotFound listing them."""
    found = Index(g.pin, Path(), g.symbols).find(name)
    if len(found) == 1:
        return found[0]
    if not found:
        raise SymbolNotFound(
            f"no symbol {name!r} in {framework} {g.pin.ref}; give a dotted suffix such as "
            "Scheduler.schedule, or a kernel id suffix such as reshape_and_cache_flash_kernel"
        )
    deepest = g.deepest(source, found)
    if deepest is None:
        shown = "\n  ".join(found[:25]) + ("\n  ..." if len(found) > 25 else "")
        raise SymbolNotFound(
            f"{name!r} names {len(found)} symbols that do not lie on one chain from {source}; "
            f"give a longer suffix:\n  {shown}"
        )
    output.message(
        f"atlas: {name!r} names {len(found)} symbols on one chain; the path goes to the lowest layer "
        f"{source} reaches: {deepest}"
    )
    return deepest


def unresolved(args, settings) -> int:
    output.require(args, "human", "json")
    g = load_graph(settings, args.framework, args.pin_sets[0])
    rows = []
    for site in g.unresolved:
        why = reason(site)  # a kernel-layer site's; "" for a Python call site, which has its own
        if args.kind == "all" or (args.kind == "kernel") == bool(why):
            rows.append(
                {
                    "kind": why or "python call",
                    "reason": why or (site.reason.value if site.reason else ""),
                    "caller": site.caller,
                    "expression": site.expression,
                    "path": site.span.path,
                    "line": site.span.start,
                }
            )
    rows.sort(key=lambda r: (r["path"], r["line"], r["expression"]))
    if args.format == "json":
        output.data(rows)
    else:
        for r in rows:
            output.text(f"{r['path']}:{r['line']}  {r['expression']}  [{r['reason']}]  in {r['caller']}")
        output.message(f"atlas: {len(rows)} unresolved ({args.kind}) in {args.framework} {g.pin.ref}")
    return 1 if rows else 0


def export(args, settings) -> int:
    output.require(args, *GRAPH_FORMATS)
    g = load_graph(settings, args.framework, args.pin_sets[0])
    edges = sorted(g.graph.edges(data=True), key=lambda e: (e[0], e[1], e[2]["line"]))
    if args.format == "json":
        output.data(
            {
                "framework": args.framework,
                "ref": g.pin.ref,
                "commit": g.pin.commit,
                "nodes": [
                    {"id": n, **{k: (list(v) if isinstance(v, tuple) else v) for k, v in a.items()}}
                    for n, a in sorted(g.graph.nodes(data=True))
                ],
                "edges": [{"caller": a, "callee": b, **attrs} for a, b, attrs in edges],
                "unresolved": [
                    {
                        "caller": c.caller,
                        "expression": c.expression,
                        "path": c.span.path,
                        "line": c.span.start,
                        "reason": reason(c) or (c.reason.value if c.reason else ""),
                    }
                    for c in g.unresolved
                ],
                "sites": [_site_row(c) for c in g.sites.sites()],
                "stats": g.stats,
            }
        )
        return 0
    if args.format == "human":
        for a, b, attrs in edges:
            output.text(
                f"{a} -> {b}  [{attrs['provenance']} {attrs['confidence']:.1f}]  {attrs['path']}:{attrs['line']}"
            )
        return 0
    _print_edges(args.format, edges, [])
    return 0


def _site_row(c) -> dict:
    """A Python call site of the export: where, the callee as written, its status and targets, or the reason."""
    return {
        "caller": c.caller,
        "expression": c.expression,
        "path": c.span.path,
        "line": c.span.start,
        "column": c.column,
        "status": c.status.value,
        **({"reason": c.reason.value} if c.reason else {"targets": list(c.targets)}),
    }


def _print_edges(fmt: str, edges: list, rows: list[dict]) -> None:
    if fmt == "json":
        output.data(
            [
                {
                    "caller": a,
                    "callee": b,
                    "provenance": e["provenance"],
                    "confidence": e["confidence"],
                    "path": e["path"],
                    "line": e["line"],
                }
                for a, b, e in edges
            ]
        )
    elif fmt == "dot":
        output.text("digraph calls {")
        for a, b, e in sorted({(a, b, e["provenance"]) for a, b, e in edges}):
            style = ' style="dashed"' if e in ("dispatch", "name-match") else ""
            output.text(f'  "{a}" -> "{b}" [label="{e}"{style}];')
        output.text("}")
    elif fmt == "mermaid":
        ids: dict[str, str] = {}
        output.text("flowchart LR")
        for a, b, e in sorted({(a, b, e["provenance"]) for a, b, e in edges}):
            for n in (a, b):
                if n not in ids:
                    ids[n] = f"n{len(ids)}"
                    output.text(f'  {ids[n]}["{n}"]')
            arrow = "-.->" if e in ("dispatch", "name-match") else "-->"
            output.text(f"  {ids[a]} {arrow}|{e}| {ids[b]}")
    else:
        for r in rows:
            output.text(
                f"{'  ' * (r['depth'] - 1)}{r['symbol']}  [{r['provenance']} {r['confidence']:.1f}]  "
                f"{r['path']}:{r['line']}"
            )


def run_callgraph(args, settings) -> int:
    output.require(args, "pycg", "json", "human")
    graph = callgraph(Path(args.folder), args.entries or None)
    if args.format == "human":
        for caller, callees in graph.items():
            for callee in callees:
                output.text(f"{caller} -> {callee}")
        return 0
    output.data(graph)
    return 0
