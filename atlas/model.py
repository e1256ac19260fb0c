"""The data model every stage of atlas shares: pins, spans, symbols, call sites, edges, findings.

Frozen, slotted dataclasses; no IO here. Parsers fill them, the graph stores them, renderers read them.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum


@dataclass(frozen=True, slots=True)
class Pin:
    """One framework at one commit: what every symbol is anchored to."""

    framework: str  # "vllm" | "sglang"
    ref: str  # what the user asked for: a tag, branch or commit
    commit: str  # the full commit it resolved to (the lock)
    url: str  # upstream repository, e.g. https://github.com/vllm-project/vllm
    upstream_commit: str = ""  # upstream commit the release was cut from, where recorded

    @property
    def permalink_ref(self) -> str:
        """What upstream links point at: the recorded upstream commit, else the ref (a release tag)."""
        return self.upstream_commit or self.ref

    def permalink(self, path: str, start: int = 0, end: int = 0) -> str:
        url = f"{self.url.rstrip('/')}/blob/{self.permalink_ref}/{path}"
        if start and end and end != start:
            return f"{url}#L{start}-L{end}"
        return f"{url}#L{start}" if start else url

    @property
    def key(self) -> str:
        return f"{self.framework}@{self.commit[:12]}"


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """Lines (1-based, inclusive) of one file, its path relative to the repository root."""

    path: str
    start: int
    end: int


class SymbolKind(str, Enum):
    MODULE = "module"
    CLASS = "class"
    FUNCTION = "function"
    METHOD = "method"
    ATTRIBUTE = "attribute"
    TRITON_KERNEL = "triton_kernel"
    OP = "op"  # a registered torch op (schema)
    CPP_FUNCTION = "cpp_function"
    CUDA_KERNEL = "cuda_kernel"  # a __global__ function
    EXTERNAL = "external"  # outside the analysed tree: a library entry point, a compiled op


class Provenance(str, Enum):
    """How an edge was found; its value is the human wording."""

    STATIC = "static"  # direct or imported name, self/cls method, constructor
    TYPE_INFERRED = "type-inferred"  # through an attribute or variable whose type was inferred
    DISPATCH = "dispatch"  # may dispatch to an override of the resolved method (lower confidence)
    REGISTRATION = "registration"  # torch op registration, load_jit wrapper, plugin registry
    LAUNCH = "launch"  # a kernel launch: kernel[grid](...), <<<...>>>, LaunchKernel
    NAME_MATCH = "name-match"  # linked by name only
    RUNTIME = "runtime-observed"  # seen by a probe in a live engine
    STRING_DISPATCH = "string-dispatch"  # a method run by the name a string holds (collective_rpc("execute_model"))


@dataclass(frozen=True, slots=True)
class Symbol:
    id: str  # dotted path Python would use; C++ and ops get a stable qualified id too
    kind: SymbolKind
    span: Span | None  # None for external symbols
    signature: str = ""
    decorators: tuple[str, ...] = ()
    bases: tuple[str, ...] = ()
    component: str = ""

    @property
    def name(self) -> str:
        return self.id.rsplit(".", 1)[-1]


class SiteStatus(str, Enum):
    """What a call site of a Python file reached; its value is the human wording. Outside the tree, the site names
    what it calls (`torch.cat`, `builtins.len`, `logging.Logger.info`)."""

    IN_TREE = "in tree"  # a function or class of the analysed tree: the site's edges
    BUILTIN = "builtin"  # a builtin function, type or method (`len`, `dict.get`, `object.__init__`)
    STDLIB = "standard library"
    TORCH = "torch"
    LIBRARY = "library"  # any other package (triton, numpy, a compiled extension of the tree)
    UNRESOLVED = "unresolved"  # nothing: the reason says why


class Unresolved(str, Enum):
    """Why a call site reached nothing; the value is the human wording."""

    NAME_NOT_BOUND = "name not bound"  # no scope, import or builtin binds the called name
    PARAMETER = "parameter nobody passes"  # the callee (or its receiver) is a parameter no call passes a value to
    UNCALLED = "parameter of a function nobody calls"  # the same, in a function with no callers in the graph
    NO_VALUE = "name has no known value"  # a variable bound only to values the resolver does not follow
    RECEIVER = "receiver has no known value"  # `x.f()` where x (an attribute, a call's result) is unknown
    ATTRIBUTE = "attribute not found on the receiver"  # the receiver's classes or module lack the name
    DYNAMIC = "dynamic call"  # a subscript of an unknown container, getattr with a name known only at run time
    NOT_CALLABLE = "value not callable"  # constants, containers, modules, instances without __call__
    BOUND = "past a bound"  # the value was dropped by a resolution limit (an argument with too many values)
    RULED_OUT = "under a type check no value passes"  # in a branch of `isinstance(x, T)` that x never satisfies
    RAISES = "made of a call that always raises"  # the callee comes from a function of the tree that never returns


@dataclass(frozen=True, slots=True)
class CallSite:
    """A call in the source, resolved or not. A Python call site has its status and, outside the tree, the names
    it reaches (`targets`), or, unresolved, the reason; a kernel-layer site only its expression."""

    caller: str
    expression: str  # the callee as written, e.g. "self.kv_cache_manager.allocate_slots"
    span: Span
    status: SiteStatus = SiteStatus.UNRESOLVED
    reason: Unresolved | None = None
    targets: tuple[str, ...] = ()
    column: int = 0  # the byte column of the call's start on its line


@dataclass(frozen=True, slots=True)
class Edge:
    caller: str
    callee: str
    provenance: Provenance
    confidence: float
    site: Span | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem a check found: a result for the user, not an error of atlas."""

    kind: str
    message: str
    path: str = ""
    line: int = 0
    details: dict = field(default_factory=dict, hash=False, compare=False)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


