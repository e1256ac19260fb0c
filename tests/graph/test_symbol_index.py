"""atlas.graph.load_symbols on two small fixture trees: the parse stage alone (files parsed over forked
helpers, each file's symbols read without its scopes) gives the symbols the full build stores, and leaves the parses
in the cache for the build; a damaged cache entry is parsed again."""

from __future__ import annotations

import pytest
from gitfixtures import synced_project

from atlas.graph import build, load_index, load_symbols, packs, parsing

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
    return synced_project(tmp_path, monkeypatch, TREES)


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
