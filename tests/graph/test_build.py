"""atlas.graph.build_many on two fixture trees: the graphs it stores side by side (one tree resolved in a forked
child) are the ones `build` stores for each tree alone, in process or forked; a second run rebuilds nothing; a graph
built by other code is not served as current."""

from __future__ import annotations

import importlib
import pickle
from dataclasses import replace

import pytest

from atlas.env import settings as load_settings
from atlas.errors import BuildMissing
from atlas.graph import build, build_many, load_graph, load_index
from atlas.graph.build import GRAPH_FILE, INDEX_FILE, folder
from atlas.sources import load_all, locate
from atlas.sources.sync import sync_pin
from gitfixtures import make_remote, write_manifest

TREES = {
    "vllm": {"pkg/__init__.py": "", "pkg/pool.py": "class Pool:\n    def take(self, n):\n        return [n]\n",
             "pkg/sched.py": "from pkg.pool import Pool\n\n\nclass Scheduler:\n    def __init__(self):\n"
                             "        self.pool = Pool()\n\n    def schedule(self):\n"
                             "        return self.pool.take(1) + missing(2)\n"},
    "sglang": {"pkg/__init__.py": "", "pkg/a.py": "def f(x):\n    return g(x)\n\n\ndef g(x):\n    return x\n",
               "pkg/b.py": "from pkg.a import f\n\nf(1)\n"},
}


@pytest.fixture
def settings(tmp_path, monkeypatch):
    mirror, root = tmp_path / "mirror", tmp_path / "project"
    for name, files in TREES.items():
        make_remote(mirror, {"v1": files}, name=name)
        write_manifest(root, name, f"https://example.invalid/{name}", "v1")
    monkeypatch.setenv("ATLAS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ATLAS_MIRROR", str(mirror))
    monkeypatch.setenv("ATLAS_BUILD", str(tmp_path / "build"))
    monkeypatch.chdir(root)
    s = load_settings()
    for manifest in load_all(s.root):
        sync_pin(manifest, "default", s)
    return s


def stored(s, framework: str):
    (manifest,) = load_all(s.root, [framework])
    out = folder(s, framework, locate(manifest, "default", s).pin.commit)
    table, unresolved, stats = pickle.loads((out / GRAPH_FILE).read_bytes())
    edges = [(table.nodes[table.callers[i]], table.nodes[table.callees[i]], table.attrs(i)) for i in range(len(table))]
    return table.nodes, edges, unresolved, stats, pickle.loads((out / INDEX_FILE).read_bytes())[2]


@pytest.mark.parametrize("no_fork", [False, True])
def test_build_many_stores_what_build_stores(settings, tmp_path, monkeypatch, no_fork):
    if no_fork:
        monkeypatch.setenv("ATLAS_NO_FORK", "1")
    alone = replace(settings, build=tmp_path / "alone")
    for framework in TREES:
        assert build(alone, framework).rebuilt
    reports = build_many(settings, list(TREES))
    assert [(r.framework, r.rebuilt, r.num_files) for r in reports] == [("vllm", True, 3), ("sglang", True, 3)]
    for framework in TREES:
        assert stored(settings, framework) == stored(alone, framework)
    nodes, edges, unresolved, _, _ = stored(settings, "vllm")
    assert ("pkg.sched.Scheduler.schedule", "pkg.pool.Pool.take") in {(a, b) for a, b, _ in edges}
    assert [u[1] for u in unresolved] == ["missing"]
    assert [r.rebuilt for r in build_many(settings, list(TREES))] == [False, False]


def test_a_stale_graph_is_rebuilt_or_named(settings, monkeypatch):
    build(settings, "vllm")
    assert "pkg.pool.Pool.take" in load_graph(settings, "vllm", on_demand=False).symbols
    build_module = importlib.import_module("atlas.graph.build")  # (atlas.graph.build is also the function)
    monkeypatch.setattr(build_module, "code_version", lambda: "other parser and graph code")
    for load in (load_graph, load_index):
        with pytest.raises(BuildMissing, match=r"vllm \(default pins\).* is stale .*run `atlas index vllm --pins "
                                               r"default`"):
            load(settings, "vllm", on_demand=False)
    assert "pkg.pool.Pool.take" in load_graph(settings, "vllm").symbols  # on demand: built again, under the new key
    assert load_index(settings, "vllm", on_demand=False).get("pkg.pool.Pool.take") is not None
    with pytest.raises(BuildMissing, match=r"graph of sglang \(default pins\).* is missing"):
        load_graph(settings, "sglang", on_demand=False)
