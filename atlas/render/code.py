"""The source view's data: for every analysed file of a pinned tree, its text with the symbols it defines, each
call site's targets (source order, fan-outs grouped), each definition's callers, the annotated lines with their
contracts and the edges and hooks seen at runtime. One compressed data file per source file, loaded on demand by
the one page template (site/templates/code.md.j2). Pure: the build writes what `code_files` returns."""

from __future__ import annotations

import base64
import json
import re
import zlib
from collections import defaultdict
from dataclasses import dataclass, field

from atlas.graph import Index
from atlas.graph.calls import call_rows, common_name
from atlas.render import urls
from atlas.render.cjk import cjk_chars
from atlas.render.inputs import EngineData
from atlas.render.memo import Memo, digest
from atlas.runtime import verify
from atlas.runtime.recording import Recording

MAX_CALLERS = 200  # per definition; the panel says how many more there are
LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".cu": "cpp",
    ".cuh": "cpp",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".c": "c",
    ".h": "cpp",
    ".hpp": "cpp",
    ".hip": "cpp",
}


@dataclass(frozen=True, slots=True)
class Runtime:
    """What the committed traces saw at one pin: edge (caller, callee) -> count, hooked symbol -> facts."""

    edges: dict[tuple[str, str], int] = field(default_factory=dict)
    hooks: dict[str, dict] = field(default_factory=dict)
    source: str = ""  # the results file, in words


def runtime_for(
    engine: EngineData,
    traces: list[tuple[str, dict]],
    recordings: list[tuple[str, Recording]] = (),
    memo: Memo | None = None,
) -> Runtime:
    """The committed summaries and call-edge recordings (atlas.runtime.recording) whose commit is this engine's pin:
    the calls seen at run time, by static (caller, callee), and the hooks' facts; kept in `memo`."""
    recordings = [(t, r) for t, r in recordings if r.framework == engine.name and r.commit == engine.pin.commit]
    traces = [(t, s) for t, s in traces if s.get("framework") == engine.name and s.get("commit") == engine.pin.commit]
    memo = memo or Memo()
    key = memo.key("runtime", engine.name, engine.fingerprint, [(t, r.edges) for t, r in recordings], traces)
    return memo.get(key, lambda: _runtime(engine, traces, recordings))


def _runtime(engine: EngineData, traces: list[tuple[str, dict]], recordings: list[tuple[str, Recording]]) -> Runtime:
    edges: dict[tuple[str, str], int] = {}
    hooks: dict[str, dict] = {}
    sources = []
    index = None
    for title, rec in recordings:
        sources.append(title)
        index = index or Index(engine.pin, engine.checkout, dict(engine.symbols))
        for e in rec.edges:
            caller = verify.caller_id(index, e, verify.repo_path(e.caller_path, engine.package_root))
            callee = verify.callee_id(index, e, verify.repo_path(e.callee_path, engine.package_root))
            if caller and callee:
                for target in sorted(verify.targets(index, callee)):  # a constructor: the class is called
                    edges[(caller, target)] = edges.get((caller, target), 0) + e.count
    for title, summary in traces:
        sources.append(title)
        for row in (summary.get("runtime_edges") or {}).get("observed", []):
            key = (row["caller"], row["callee"])
            edges[key] = edges.get(key, 0) + int(row.get("count", 0))
        for symbol, facts in (summary.get("hooks") or {}).items():
            hooks.setdefault(symbol, facts)
    return Runtime(edges, hooks, "; ".join(sources))


def language(path: str) -> str:
    dot = path.rfind(".")
    return LANGUAGES.get(path[dot:], "none") if dot >= 0 else "none"


def data_file(engine: str, path: str) -> str:
    return f"assets/atlas/code/{engine}/{urls.slug(path.replace('/', '.'))}.js"


def index_file(engine: str) -> str:
    return f"assets/atlas/code/{engine}/files.js"