class ChangeKind(str, Enum):
    """What happened to a symbol between two pins; the value is the human wording."""

    ADDED = "added"
    REMOVED = "removed"
    RENAMED = "renamed"
    MOVED = "moved"
    SPLIT = "split"
    SIGNATURE = "signature changed"
    BODY = "body changed"
    CALLEE_ADDED = "new callee"
    CALLEE_REMOVED = "callee gone"
    OP_ADDED = "kernel registration added"
    OP_REMOVED = "kernel registration removed"


@dataclass(frozen=True, slots=True)
class Change:
    """One change between two pins: `symbol` at OLD (or NEW, for additions), `new_symbol` where it went."""

    kind: ChangeKind
    symbol: str
    new_symbol: str = ""
    old: Span | None = None
    new: Span | None = None
    detail: str = ""
    similarity: float = 1.0


class Spans:
    """The one "innermost symbol around a line" helper: the symbols of `kinds` with a span, by file."""

    def __init__(self, symbols: Iterable[Symbol], kinds: frozenset[SymbolKind]) -> None:
        by_path: dict[str, list[tuple[int, int, str]]] = {}
        for s in symbols:
            if s.kind in kinds and s.span is not None:
                by_path.setdefault(s.span.path, []).append((s.span.start, s.span.end, s.id))
        self._spans = {
            path: sorted(spans, key=lambda s: (s[0], -s[1], s[2])) for path, spans in by_path.items()
        }  # outer first
        self._starts = {path: [s[0] for s in spans] for path, spans in self._spans.items()}

    def innermost(self, path: str, line: int) -> str | None:
        """The id of the innermost symbol of `path` whose lines hold `line` (spans nest: walking back from the last
        one starting at or before the line, the first that holds it); None when none does."""
        spans = self._spans.get(path)
        if not spans:
            return None
        for i in range(bisect.bisect_right(self._starts[path], line) - 1, -1, -1):
            start, end, sid = spans[i]
            if line <= end:
                return sid
        return None

    def in_file(self, path: str) -> list[tuple[int, int, str]]:
        """(start, end, id) of the symbols of `path`, by start."""
        return self._spans.get(path, [])
