"""A recording of call edges (atlas.runtime.recording) held to the static graph of the same pin: each recorded edge
mapped onto static symbols (caller: the enclosing symbol of the call line; callee: its qualname, else the symbol at
its first line), found or not, and for a missing one why (what the graph has at that call site). Pure."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import Enum

from atlas.graph import AtlasGraph, Index
from atlas.graph.table import REASONS, STATUSES
from atlas.model import SiteStatus, SymbolKind
from atlas.parse.python import module_name
from atlas.runtime.recording import RecordedEdge, Recording


class Verdict(str, Enum):
    """Whether the static graph holds a recorded edge; the value is the human wording."""

    EDGE = "held: an edge caller -> callee"
    SITE = "held: the call site -> callee (under another caller)"
    ELSEWHERE = "missing: the call site resolved to other callees"
    UNRESOLVED = "missing: the call site is unresolved"
    OUT_OF_TREE = "missing: the call site reached only code outside the tree"
    NO_SITE = "missing: no call site on that line"
    NO_CALLEE = "missing: the callee is not in the index"
    OUTSIDE = "not counted: an end lies in a file atlas does not analyse (the manifest's excludes)"

    @property
    def is_held(self) -> bool:
        return self in (Verdict.EDGE, Verdict.SITE)


class CallKind(str, Enum):
    """How the interpreter reached the callee, read from the callee (the recording does not say how it was called)."""

    CALL = "call"
    CONSTRUCTOR = "constructor (__init__, __new__, __post_init__)"
    PROTOCOL = "implicit dunder (__getattr__, __call__, __iter__, ...)"
    PROPERTY = "property or descriptor"
    RESUME = "generator or coroutine resumed"
    NESTED = "nested function or lambda"
    CLASS_BODY = "class body run (a class statement)"
    COMPREHENSION = "comprehension run"

    @property
    def is_call(self) -> bool:
        """Whether the source has a call for it: a class body, a comprehension or a resumed generator is run by
        the interpreter where the source has none (shown, not counted in the share)."""
        return self not in (CallKind.CLASS_BODY, CallKind.COMPREHENSION, CallKind.RESUME)


CONSTRUCTORS = ("__init__", "__new__", "__post_init__", "__init_subclass__")
PROPERTY_DECORATORS = ("property", "cached_property", "functools.cached_property")
COMPREHENSIONS = ("<listcomp>", "<genexpr>", "<setcomp>", "<dictcomp>")


@dataclass(frozen=True, slots=True)
class Check:
    edge: RecordedEdge
    caller: str  # static id of the call line's enclosing symbol ('' when the file is not in the index)
    callee: str  # static id of the callee ('' when the index has none)
    kind: CallKind
    verdict: Verdict
    site_callees: tuple[str, ...] = ()  # what the graph's edges leave the call site for (when resolved elsewhere);
    # the names outside the tree it reached, or the reason it reached nothing (atlas.graph.table.SiteTable)

    @property
    def module(self) -> str:
        return module_id(self.edge.caller_path)


@dataclass(frozen=True, slots=True)
class Report:
    framework: str
    pin_set: str
    ref: str
    checks: tuple[Check, ...]
    components: dict  # caller component -> (held, recorded)
    core: tuple[int, int] = (0, 0)  # (held, recorded) of the calls with both ends in a component (the core)

    @property
    def calls(self) -> list[Check]:
        """The recorded edges the source has a call for (CallKind.is_call) between analysed files: what the share
        counts."""
        return [c for c in self.checks if c.kind.is_call and c.verdict is not Verdict.OUTSIDE]

    @property
    def num_outside(self) -> int:
        return sum(c.verdict is Verdict.OUTSIDE for c in self.checks)

    @property
    def num_held(self) -> int:
        return sum(c.verdict.is_held for c in self.calls)

    @property
    def share(self) -> float:
        calls = self.calls
        return self.num_held / len(calls) if calls else 1.0

    def misses(self) -> list[Check]:
        return [c for c in self.calls if not c.verdict.is_held]


def repo_path(path: str, package_root: str) -> str:
    """A recorded path (relative to the package's parent: `sglang/srt/...`) as a repository path."""
    return f"{package_root}/{path}" if package_root else path


def module_id(path: str) -> str:
    return module_name(path)[0]


def callee_id(index: Index, edge: RecordedEdge, path: str) -> str:
    """The static id of a recorded callee: module + qualname (nested functions drop `<locals>`, as the index
    names them) when the index has it, else the innermost symbol starting at or around its first line."""
    dotted = f"{module_id(edge.callee_path)}.{edge.callee.replace('.<locals>', '')}"
    if edge.callee != "<module>" and dotted in index.symbols:
        return dotted
    return index.symbol_at(path, edge.callee_line) or ""


def caller_id(index: Index, edge: RecordedEdge, path: str) -> str:
    """The static id of a recorded caller, as the graph names callers: the caller code's own symbol by qualname (a
    decorator's line belongs to the scope applying it, not to the function it decorates), a comprehension's calls
    its function's, a class body's calls the function or module around the class; else the innermost symbol at the
    call line (a lambda: the index numbers them)."""
    parts = [p for p in edge.caller.split(".") if p != "<locals>"]
    while parts and parts[-1] in COMPREHENSIONS:
        parts.pop()
    module = module_id(edge.caller_path)
    dotted = ".".join([module, *parts]) if parts and parts != ["<module>"] else module
    if dotted not in index.symbols:
        return index.symbol_at(path, edge.line) or ""
    while (symbol := index.get(dotted)) is not None and symbol.kind is SymbolKind.CLASS and "." in dotted:
        dotted = dotted.rpartition(".")[0]
    return dotted


def call_kind(edge: RecordedEdge, generators: frozenset, index: Index, callee: str) -> CallKind:
    name = edge.callee.rsplit(".", 1)[-1]
    symbol = index.get(callee)
    if name in COMPREHENSIONS:
        return CallKind.COMPREHENSION
    if (edge.callee_path, edge.callee) in generators:
        return CallKind.RESUME
    if symbol is not None and symbol.kind is SymbolKind.CLASS:
        return CallKind.CLASS_BODY
    if name in CONSTRUCTORS:
        return CallKind.CONSTRUCTOR
    if name.startswith("__") and name.endswith("__"):
        return CallKind.PROTOCOL
    if symbol is not None and any(
        d in PROPERTY_DECORATORS or d.endswith((".setter", ".getter", ".deleter")) for d in symbol.decorators
    ):
        return CallKind.PROPERTY
    if "<locals>" in edge.callee or "<lambda>" in edge.callee:
        return CallKind.NESTED
    return CallKind.CALL


IN_TREE = STATUSES.index(SiteStatus.IN_TREE)


class StaticEdges:
    """The graph's edges as the checks ask for them: caller -> callees, and (path, line) -> callees; a node made by
    cloning a scope (a closure per decorated function) is the function it copies, as a recording names it (by its
    code object)."""

    def __init__(self, graph: AtlasGraph):
        table = graph.table
        clones = graph.clones
        nodes = [clones.get(n, n) for n in table.nodes]
        self.pairs: set[tuple[str, str]] = set()
        self.sites: dict[tuple[str, int], set[str]] = {}
        for i in range(len(table)):
            caller, callee = nodes[table.callers[i]], nodes[table.callees[i]]
            self.pairs.add((caller, callee))
            self.sites.setdefault((table.paths[table.path_ids[i]], table.lines[i]), set()).add(callee)
        self.unresolved = {(s.span.path, s.span.start) for s in graph.unresolved}
        self.outside: dict[tuple[str, int], tuple[str, ...]] = {}  # (path, line) -> what the sites there reached
        # outside the tree, or why nothing (the site table)
        sites = graph.sites
        for i in range(len(sites)):
            if sites.statuses[i] != IN_TREE:
                reason = REASONS[sites.reasons[i]]
                found = (reason.value,) if reason is not None else sites.targets(i)
                key = (sites.path(i), sites.lines[i])
                self.outside[key] = self.outside.get(key, ()) + found


def targets(index: Index, callee: str) -> set[str]:
    """The ids an edge to `callee` may name: the callee, and its class for a constructor (a call of the class)."""
    owner, _, name = callee.rpartition(".")
    return {callee, owner} if name in CONSTRUCTORS and owner in index.symbols else {callee}


def check(edge: RecordedEdge, generators: frozenset, index: Index, static: StaticEdges, package_root: str) -> Check:
    path, callee_path = repo_path(edge.caller_path, package_root), repo_path(edge.callee_path, package_root)
    caller = caller_id(index, edge, path)
    callee = callee_id(index, edge, callee_path)
    kind = call_kind(edge, generators, index, callee)
    at_site = static.sites.get((path, edge.line), set())
    names = targets(index, callee) if callee else set()
    if module_id(edge.caller_path) not in index.symbols or module_id(edge.callee_path) not in index.symbols:
        verdict = Verdict.OUTSIDE  # a file the manifest leaves out (vendored third-party code, say)
    elif not callee:
        verdict = Verdict.NO_CALLEE
    elif any((caller, n) in static.pairs for n in names):
        verdict = Verdict.EDGE
    elif names & at_site:
        verdict = Verdict.SITE
    elif at_site:
        verdict = Verdict.ELSEWHERE
    elif (path, edge.line) in static.unresolved:
        verdict = Verdict.UNRESOLVED
    elif (path, edge.line) in static.outside:
        verdict = Verdict.OUT_OF_TREE
    else:
        verdict = Verdict.NO_SITE
    if verdict is Verdict.ELSEWHERE:
        shown = tuple(sorted(at_site))[:5]
    elif verdict in (Verdict.UNRESOLVED, Verdict.OUT_OF_TREE):
        shown = tuple(sorted(set(static.outside.get((path, edge.line), ()))))[:5]
    else:
        shown = ()
    return Check(edge, caller, callee, kind, verdict, shown)


def verify(recording: Recording, index: Index, graph: AtlasGraph, package_root: str) -> Report:
    static = StaticEdges(graph)
    checks = tuple(check(e, recording.generators, index, static, package_root) for e in recording.edges)
    recorded, held = Counter(), Counter()
    core = [0, 0]
    for c in checks:
        if not c.kind.is_call or c.verdict is Verdict.OUTSIDE:
            continue
        symbol = index.get(c.caller)
        component = symbol.component if symbol is not None and symbol.component else "(none)"
        recorded[component] += 1
        held[component] += c.verdict.is_held
        callee = index.get(c.callee) if c.callee else None
        if component != "(none)" and callee is not None and callee.component:
            core[0] += c.verdict.is_held
            core[1] += 1
    return Report(
        recording.framework,
        recording.pin_set,
        recording.ref,
        checks,
        {k: (held[k], recorded[k]) for k in sorted(recorded)},
        (core[0], core[1]),
    )


def missing_by_kind(report: Report) -> dict[str, Counter]:
    """Kind of call -> the reasons of its missing edges, counted."""
    out: dict[str, Counter] = {}
    for c in report.misses():
        out.setdefault(c.kind.value, Counter())[c.verdict.value] += 1
    return out


def to_json(report: Report, min_share: float) -> dict:
    """The report as plain data: totals, per kind and per component, then the misses grouped by caller module."""
    by_kind: dict[str, list[int]] = {}
    for c in report.checks:
        if c.verdict is Verdict.OUTSIDE:
            continue
        row = by_kind.setdefault(c.kind.value, [0, 0])
        row[0] += c.verdict.is_held
        row[1] += 1
    misses: dict[str, list[dict]] = {}
    for c in report.misses():
        e = c.edge
        misses.setdefault(c.module, []).append(
            {
                "caller": c.caller,
                "callee": c.callee or f"{e.callee_path}:{e.callee}",
                "site": f"{e.caller_path}:{e.line}",
                "kind": c.kind.value,
                "reason": c.verdict.value,
                "count": e.count,
                **({"site_callees": list(c.site_callees)} if c.site_callees else {}),
            }
        )
    return {
        "framework": report.framework,
        "pin_set": report.pin_set,
        "ref": report.ref,
        "num_recorded": len(report.checks),
        "num_outside": report.num_outside,
        "num_calls": len(report.calls),
        "num_held": report.num_held,
        "share": round(report.share, 4),
        "min_share": min_share,
        "passed": report.share >= min_share,
        "by_verdict": dict(sorted(Counter(c.verdict.value for c in report.calls).items())),
        "by_kind": {k: {"held": h, "recorded": n} for k, (h, n) in sorted(by_kind.items())},
        "by_component": {k: {"held": h, "recorded": n} for k, (h, n) in report.components.items()},
        "core": {
            "held": report.core[0],
            "recorded": report.core[1],
            "share": round(report.core[0] / report.core[1], 4) if report.core[1] else 1.0,
        },
        "missing_by_kind": {k: dict(sorted(v.items())) for k, v in sorted(missing_by_kind(report).items())},
        "misses": {m: sorted(rows, key=lambda r: (r["site"], r["callee"])) for m, rows in sorted(misses.items())},
    }