def as_compressed_script(key: str, payload: dict) -> str:
    """A data file that registers its payload, zlib-compressed and base64-encoded (the page inflates it with the
    browser's DecompressionStream)."""
    raw = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
    packed = base64.b64encode(zlib.compress(raw, 3)).decode()  # level 3: twice as fast as 6, ~10% larger
    return f'(window.atlasData=window.atlasData||{{}})[{json.dumps(key)}]={{z:"{packed}"}};\n'


class _Targets:
    """The per-file table of symbols a file's links name: [id, path, line, kind, callees of a pathless one]."""

    def __init__(self, engine: EngineData):
        self.engine = engine
        self.rows: list[list] = []
        self.index: dict[str, int] = {}

    def of(self, sid: str, deep: bool = True) -> int:
        if sid in self.index:
            return self.index[sid]
        symbol = self.engine.symbols.get(sid)
        graph = self.engine.graph
        node = graph.nodes[sid] if graph is not None and sid in graph else {}
        path = symbol.span.path if symbol and symbol.span else node.get("path") or ""
        line = symbol.span.start if symbol and symbol.span else int(node.get("start") or 0)
        kind = symbol.kind.value if symbol else str(getattr(node.get("kind"), "value", node.get("kind") or ""))
        self.index[sid] = len(self.rows)
        row = [sid, path, line, kind, []]
        self.rows.append(row)
        if not path and deep and graph is not None and sid in graph:  # an op or registration: show where it goes
            row[4] = sorted({self.of(b, deep=False) for b in graph.successors(sid)})[:20]
        return self.index[sid]


def _edges_by_file(engine: EngineData) -> tuple[dict, dict]:
    """Per file: its definitions' outgoing edges (by caller) and incoming edges (by callee); a clone's (a closure per
    application of a decorator) count as its definition's."""
    out: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    into: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    graph = engine.graph
    if graph is None:
        return out, into
    nodes = graph.nodes
    for a, b, attrs in graph.edges(data=True):
        node_a, node_b = nodes[a], nodes[b]
        path_a = node_a.get("path") or ""
        path_b = node_b.get("path") or ""
        if path_a:
            out[path_a][node_a.get("origin", a)].append((b, attrs))
        if path_b:
            into[path_b][node_b.get("origin", b)].append((a, attrs))
    return out, into


def _contract(annotation) -> str:
    c = annotation.contract
    parts = [
        f"{name}: {', '.join(value) if isinstance(value, tuple) else value}"
        for name, value in (
            ("input", c.input),
            ("reads", c.reads),
            ("writes", c.writes),
            ("output", c.output),
            ("consumer", c.consumer),
            ("allocated", c.allocated),
            ("committed", c.committed),
            ("invariants", c.invariants),
        )
        if value
    ]
    return "; ".join(parts)


def _claims(annotation) -> str:
    """Each claim with its verdict at the default pin set and at every set where it differs."""
    parts = []
    for c in annotation.claims:
        sets = sorted({name for name, _ in c.at})
        verdicts = [f"default {c.verdict}"] + [f"{s} {c.verdict_at(s).verdict}" for s in sets]
        parts.append(f"{c.id} [{', '.join(verdicts)}]: {c.claim}")
    return " | ".join(parts)


