"""atlas.graph.build_many on two fixture trees: the graphs it stores side by side (each tree resolved in a process of
its own, files parsed in others) are the ones `build` stores for each tree alone in this process; a second run
rebuilds nothing, and one after a code change parses nothing; a process that fails stops the build with its error;
a graph built by other code is not served as current."""

from __future__ import annotations

import importlib
from dataclasses import replace

import pytest
from gitfixtures import synced_project

from atlas import stored as stored_files
from atlas.errors import BuildMissing
from atlas.graph import build, build_many, load_graph, load_index, packs, processes, schedule
from atlas.graph.build import GRAPH_FILE, GRAPH_VERSION, INDEX_FILE, SITES_FILE, folder
from atlas.sources import load_all, locate

TREES = {
    "vllm": {
        "pkg/__init__.py": "",
        "pkg/pool.py": "class Pool:\n    def take(self, n):\n        return [n]\n",
        "pkg/sched.py": "from pkg.pool import Pool\n\n\nclass Scheduler:\n    def __init__(self):\n"
        "        self.pool = Pool()\n\n    def schedule(self):\n"
        "        return self.pool.take(1) + missing(2)\n",
    },
    "sglang": {
        "pkg/__init__.py": "",
        "pkg/a.py": "def f(x):\n    return g(x)\n\n\ndef g(x):\n    return x\n",
        "pkg/b.py": "from pkg.a import f\n\nf(1)\n",
        "pkg/ops.py": "import torch\n\n\ndef norm(x):\n    return torch.ops.demo.norm(x)\n",
        "pkg/csrc/norm.cu": "__global__ void norm_kernel(float* x) {}\n"
        "void norm(float* x) { norm_kernel<<<1, 1>>>(x); }\n",
        "pkg/csrc/bind.cpp": 'TORCH_LIBRARY(demo, m) {\n  m.def("norm(Tensor x) -> Tensor");\n'
        '  m.impl("norm", &norm);\n}\n',
    },
}


@pytest.fixture
def settings(tmp_path, monkeypatch):
    return synced_project(tmp_path, monkeypatch, TREES)


def stored(s, framework: str):
    (manifest,) = load_all(s.root, [framework])
    out = folder(s, framework, locate(manifest, "default", s).pin.commit)
    table, unresolved, stats = stored_files.load(out / GRAPH_FILE, GRAPH_VERSION)
    edges = [(table.nodes[table.callers[i]], table.nodes[table.callees[i]], table.attrs(i)) for i in range(len(table))]
    sites = stored_files.load(out / SITES_FILE, GRAPH_VERSION)
    return table.nodes, edges, unresolved, stats, stored_files.load(out / INDEX_FILE, GRAPH_VERSION)[2], sites


def built_alone(settings, tmp_path, monkeypatch):
    """Each tree built by `build` in this process (no forks), into a build folder of its own."""
    alone = replace(settings, build=tmp_path / "alone")
    with monkeypatch.context() as m:
        m.setenv("ATLAS_NO_FORK", "1")
        for framework in TREES:
            assert build(alone, framework).rebuilt
    return alone


@pytest.mark.parametrize("workers, chunk_mb", [(None, schedule.CHUNK_MB), (2, 1e-9), (3, 1e-9), (1, 1e-9)])
def test_build_many_stores_what_build_stores(settings, tmp_path, monkeypatch, workers, chunk_mb):
    """With a chunk per file, the processes parse files of each other's trees (and a third only parses)."""
    alone = built_alone(settings, tmp_path, monkeypatch)
    monkeypatch.setattr(schedule, "CHUNK_MB", chunk_mb)
    reports = build_many(settings, list(TREES), workers=workers)
    assert [(r.framework, r.rebuilt, r.num_files) for r in reports] == [("vllm", True, 3), ("sglang", True, 4)]
    for framework in TREES:
        assert stored(settings, framework) == stored(alone, framework)
    nodes, edges, unresolved, _, _, sites = stored(settings, "vllm")
    assert ("pkg.sched.Scheduler.schedule", "pkg.pool.Pool.take") in {(a, b) for a, b, _ in edges}
    assert [u.expression for u in unresolved] == ["missing"]
    assert [(c.expression, c.status.value, c.span.start) for c in sites.sites()] == [
        ("Pool", "in tree", 6),
        ("self.pool.take", "in tree", 9),
        ("missing", "unresolved", 9),
    ]
    _, edges, _, _, _, _ = stored(settings, "sglang")
    chain = {(a, b) for a, b, _ in edges}
    assert {
        ("pkg.ops.norm", "op:demo::norm"),
        ("op:demo::norm", "cpp:pkg/csrc/norm.cu::norm"),
        ("cpp:pkg/csrc/norm.cu::norm", "cuda:pkg/csrc/norm.cu::norm_kernel"),
    } <= chain
    assert [r.rebuilt for r in build_many(settings, list(TREES))] == [False, False]


