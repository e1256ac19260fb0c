"""The kernel join: a GPU kernel's name as CUPTI, torch.profiler or nsys print it -> the static kernel node of the
pinned tree (a `__global__` function, `cuda:<path>::<qualified name>`, or a `@triton.jit` function, its dotted id),
or the library that ships it. A name is joined once and kept (a step runs the same few hundred names again and
again; a CUDA graph replays the same nodes)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum

from atlas.model import Symbol, SymbolKind
from atlas.parse.kernels.cpp import is_rocm_path
from atlas.runtime.kernels.libraries import library_of
from atlas.runtime.kernels.names import demangle, qualified_name


class Origin(str, Enum):
    """Where a kernel comes from; the value is the human wording."""

    TREE = "pinned tree"
    LIBRARY = "library"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class KernelNode:
    """A static kernel node of the graph, as the join needs it (a row of the offline bundle too)."""

    id: str
    kind: SymbolKind
    path: str
    line: int

    @property
    def name(self) -> str:
        return qualname_of(self).rsplit("::", 1)[-1]


def qualname_of(node: KernelNode) -> str:
    """`cuda:csrc/x.cu::vllm::k` -> `vllm::k`; a Triton kernel's dotted id -> its function name."""
    if node.kind == SymbolKind.CUDA_KERNEL:
        return node.id.split("::", 1)[1]
    return node.id.rsplit(".", 1)[-1]


@dataclass(frozen=True, slots=True)
class KernelMatch:
    """What one kernel name joined to."""

    name: str  # as the profiler printed it
    qualname: str  # the demangled signature cut to the kernel's qualified name
    origin: Origin
    static_id: str = ""  # the graph node (Origin.TREE)
    library: str = ""  # the library (Origin.LIBRARY)
    path: str = ""
    line: int = 0
    how: str = ""  # the rule that joined it
    candidates: tuple[str, ...] = ()  # every node the rule found, when more than one

    @property
    def label(self) -> str:
        return self.static_id or self.library or "unknown"


@dataclass(frozen=True, slots=True)
class KernelNodes:
    """The kernel nodes of one pinned tree, indexed for the join."""

    nodes: tuple[KernelNode, ...]
    by_qualname: dict[str, list[KernelNode]] = field(default_factory=dict, compare=False)
    by_name: dict[str, list[KernelNode]] = field(default_factory=dict, compare=False)
    triton_by_name: dict[str, list[KernelNode]] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, nodes: Iterable[KernelNode]) -> KernelNodes:
        ordered = tuple(sorted(nodes, key=lambda n: n.id))
        made = cls(ordered)
        for node in ordered:
            if node.kind == SymbolKind.CUDA_KERNEL:
                made.by_qualname.setdefault(qualname_of(node), []).append(node)
                made.by_name.setdefault(node.name, []).append(node)
            elif node.kind == SymbolKind.TRITON_KERNEL:
                made.triton_by_name.setdefault(node.name, []).append(node)
        return made

    @classmethod
    def from_symbols(cls, symbols: Iterable[Symbol]) -> KernelNodes:
        kinds = (SymbolKind.CUDA_KERNEL, SymbolKind.TRITON_KERNEL)
        return cls.of(
            KernelNode(s.id, s.kind, s.span.path, s.span.start) for s in symbols if s.kind in kinds and s.span
        )

    def to_json(self) -> list[list]:
        return [[n.id, n.kind.value, n.path, n.line] for n in self.nodes]

    @classmethod
    def from_json(cls, rows: list[list]) -> KernelNodes:
        return cls.of(KernelNode(i, SymbolKind(k), p, line) for i, k, p, line in rows)


class KernelJoin:
    """Joins names to nodes, each distinct name once. `triton_sources`: kernel name -> the dotted id of the
    `@triton.jit` function the engine compiled under that name (recorded at runtime by the probe's Triton hook),
    which settles names several tree functions share."""

    def __init__(self, nodes: KernelNodes, triton_sources: dict[str, str] | None = None):
        self.nodes = nodes
        self.triton_sources = triton_sources or {}
        self._known: dict[str, KernelMatch] = {}

    def __call__(self, name: str) -> KernelMatch:
        found = self._known.get(name)
        if found is None:
            found = self._known[name] = self._join(name)
        return found

    def _join(self, name: str) -> KernelMatch:
        signature = demangle(name)
        qualname = qualified_name(signature)
        is_cpp = signature != qualname  # a C++ signature (return type, arguments), not a bare name
        if not is_cpp:
            triton = self._triton(name, qualname)
            if triton is not None:
                return triton
        library = library_of(signature)
        if library:
            return KernelMatch(name, qualname, Origin.LIBRARY, library=library, how="library naming")
        for how, found in (
            ("qualified name", self.nodes.by_qualname.get(qualname, [])),
            ("qualified name suffix", self._by_suffix(qualname)),
            ("kernel name", self.nodes.by_name.get(qualname.rsplit("::", 1)[-1], [])),
        ):
            if found:
                return _tree(name, qualname, how, found)
        return KernelMatch(name, qualname, Origin.UNKNOWN, how="no node or library")

    def _triton(self, name: str, qualname: str) -> KernelMatch | None:
        found = self.nodes.triton_by_name.get(qualname, [])
        compiled = self.triton_sources.get(name)
        if compiled:
            exact = [n for n in found if n.id == compiled]
            if exact:
                return _tree(name, qualname, "Triton kernel compiled from this function", exact)
            if not found:  # compiled from a file outside the tree (torch.compile's own, a library's)
                return None
        return _tree(name, qualname, "Triton kernel name", found) if found else None

    def _by_suffix(self, qualname: str) -> list[KernelNode]:
        """Nodes whose qualified name ends the printed one or is ended by it (one side knows a scope the other
        does not: an anonymous namespace, a class)."""
        tail = "::" + qualname
        return [
            n
            for q, nodes in self.nodes.by_qualname.items()
            if q.endswith(tail) or qualname.endswith("::" + q)
            for n in nodes
        ]


def _tree(name: str, qualname: str, how: str, found: list[KernelNode]) -> KernelMatch:
    """A match in the tree; among several nodes the ones a CUDA build compiles first, then by id."""
    ranked = sorted(found, key=lambda n: (is_rocm_path(n.path), n.id))
    best = ranked[0]
    return KernelMatch(
        name,
        qualname,
        Origin.TREE,
        static_id=best.id,
        path=best.path,
        line=best.line,
        how=how if len(ranked) == 1 else f"{how}, {len(ranked)} candidates",
        candidates=tuple(n.id for n in ranked) if len(ranked) > 1 else (),
    )