def code_files(
    engine: EngineData, runtime: Runtime, note_href, chars: set[str] | None = None, memo: Memo | None = None
) -> dict[str, str]:
    """Docs-relative path -> data file text: one per source file, and the files index. `note_href(annotation)`
    gives the site-root-relative link of an annotation's section; `chars` collects the CJK characters of the
    sources (the site's font subset must hold them). A file's data is kept in `memo` under its engine's
    fingerprint, the runtime facts and the file's notes: an annotation edit remakes the files it anchors in."""
    memo = memo or Memo()
    by_file: dict[str, list] = defaultdict(list)  # path -> its symbols, made on the first file not kept

    def symbols_of(path: str) -> list:
        if not by_file:
            for symbol in engine.symbols.values():
                if symbol.span is not None:
                    by_file[symbol.span.path].append(symbol)
        return by_file[path]

    paths = memo.get(
        memo.key("code paths", engine.name, engine.fingerprint),
        lambda: sorted({s.span.path for s in engine.symbols.values() if s.span is not None}),
    )
    notes: dict[str, list] = defaultdict(list)
    for item in engine.anchored:
        if item.span is not None:
            a = item.annotation
            notes[item.span.path].append(
                [item.span.start, item.span.end, a.id, a.summary, _contract(a), note_href(a), _claims(a)]
            )
    edges: list[tuple[dict, dict]] = []  # made on the first file not kept (all of them in a clean build)
    seen = digest(sorted(runtime.edges.items()), sorted(runtime.hooks.items()), runtime.source)

    def made(path: str) -> tuple[str, int, str] | None:
        try:
            text = engine.source(path)
        except OSError:
            return None
        edges or edges.append(_edges_by_file(engine))
        out_edges, in_edges = edges[0]
        payload = file_payload(
            engine,
            path,
            text,
            symbols_of(path),
            out_edges.get(path, {}),
            in_edges.get(path, {}),
            notes.get(path, []),
            runtime,
        )
        return (as_compressed_script(f"{engine.name}/code/{path}", payload), text.count("\n") + 1, cjk_chars([text]))

    files: dict[str, str] = {}
    listing = []
    for path in paths:
        key = memo.key("code", engine.fingerprint, engine.name, seen, path, notes.get(path, []))
        unit = memo.get(key, lambda p=path: made(p))
        if unit is None:
            continue
        script, num_lines, found = unit
        if chars is not None:
            chars.update(found)
        target = data_file(engine.name, path)
        files[target] = script
        listing.append([path, target.rsplit("/", 1)[-1], num_lines])
    files[index_file(engine.name)] = (
        f"(window.atlasData=window.atlasData||{{}})[{json.dumps(engine.name + '/code')}]="
        + json.dumps(
            {"files": listing, "pin": engine.pin.ref, "pin_set": engine.pin_set, "base": engine.pin.permalink("")},
            separators=(",", ":"),
        )
        + ";\n"
    )
    return files


def _target_rows(targets: _Targets, row, runtime: Runtime, caller: str) -> list:
    return [[targets.of(t.id), t.provenance, t.confidence, runtime.edges.get((caller, t.id), 0)] for t in row.targets]


NAME_LINES = 3  # how far below its first line a definition's name may be written


def name_line(lines: list[str], start: int, end: int, name: str) -> int:
    """The line of a definition's name: after its decorators (`@torch.inference_mode()` above `def execute_model`),
    the first line of its span that holds `def name`/`class name`, else the name as a word (up to NAME_LINES lines on:
    an op's span is the `ops.def(` line, its name in the string under it), else its first line."""
    span = range(start, min(max(end, start + NAME_LINES), start + 60, len(lines)) + 1)
    for is_defined in (True, False):
        for n in span:
            if name in lines[n - 1] and _holds_name(lines[n - 1], name, is_defined):
                return n
    return start


def _holds_name(line: str, name: str, is_defined: bool) -> bool:
    """Whether `line` holds `name` as a word (regex `\\bname\\b`), after `def`/`class` and blanks when `is_defined`
    (`\\b(?:def|class)\\s+name\\b`). Plain string search: a tree has ~100k names, too many to compile."""
    at = line.find(name)
    while at >= 0:
        if _is_boundary(line, at + len(name)):
            before = line[:at]
            if not is_defined and _is_boundary(line, at):
                return True
            keyword = before.rstrip()
            if (
                is_defined
                and len(keyword) < len(before)
                and before[len(keyword) :].isspace()
                and any(keyword.endswith(k) and _is_boundary(keyword, len(keyword) - len(k)) for k in ("def", "class"))
            ):
                return True
        at = line.find(name, at + 1)
    return False


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _is_boundary(text: str, at: int) -> bool:
    """Regex `\\b` at `at`: a word character on one side only."""
    return (at > 0 and _is_word(text[at - 1])) != (at < len(text) and _is_word(text[at]))


