"""`atlas index`, `atlas graph callees|callers|path|unresolved|export` and `atlas callgraph`: thin bodies over
atlas.query and atlas.graph; formats human, json, dot, mermaid (pycg for callgraph)."""

from __future__ import annotations

import argparse
from pathlib import Path

from atlas.cli import group, output, verb
from atlas.cli import verify as verify_verb
from atlas.errors import ConfigError
from atlas.graph import build_many
from atlas.graph.pycg import callgraph, package_base
from atlas.parse.kernels import reason
from atlas.query import Atlas, PathAnswer, Tree, call_paths, to_json, tree, unresolved
from atlas.query.paths import ALL
from atlas.query.sites import KINDS
from atlas.sources import having

GRAPH_FORMATS = ("human", "json", "dot", "mermaid")


def register(sub) -> None:
    p = verb(
        sub,
        "index",
        "build (or refresh) the symbol index and call graph of pinned trees",
        "Parse the pinned trees (tree-sitter) and resolve their calls into build/; only changed files are parsed "
        "again. Queries build on demand too; this verb builds ahead, for every pin set asked.",
        ("atlas index", "atlas index vllm --pins default,latest"),
    )
    p.add_argument("frameworks", nargs="*", metavar="FRAMEWORK", help="default: every manifest")
    p.add_argument("--force", action="store_true", help="resolve again even when no file changed")
    p.set_defaults(func=index)

    verbs = group(
        sub,
        "graph",
        "query the call graph: callees, callers, path, unresolved, export, verify",
        "The call graph of a pinned tree: every edge with its provenance (static, type-inferred, dispatch, "
        "registration, launch, ...), confidence and call site.",
        (
            "atlas graph callees Scheduler.schedule --framework vllm --depth 2",
            "atlas graph path EngineCore.step reshape_and_cache_flash --all",
        ),
    )
    for name, forward in (("callees", True), ("callers", False)):
        what = "calls" if forward else "is called by"
        q = verb(
            verbs,
            name,
            f"what SYMBOL {what}, as a tree N levels deep",
            f"What SYMBOL {what}, level by level: each row sits under the symbol it {'leaves' if forward else 'enters'}"
            ", in source order of the call sites, with provenance, confidence and file:line; a symbol met again is "
            "marked, not expanded twice. A class with no edges of its own stands for its methods. Nothing found: "
            "exit 1.",
            (
                f"atlas graph {name} Scheduler.schedule --framework vllm --depth 2",
                f"atlas graph {name} RadixCache.match_prefix --framework sglang --format json",
            ),
            GRAPH_FORMATS,
        )
        q.add_argument("symbol")
        q.add_argument("--depth", type=_depth, default=1, help="levels to follow, 1 or more (default 1)")
        q.add_argument("--framework", help="vllm or sglang (default: whichever has the symbol)")
        q.set_defaults(func=walk, forward=forward)
    q = verb(
        verbs,
        "path",
        "call chains FROM -> TO, steered (--via, --avoid, -k, --all)",
        "The most specific call chains from FROM to TO (an op or C++ function: on down to the kernel it launches), "
        "ranked by confidence (the weakest edge) then length. Each hop shows its call site; a site that may reach "
        "several targets (a dispatch) shows `1 of N` (--alternatives lists the others). No path: what comes "
        "nearest (symbols that reach TO, unresolved sites on the way), exit 1.",
        (
            "atlas graph path EngineCore.step reshape_and_cache_flash -k 3 --alternatives",
            "atlas graph path EngineCore.step reshape_and_cache_flash --via FlashAttentionImpl.do_kv_cache_update "
            "--avoid HpcAttentionImpl.forward",
        ),
        GRAPH_FORMATS,
    )
    q.add_argument("source", metavar="FROM")
    q.add_argument(
        "target",
        metavar="TO",
        help="a symbol, or an op named at several layers (its lowest is taken); "
        "kernel ids by suffix: reshape_and_cache_flash_kernel, cuda:vllm::reshape_and_cache_flash_kernel",
    )
    q.add_argument("--framework", help="vllm or sglang (default: whichever has FROM)")
    q.add_argument("--via", action="append", default=[], metavar="SYMBOL", help="pass through SYMBOL (repeatable)")
    q.add_argument("--avoid", action="append", default=[], metavar="SYMBOL", help="never through SYMBOL (repeatable)")
    q.add_argument("-k", type=_depth, default=1, dest="k", metavar="N", help="the N best paths (default 1)")
    q.add_argument("--all", action="store_const", const=ALL, dest="k", help=f"every path, {ALL} at most")
    q.add_argument("--alternatives", action="store_true", help="list the other targets of each dispatch hop")
    q.add_argument(
        "--exact",
        action="store_true",
        help="stop at TO (an op or C++ function is otherwise followed "
        "down the kernel layer to the __global__ or Triton kernel it launches)",
    )
    q.set_defaults(func=path)
    q = verb(
        verbs,
        "unresolved",
        "call sites and kernel-layer links that could not be resolved",
        "Call sites the resolver left unresolved, op uses, registrations, JIT loads and launches the kernel layer "
        "could not link, with the reason and file:line; exit 1 when there are any.",
        (
            "atlas graph unresolved vllm --kind kernel",
            "atlas graph unresolved sglang --under python/sglang/srt/mem_cache --format json",
        ),
    )
    q.add_argument("framework")
    q.add_argument(
        "--kind",
        choices=KINDS,
        default="all",
        help="python call sites, kernel-layer sites (ops, registrations, JIT loads, launches), or all",
    )
    q.add_argument("--under", default="", metavar="PATH", help="only sites in files under PATH")
    q.add_argument("--symbol", default="", help="only sites inside SYMBOL (a full id)")
    q.set_defaults(func=run_unresolved)
    q = verb(
        verbs,
        "export",
        "every node and edge of a framework's graph, with provenance",
        "The whole graph of one pinned tree: nodes with kind, file:line and component; edges with provenance, "
        "confidence and call site; the unresolved sites and the build's counts.",
        ("atlas graph export vllm --format json > vllm.json", "atlas graph export sglang --format dot"),
        GRAPH_FORMATS,
    )
    q.add_argument("framework")
    q.set_defaults(func=export)
    verify_verb.add_verb(verbs)

    p = verb(
        sub,
        "callgraph",
        "the call graph of any Python package folder (PyCG's JSON with --format pycg)",
        "The same parser and resolver as the pinned trees, on any folder: the package folder itself or the folder "
        "holding it (modules are named from the folder analysed, which is said on stderr).",
        ("atlas callgraph ./mypkg --format pycg", "atlas callgraph . mypkg/main.py"),
        ("human", "json", "pycg"),
    )
    p.add_argument("folder", metavar="DIR")
    p.add_argument("entries", nargs="*", metavar="ENTRY.py", help="entry modules (default: every module)")
    p.set_defaults(func=run_callgraph)


