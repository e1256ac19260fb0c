"""atlas.graph.load_symbols on the fixture trees of test_build: the parse stage alone (files parsed over forked
helpers, each file's symbols read without its scopes) gives the symbols the full build stores, and leaves the parses
in the cache for the build; a damaged cache entry is parsed again."""

from __future__ import annotations

import pytest

from atlas.graph import build, load_index, load_symbols, packs, parsing
from test_build import TREES, settings  # noqa: F401 - the fixture

pytestmark = pytest.mark.usefixtures("settings")


def rows(index) -> dict:
    """The Python symbols of an index (the full build adds the kernel layer's, `op:...`, `cuda:...`)."""
    return {sid: (s.kind, s.span, s.signature, s.decorators, s.bases, s.component) for sid, s in index.symbols.items()
            if ":" not in sid}


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
    ((offset, size),) = [(o, n) for _, o, n in packs._read_header(pack).values()
                         if b"pkg/pool.py" in pack.read_bytes()[o:o + n]]
    raw = bytearray(pack.read_bytes())
    raw[offset:offset + 4] = b"\xff" * 4  # that entry damaged, its length kept
    pack.write_bytes(bytes(raw))
    for stored in settings.build.glob("graph/*/symbols-*.pickle"):
        stored.unlink()
    assert rows(load_symbols(settings, "vllm")) == before