def file_payload(
    engine: EngineData,
    path: str,
    text: str,
    symbols: list,
    outgoing: dict,
    incoming: dict,
    notes: list,
    runtime: Runtime,
) -> dict:
    targets = _Targets(engine)
    defs, callees, callers, hooks = [], {}, {}, []
    refs: dict[int, list] = {}  # line -> [name, target]: identifiers the index resolves besides calls
    if path.endswith(".py"):
        for line, name, sid in imported_names(engine.module_of(path), path.endswith("__init__.py"), text):
            if sid in engine.symbols:
                refs.setdefault(line, []).append([name, targets.of(sid)])
    lines = text.splitlines()
    for symbol in sorted(symbols, key=lambda s: (s.span.start, s.id)):
        number = len(defs)
        name = symbol.id.rsplit(".", 1)[-1].rsplit("::", 1)[-1]
        if name.startswith("<lambda"):  # `<lambda2>` in the index: its `lambda` keyword in the text
            name = "lambda"
        for base in symbol.bases:  # a class's bases the index resolved
            if base in engine.symbols:
                refs.setdefault(symbol.span.start, []).append([base.rsplit(".", 1)[-1], targets.of(base)])
        defs.append(
            [
                symbol.span.start,
                symbol.span.end,
                name,
                targets.of(symbol.id),
                symbol.kind.value,
                symbol.signature[:300],
                name_line(lines, symbol.span.start, symbol.span.end, name),
            ]
        )
        rows = call_rows(outgoing.get(symbol.id, []))
        if rows:
            callees[number] = [[r.line, common_name(r), _target_rows(targets, r, runtime, symbol.id)] for r in rows]
        calling = call_rows(incoming.get(symbol.id, []))
        if calling:
            flat = [
                [targets.of(t.id), r.path, r.line, t.provenance, t.confidence, runtime.edges.get((t.id, symbol.id), 0)]
                for r in calling
                for t in r.targets
            ]
            callers[number] = {"n": len(flat), "rows": flat[:MAX_CALLERS]}
        hook = runtime.hooks.get(symbol.id)
        if hook:
            hooks.append([symbol.span.start, symbol.id, hook.get("fired", 0), hook.get("role", ""), runtime.source])
    return {
        "path": path,
        "engine": engine.name,
        "lang": language(path),
        "text": text,
        "defs": defs,
        "callees": callees,
        "callers": callers,
        "targets": targets.rows,
        "notes": sorted(notes),
        "hooks": hooks,
        "refs": refs,
        "permalink": engine.pin.permalink(path),
        "pin": engine.pin.ref,
    }


_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(.*)$", re.MULTILINE)


def imported_names(module: str, is_package: bool, text: str) -> list[tuple[int, str, str]]:
    """(line, name as written, the dotted id it imports) of each `from X import a, b as c` (parenthesized lists
    over several lines too; relative imports resolved against `module`)."""
    out = []
    lines: list[str] = []
    last, number = 0, 1
    for match in _FROM.finditer(text):
        number += text.count("\n", last, match.start())
        last = match.start()
        source, names = match.group(1), match.group(2).split("#", 1)[0]
        if source.startswith("."):
            dots = len(source) - len(source.lstrip("."))
            package = module.split(".") if is_package else module.split(".")[:-1]
            package = package[: len(package) - (dots - 1)] if dots > 1 else package
            source = ".".join(package + ([source.lstrip(".")] if source.lstrip(".") else []))
        chunks = [(number, names)]
        if "(" in names and ")" not in names:
            lines = lines or text.splitlines()
            following = number
            while following < len(lines) and ")" not in chunks[-1][1]:
                chunks.append((following + 1, lines[following].split("#", 1)[0]))
                following += 1
        for line, chunk in chunks:
            for item in chunk.replace("(", " ").replace(")", " ").split(","):
                words = item.split()
                if words and words[0].isidentifier():
                    out.append((line, words[0], f"{source}.{words[0]}"))
    return out