def test_shares_do_move_between_processes(settings, monkeypatch):
    """The case above is not vacuous: with a chunk per file, the schedule hands files to other processes: with two,
    a tree's Python files to the other tree's owner; with three, work to the process that owns no tree."""
    monkeypatch.setattr(schedule, "CHUNK_MB", 1e-9)
    from atlas.graph.build import _plan, _work
    from atlas.graph.parsing import cache

    works = [_work(_plan(settings, f, "default"), "default", 0.0, cache(settings.build)) for f in TREES]
    costs = [processes.tree_costs(w) for w in works]
    two = schedule.assign(costs, 2)
    assert any(not c.is_cpp and c.tree != p for p, s in enumerate(two) for c in s.foreign), two
    three = schedule.assign(costs, 3)
    assert three[2].owner == -1 and three[2].foreign, three
    assert any(c.is_cpp for s in three for c in s.foreign), three


def test_a_rebuild_after_a_code_change_reads_the_parse_cache(settings, monkeypatch):
    build_many(settings, list(TREES))
    build_module = importlib.import_module("atlas.graph.build")
    monkeypatch.setattr(build_module, "code_version", lambda: "other graph code, same parser")
    reports = build_many(settings, list(TREES))
    assert [(r.rebuilt, r.num_parsed) for r in reports] == [(True, 0), (True, 0)]
    entries = [entry for pack in settings.build.glob("pyfacts/*/*.pack") for entry in packs._read_header(pack).values()]
    data = {entry: entry[0].read_bytes()[entry[1] : entry[1] + entry[2]] for entry in entries}
    ((pack, offset, size, _),) = [entry for entry, raw in data.items() if b"pkg/pool.py" in raw]
    raw = bytearray(pack.read_bytes())
    raw[offset : offset + 4] = b"\xff" * 4  # that entry damaged, its length kept
    pack.write_bytes(bytes(raw))
    monkeypatch.setattr(build_module, "code_version", lambda: "third graph code")
    assert [r.num_parsed for r in build_many(settings, list(TREES))] == [1, 0]  # that file parsed again
    assert ("pkg.sched.Scheduler.schedule", "pkg.pool.Pool.take") in {(a, b) for a, b, _ in stored(settings, "vllm")[1]}


def test_a_failing_process_stops_the_build_with_its_error(settings, monkeypatch):
    def parse_packed(root, f):
        raise OSError(f"cannot read {f.path}")

    monkeypatch.setattr(processes, "parse_packed", parse_packed)  # forked children inherit it
    with pytest.raises(OSError, match="cannot read pkg/"):
        build_many(settings, list(TREES), workers=2)
    assert not list(settings.build.glob(".parse-*"))  # the shares' scratch folder is gone


def test_a_stale_graph_is_rebuilt_or_named(settings, monkeypatch):
    build(settings, "vllm")
    assert "pkg.pool.Pool.take" in load_graph(settings, "vllm", on_demand=False).symbols
    build_module = importlib.import_module("atlas.graph.build")  # (atlas.graph.build is also the function)
    monkeypatch.setattr(build_module, "code_version", lambda: "other parser and graph code")
    for load in (load_graph, load_index):
        with pytest.raises(
            BuildMissing,
            match=r"vllm \(default pins\).* is stale .*run `atlas index vllm --pins "
            r"default`",
        ):
            load(settings, "vllm", on_demand=False)
    assert "pkg.pool.Pool.take" in load_graph(settings, "vllm").symbols  # on demand: built again, under the new key
    assert load_index(settings, "vllm", on_demand=False).get("pkg.pool.Pool.take") is not None
    with pytest.raises(BuildMissing, match=r"graph of sglang \(default pins\).* is missing"):
        load_graph(settings, "sglang", on_demand=False)