def _depth(text: str) -> int:
    """--depth, -k: a whole number, at least 1 (argparse names the option and the value otherwise)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} answers nothing; give 1 or more")
    return value


def index(args, settings) -> int:
    output.require(args)
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


def walk(args, settings) -> int:
    output.require(args)
    found = tree(Atlas(settings), args.symbol, args.framework, args.pin_sets[0], args.depth, args.forward)
    if found.note:
        output.message(f"atlas: {found.note}")
    if args.format == "json":
        output.data(to_json(found))
    elif args.format in ("dot", "mermaid"):
        _print_edges(
            args.format,
            [
                (r.parent, r.symbol, r.provenance) if args.forward else (r.symbol, r.parent, r.provenance)
                for r in found.rows
            ],
        )
    else:
        _print_tree(found)
    if not found.rows:
        output.message(f"atlas: {found.root} has no {found.direction} in {found.pin.framework} {found.pin.ref}")
        return 1
    return 0


def _print_tree(found: Tree) -> None:
    output.text(found.root)
    arrow = "->" if found.direction == "callees" else "<-"
    for r in found.rows:
        mark = "  (above)" if r.is_repeat and not r.is_expanded else ""
        site = f"  {r.path}:{r.line}" if r.path else ""
        output.text(f"{'  ' * r.depth}{arrow} {r.symbol}  [{r.provenance} {r.confidence:.2f}]{site}{mark}")
    output.message(
        f"atlas: {len(found.rows)} edges, {found.num_symbols} symbols, {found.depth} level(s) "
        f"({found.pin.framework} {found.pin.ref})"
    )


def path(args, settings) -> int:
    output.require(args)
    answer = call_paths(
        Atlas(settings),
        args.source,
        args.target,
        args.framework,
        args.pin_sets[0],
        tuple(args.via),
        tuple(args.avoid),
        args.k,
        args.exact,
    )
    for note in answer.notes:
        output.message(f"atlas: {note}")
    if args.format == "json":
        output.data(to_json(answer))
    elif args.format in ("dot", "mermaid"):
        _print_edges(args.format, [(h.caller, h.callee, h.provenance) for p in answer.paths for h in p.hops])
    elif answer.paths:
        _print_paths(answer, args.alternatives)
    if not answer.paths:
        _print_near(answer)
        return 1
    return 0


def _print_paths(answer: PathAnswer, alternatives: bool) -> None:
    for n, p in enumerate(answer.paths, 1):
        if len(answer.paths) > 1:
            output.text(
                f"path {n} of {len(answer.paths)}: {len(p.hops)} hops, confidence {p.confidence:.2f} "
                f"(weakest edge; all together {p.joint:.3f})"
            )
        output.text(p.symbols[0])
        for i, h in enumerate(p.hops, 1):
            choice = f"  (1 of {h.num_targets})" if h.alternatives else ""
            output.text(f"{'  ' * i}-> {h.callee}  [{h.provenance} {h.confidence:.2f}]  {h.path}:{h.line}{choice}")
            if alternatives:
                for other in h.alternatives:
                    output.text(f"{'  ' * i}   | or {other}")
    if answer.end_kind:
        output.text(
            f"{answer.paths[0].symbols[-1]} ({answer.end_kind}) is defined at {answer.end_path}:{answer.end_line}"
        )


def _print_near(answer: PathAnswer) -> None:
    steer = "".join(f" via {v}" for v in answer.via) + "".join(f" avoiding {a}" for a in answer.avoid)
    output.message(
        f"no call path from {answer.source} to {answer.target}{steer} in {answer.pin.framework} {answer.pin.ref}"
    )
    for near in answer.near:
        if near.kind == "unresolved":
            output.message(f"  unresolved on the way: {near.detail} in {near.symbol}  {near.path}:{near.line}")
        else:
            output.message(f"  reaches it: {near.symbol} ({near.detail})  {near.path}:{near.line}")


def run_unresolved(args, settings) -> int:
    output.require(args)
    found = unresolved(Atlas(settings), args.framework, args.pin_sets[0], args.kind, args.under, args.symbol)
    if args.format == "json":
        output.data(to_json(found.sites))
    else:
        for r in found.sites:
            output.text(f"{r.path}:{r.line}  {r.expression}  [{r.reason or r.kind}]  in {r.caller}")
        output.message(f"atlas: {len(found.sites)} unresolved ({args.kind}) in {args.framework} {found.pin.ref}")
    return 1 if found.sites else 0


def export(args, settings) -> int:
    output.require(args)
    g = Atlas(settings).graph(args.framework, args.pin_sets[0])
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
    elif args.format == "human":
        for a, b, attrs in edges:
            output.text(
                f"{a} -> {b}  [{attrs['provenance']} {attrs['confidence']:.1f}]  {attrs['path']}:{attrs['line']}"
            )
    else:
        _print_edges(args.format, [(a, b, e["provenance"]) for a, b, e in edges])
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


def _print_edges(fmt: str, edges: list[tuple[str, str, str]]) -> None:
    """(caller, callee, provenance) edges as Graphviz dot or a Mermaid flowchart; a dispatch or name match dashed."""
    if fmt == "dot":
        output.text("digraph calls {")
        for a, b, e in sorted(set(edges)):
            style = ' style="dashed"' if e in ("dispatch", "name-match") else ""
            output.text(f'  "{a}" -> "{b}" [label="{e}"{style}];')
        output.text("}")
        return
    ids: dict[str, str] = {}
    output.text("flowchart LR")
    for a, b, e in sorted(set(edges)):
        for n in (a, b):
            if n not in ids:
                ids[n] = f"n{len(ids)}"
                output.text(f'  {ids[n]}["{n}"]')
        arrow = "-.->" if e in ("dispatch", "name-match") else "-->"
        output.text(f"  {ids[a]} {arrow}|{e}| {ids[b]}")


def run_callgraph(args, settings) -> int:
    output.require(args)
    folder = Path(args.folder).resolve()
    base = package_base(folder)
    named = f"modules named from {base}" + (
        f" (the package {folder.name} as `{folder.name}`)" if base != folder else ""
    )
    output.message(f"atlas: analysing {folder}: {named}")
    graph = callgraph(folder, args.entries or None, base)
    if not graph:
        raise ConfigError(f"{folder} holds no Python modules; give the package folder or the folder holding it")
    if args.format == "human":
        for caller, callees in graph.items():
            for callee in callees:
                output.text(f"{caller} -> {callee}")
        return 0
    output.data(graph)
    return 0
