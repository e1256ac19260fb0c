"""`atlas mcp`: atlas's queries as Model Context Protocol tools (the `mcp` SDK), over stdio or streamable HTTP.
Every tool takes a framework and an optional pin set (default: `default`) and answers JSON naming the pin's commit
and the file:line of what it names, bounded (atlas.server.paging); an AtlasError is a tool error with the CLI's
one-line text. The tools call atlas.query only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from atlas import __version__
from atlas.env import Settings
from atlas.errors import AtlasError
from atlas.query import (
    Atlas,
    call_paths,
    claims_across,
    diff_slice,
    find,
    kinds_of,
    mechanism,
    runtime_of,
    show,
    to_json,
    tree,
    unresolved,
)
from atlas.query.lookup import locate
from atlas.server.paging import dumps, page

INSTRUCTIONS = (
    "atlas answers questions about the vLLM and SGLang source trees at pinned release commits: symbols, a call graph "
    "with provenance and confidence on every edge, contracts and claims the annotations anchor to the code, runtime "
    "evidence from probes inside the real engines, and what changed between pins. Every answer names the pin "
    "(framework, pin set, ref, commit) and file:line. Start with search_symbols, then show_symbol. Pin sets as the "
    "project's manifests name them (default: the releases the probes ran at; latest; cpu: what the CPU engine runs); "
    "`pin` left out means default. Long answers come in pages: pass page.next_cursor back as `cursor`."
)
READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)


def _answer(make: Callable[[], Any], cursor: str = "") -> CallToolResult:
    """The tool's answer as paged JSON text; an AtlasError (or a bad cursor) as a tool error in its one line."""
    try:
        doc = to_json(make())
        if not isinstance(doc, dict):
            doc = {"items": doc}
        return CallToolResult(content=[TextContent(type="text", text=dumps(page(doc, cursor)))])
    except (AtlasError, ValueError) as exc:
        return CallToolResult(content=[TextContent(type="text", text=f"atlas: error: {exc}")], is_error=True)


