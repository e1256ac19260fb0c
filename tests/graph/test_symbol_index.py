"""atlas.graph.load_symbols on two small fixture trees: the parse stage alone (files parsed over forked
helpers, each file's symbols read without its scopes) gives the symbols the full build stores, and leaves the parses
in the cache for the build; a damaged cache entry is parsed again."""

from __future__ import annotations

import pytest
from gitfixtures import make_remote, write_manifest

from atlas.env import settings as load_settings
from atlas.graph import build, load_index, load_symbols, packs, parsing
from atlas.sources import load_all
from atlas.sources.sync import sync_pin

TREES = {
    "vllm": {
        "pkg/__init__.py": "",
        "pkg/pool.py": "class Pool:\n    def take(self, n):\n        return [n]\n",
        "pkg/sched.py": "from pkg.pool import Pool\n\n\nclass Scheduler:\n    def __init__(self):\n"
        "        self.pool = Pool()\n\n    def schedule(self):\n"
        "        return self.pool.take(1)\n",
    },
    "sglang": {
        "pkg/__init__.py": "",
        "pkg/a.py": "def f(x):\n    return g(x)\n\n\ndef g(x):\n    return x\n",
        "pkg/b.py": "from pkg.a import f\n\nf(1)\n",
    },
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


def rows(index) -> dict:
    """The Python symbols of an index (the full build adds the kernel layer's, `op:...`, `cuda:...`)."""
    return {
        sid: (s.kind, s.span, s.signature, s.decorators, s.bases, s.component)
        for sid, s in index.symbols.items()
        if ":" not in sid
    }


@pytest.mark.parametrize("min_share", [1, 10**6])  # a helper per core, or all parsed in this process
def test_symbols_are_the_builds_and_the_build_reuses_their_parses(settings, monkeypatch, min_share):
    monkeypatch.setattr(parsing, "MIN_SHARE", min_share)
    symbols = {framework: rows(load_symbols(settings, framework)) for framework in TREES}
    assert [build(settings, framework).num_parsed for framework in TREES] == [0, 0]
    assert symbols == {framework: rows(load_index(settings, framework)) for framework in TREES}
    assert "pkg.sched.Scheduler.schedule" in symbols["vllm"]


def test_a_damaged_entry_is_parsed_again(settings):
    before = rows(load_symbols(settings, "vllm"))
    (pack,) = settings.build.glob("pyfacts/*/*.pack")
    entries = packs._read_header(pack).values()
    ((offset, size),) = [(o, n) for _, o, n, _digest in entries if b"pkg/pool.py" in pack.read_bytes()[o : o + n]]
    raw = bytearray(pack.read_bytes())
    raw[offset : offset + 4] = b"\xff" * 4  # that entry damaged, its length kept
    pack.write_bytes(bytes(raw))
    for stored in settings.build.glob("graph/*/symbols-*.pickle"):
        stored.unlink()
    assert rows(load_symbols(settings, "vllm")) == before
