"""How a build spreads its work over the cores. A tree's files (Python and C++) can be parsed anywhere; its resolution
cannot be split, so one process, the tree's owner, holds it. Files are dealt out in chunks so that the processes end
together, by a cost model in seconds per MB (measured on the default trees with benchmarks/graph_stages.py).
Each process runs, in order: its chunks of other trees' Python files, then their C++ files (their owners collect
them later), its own tree's Python files, the resolution, its own C++ files, the kernel layer. Pure."""

from __future__ import annotations

from dataclasses import dataclass, field

# Relative costs (the unit is PY_PARSE's) on the default trees with the mypyc-compiled walker and resolver
# (benchmarks/bench_graph.py stages: parse and walk 9.4-14.9 s, resolve 7.1-10.0 s per tree, 4 rounds): what matters
# is their ratios, the box's speed drifts.
PY_PARSE = 0.20  # s/MB of Python: tree-sitter parse, the walk, packing
CPP_PARSE = 0.36  # s/MB of C++/CUDA: parse and scan (atlas.parse.kernels.layer.cpp_file)
RESOLVE = 0.14  # s/MB of Python: unpacking the facts, resolution and assembling the graph
RECEIVE = 0.02  # s/MB of Python facts parsed elsewhere or read from the cache: reading them in
CHUNK_MB = 0.5
MB = 1e6


@dataclass(frozen=True, slots=True)
class Tree:
    """One tree to build: the sizes (bytes) of its Python files to parse, of its C++ files, and of the Python facts
    the cache already holds."""

    py: tuple[int, ...]
    cpp: tuple[int, ...]
    cached: int = 0


@dataclass(frozen=True, slots=True)
class Chunk:
    tree: int
    is_cpp: bool
    files: tuple[int, ...]  # indices into the tree's py or cpp files
    seconds: float


@dataclass(slots=True)
class Share:
    """What one process does: `owner` is the tree it resolves (-1: it only parses for others)."""

    owner: int
    foreign: list[Chunk] = field(default_factory=list)  # other trees' chunks, Python ones first
    own_py: list[int] = field(default_factory=list)
    own_cpp: list[int] = field(default_factory=list)


def chunks(tree: int, sizes: tuple[int, ...], is_cpp: bool) -> list[Chunk]:
    """Runs of consecutive files of about CHUNK_MB."""
    rate = CPP_PARSE if is_cpp else PY_PARSE
    out, run, total = [], [], 0
    for i, size in enumerate(sizes):
        run.append(i)
        total += size
        if total >= CHUNK_MB * MB:
            out.append(Chunk(tree, is_cpp, tuple(run), rate * total / MB))
            run, total = [], 0
    if run:
        out.append(Chunk(tree, is_cpp, tuple(run), rate * total / MB))
    return out


def finish_times(trees: list[Tree], where: dict[Chunk, int], num_processes: int) -> list[float]:
    """When each process ends, by the model, with chunks placed as `where` says (chunk -> process; process i < len
    (trees) owns tree i)."""
    foreign_py, foreign_cpp = [0.0] * num_processes, [0.0] * num_processes
    own_py, own_cpp = [0.0] * len(trees), [0.0] * len(trees)
    received = [t.cached / MB for t in trees]
    for chunk, p in where.items():
        if p == chunk.tree:
            (own_cpp if chunk.is_cpp else own_py)[p] += chunk.seconds
        else:
            (foreign_cpp if chunk.is_cpp else foreign_py)[p] += chunk.seconds
            if not chunk.is_cpp:
                received[chunk.tree] += chunk.seconds / PY_PARSE
    py_ready = [foreign_py[p] + foreign_cpp[p] + (own_py[p] if p < len(trees) else 0.0) for p in range(num_processes)]
    cpp_ready = list(py_ready)
    for chunk, p in where.items():  # a tree's shares are ready when the process holding them has done its foreign part
        if p != chunk.tree:
            ready = foreign_py[p] if not chunk.is_cpp else foreign_py[p] + foreign_cpp[p]
            target = cpp_ready if chunk.is_cpp else py_ready
            target[chunk.tree] = max(target[chunk.tree], ready)
    out = [foreign_py[p] + foreign_cpp[p] for p in range(num_processes)]
    for i, tree in enumerate(trees):
        resolved = py_ready[i] + RESOLVE * sum(tree.py) / MB + RECEIVE * received[i]
        out[i] = max(resolved + own_cpp[i], cpp_ready[i])
    return out


def assign(trees: list[Tree], cores: int) -> list[Share]:
    """A share per process: one per tree (process i owns tree i), and helpers while cores are left. Every chunk
    starts with its owner; the last chunk of the process that ends last moves to the process where it ends soonest,
    while that makes the build end sooner."""
    num_processes = max(cores, len(trees))
    where: dict[Chunk, int] = {}
    own: list[list[Chunk]] = []  # per tree, the chunks still at the owner, in order
    for i, tree in enumerate(trees):
        mine = chunks(i, tree.py, False) + chunks(i, tree.cpp, True)
        own.append(mine)
        where.update((c, i) for c in mine)
    ends = finish_times(trees, where, num_processes)
    while True:
        late = max(range(len(trees)), key=lambda i: ends[i], default=None)
        if late is None or max(ends) > ends[late] or not own[late]:
            break
        best = None
        for candidate in {
            max((c for c in own[late] if c.is_cpp is kind), key=lambda c: c.files, default=None)
            for kind in (False, True)
        } - {None}:
            for p in range(num_processes):
                if p == late:
                    continue
                where[candidate] = p
                trial = max(finish_times(trees, where, num_processes))
                if best is None or trial < best[0]:
                    best = (trial, candidate, p)
            where[candidate] = late
        if best is None or best[0] >= max(ends) - 1e-9:
            break
        _, chunk, p = best
        where[chunk] = p
        own[late].remove(chunk)
        ends = finish_times(trees, where, num_processes)
    return _shares(trees, where, num_processes)


def _shares(trees: list[Tree], where: dict[Chunk, int], num_processes: int) -> list[Share]:
    shares = [Share(p if p < len(trees) else -1) for p in range(num_processes)]
    for chunk in sorted(where, key=lambda c: (c.is_cpp, c.tree, c.files)):
        p = where[chunk]
        if p != chunk.tree:
            shares[p].foreign.append(chunk)
        elif chunk.is_cpp:
            shares[p].own_cpp.extend(chunk.files)
        else:
            shares[p].own_py.extend(chunk.files)
    return shares
