"""`atlas mcp`: serve atlas's queries to coding agents over the Model Context Protocol (atlas.server)."""

from __future__ import annotations

import argparse

from atlas.cli import verb
from atlas.env import Settings


def register(sub: argparse._SubParsersAction) -> None:
    p = verb(
        sub,
        "mcp",
        "serve atlas's queries to coding agents (Model Context Protocol, stdio or HTTP)",
        "A Model Context Protocol server with the tools search_symbols, show_symbol, callers, callees, call_path, "
        "mechanism, claims, diff, unresolved and runtime_evidence; each takes a framework and an optional pin set and "
        "answers with the pin's commit and file:line. Over stdio (what an MCP client launches; nothing but the "
        "protocol on stdout) or, with --http PORT, streamable HTTP on 127.0.0.1.",
        ("atlas mcp", "atlas mcp --http 8765"),
        ("human",),
    )
    p.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT instead of stdio")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from atlas.server import server

    app = server(settings)
    if args.http:
        app.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        app.run("stdio")
    return 0