def server(settings: Settings) -> MCPServer:
    """The MCP server over one project: its Atlas (indexes, graphs, annotations) loads on the first call that
    needs it and stays for the server's life."""
    atlas = Atlas(settings)
    app: MCPServer = MCPServer("atlas", version=__version__, instructions=INSTRUCTIONS)

    def tool(name: str = "") -> Callable[[Callable], Callable]:
        def add(fn: Callable) -> Callable:
            app.add_tool(fn, name=name or fn.__name__, annotations=READ_ONLY, structured_output=False)
            return fn

        return add

    @tool()
    def search_symbols(
        query: str, framework: str = "", pin: str = "", kinds: str = "", cursor: str = ""
    ) -> CallToolResult:
        """Search symbol names (a name, part of one, a dotted suffix such as Scheduler.schedule, or a glob), file
        paths and annotations; best first, with file:line. `framework`: vllm, sglang or empty for both; `kinds`:
        comma-separated of symbol, file, annotation (default all)."""
        chosen = tuple(k.strip() for k in kinds.split(",") if k.strip()) or ("symbol", "file", "annotation")
        return _answer(lambda: {"hits": find(atlas, query, framework or None, [pin or "default"], chosen)}, cursor)

    @tool()
    def show_symbol(
        symbol: str, framework: str = "", pin: str = "", other_pins: list[str] | None = None, cursor: str = ""
    ) -> CallToolResult:
        """Everything about one symbol at a pin: file:line and permalink, signature, component, its calls in source
        order (line, provenance, confidence; a dispatch lists its targets), callers, contracts (input, reads,
        writes, output, allocated vs committed, invariants, cost), claims with verdicts per pin set and evidence
        lines, runtime evidence. `symbol`: a dotted id or unique suffix; `other_pins`: pin sets whose evidence lines
        (and the contract's place there) are wanted too, in `elsewhere`."""
        return _answer(
            lambda: show(atlas, symbol, framework or None, pin or "default", also=tuple(other_pins or ())), cursor
        )

    @tool()
    def callers(symbol: str, framework: str = "", pin: str = "", depth: int = 1, cursor: str = "") -> CallToolResult:
        """Who calls `symbol`, `depth` levels up, as tree rows (depth, parent, symbol, provenance, confidence, call
        site file:line). A class with no edges of its own stands for its methods, a function also for its copies (a
        decorator's wrapper per wrapped function): depth-0 rows of provenance `member` / `copy`."""
        return _answer(lambda: tree(atlas, symbol, framework or None, pin or "default", depth, False), cursor)

    @tool()
    def callees(symbol: str, framework: str = "", pin: str = "", depth: int = 1, cursor: str = "") -> CallToolResult:
        """What `symbol` calls, `depth` levels down, as tree rows (depth, parent, symbol, provenance, confidence,
        call site file:line) in source order. A class with no edges of its own stands for its methods, a function
        also for its copies (a closure per receiver class): depth-0 rows of provenance `member` / `copy`."""
        return _answer(lambda: tree(atlas, symbol, framework or None, pin or "default", depth, True), cursor)

    @tool()
    def call_path(
        source: str,
        target: str,
        framework: str = "",
        pin: str = "",
        via: list[str] | None = None,
        avoid: list[str] | None = None,
        k: int = 1,
        cursor: str = "",
    ) -> CallToolResult:
        """The k best call chains from `source` to `target` (through every `via` symbol in order, around every
        `avoid` one), ranked by confidence then length; each hop with its call site and, for a dispatch, the other
        targets. An op or C++ function goes on down to its kernel. No path: `near` lists the symbols that do reach
        the target and unresolved sites on the way."""
        return _answer(
            lambda: call_paths(
                atlas, source, target, framework or None, pin or "default", tuple(via or ()), tuple(avoid or ()), k
            ),
            cursor,
        )

    @tool("mechanism")
    def mechanism_steps(name: str, framework: str = "", pin: str = "", cursor: str = "") -> CallToolResult:
        """A mechanism of the article (prefix-cache, continuous-batching, chunked-prefill, cuda-graphs,
        speculative-decoding, preemption-retraction, overlap-scheduling, ... or its section number): each
        framework's annotated steps with file:line at the pin, contracts and claims."""
        return _answer(lambda: mechanism(atlas, name, framework or None, pin or "default"), cursor)

    @tool()
    def claims(framework: str = "", pins: list[str] | None = None, cursor: str = "") -> CallToolResult:
        """Every claim of the article about the code with its verdict (holds, changed, not_found, gone) and
        evidence lines at each pin set asked (default: default and latest), side by side, changes first."""
        return _answer(lambda: claims_across(atlas, framework or None, list(pins or ["default", "latest"])), cursor)

    @tool()
    def diff(
        framework: str,
        old: str = "default",
        new: str = "latest",
        under: str = "",
        symbol: str = "",
        kinds: str = "",
        cursor: str = "",
    ) -> CallToolResult:
        """Symbol changes between two pins (pin set names or tags): files under `under`, symbols starting with (or
        containing after a dot) `symbol`, `kinds` comma-separated of added, removed, renamed, moved, split,
        changed, signature, body, calls, ops. Each change with its old and new file:line."""
        chosen = kinds_of([k.strip() for k in kinds.split(",") if k.strip()]) if kinds else ()
        return _answer(lambda: diff_slice(atlas, framework, old, new, under, symbol, chosen), cursor)

    @tool("unresolved")
    def unresolved_sites(
        framework: str, pin: str = "", kind: str = "all", under: str = "", symbol: str = "", cursor: str = ""
    ) -> CallToolResult:
        """Call sites the graph could not resolve (kind: python, kernel or all), with the reason and file:line;
        only files under `under`, only inside `symbol` (a full id) when given."""
        return _answer(lambda: unresolved(atlas, framework, pin or "default", kind, under, symbol), cursor)

    @tool()
    def runtime_evidence(symbol: str, framework: str = "", pin: str = "", cursor: str = "") -> CallToolResult:
        """What the runtime saw of a symbol at the pin's commit: how often its probe fired and how long the calls
        took (committed GPU traces), and the calls into and out of it recorded in the running engine, with
        counts and call sites."""

        def make() -> Any:
            found = locate(atlas, symbol, framework or None, pin or "default")
            return runtime_of(atlas, found.framework, found.pin_set, found.id)

        return _answer(make, cursor)

    return app
