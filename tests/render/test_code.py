"""The source view's per-file data: every indexed file gets one compressed data file holding its text, its
definitions, call sites in source order with their targets, callers, contracts and runtime marks."""

from __future__ import annotations

import base64
import json
import re
import zlib

import pytest
import sitefixture

from atlas.render import code


def payload(text: str) -> dict:
    packed = re.search(r'\{z:"([^"]+)"\}', text).group(1)
    return json.loads(zlib.decompress(base64.b64decode(packed)))


def test_every_file_gets_data_with_calls_callers_and_contracts(tmp_path):
    engine = sitefixture.make_engine(tmp_path)
    runtime = code.Runtime(
        {("vllm.core.sched.Scheduler.schedule", "vllm.core.sched.KVCacheManager.allocate_slots"): 7},
        {"vllm.core.sched.KVCacheManager.allocate_slots": {"fired": 12, "role": "allocate"}},
        "H200 run",
    )
    files = code.code_files(engine, runtime, lambda a: f"mechanisms/{a.mechanism}.html")
    assert sorted(files) == sorted(
        [
            code.data_file("vllm", "vllm/core/pool.py"),
            code.index_file("vllm"),
            code.data_file("vllm", "vllm/core/sched.py"),
        ]
    )
    sched = payload(files[code.data_file("vllm", "vllm/core/sched.py")])
    assert sched["text"] == engine.source("vllm/core/sched.py") and sched["lang"] == "python"
    names = [d[2] for d in sched["defs"]]
    schedule = names.index("schedule")
    ((line, name, targets),) = sched["callees"][str(schedule)]
    assert (line, name) == (19, "allocate_slots")
    target, provenance, confidence, seen = targets[0]
    assert sched["targets"][target][:3] == ["vllm.core.sched.KVCacheManager.allocate_slots", "vllm/core/sched.py", 7]
    assert (provenance, confidence, seen) == ("type-inferred", 0.9, 7)
    allocate = names.index("allocate_slots")
    assert sched["callers"][str(allocate)]["rows"][0][1:3] == ["vllm/core/sched.py", 19]
    note = sched["notes"][0]
    assert note[:3] == [7, 10, "vllm.prefix_cache.allocate-slots"] and "output: blocks | None" in note[4]
    assert note[6] == "c1 [default holds]: Blocks come from the free pool <b>only</b>."  # claims with verdicts
    assert sched["hooks"] == [[7, "vllm.core.sched.KVCacheManager.allocate_slots", 12, "allocate", "H200 run"]]
    pool = payload(files[code.data_file("vllm", "vllm/core/pool.py")])
    get_new = [d[2] for d in pool["defs"]].index("get_new_blocks")
    ((_, _, ((op, *_),)),) = pool["callees"][str(get_new)]
    assert pool["targets"][op][0] == "op:_C::reshape_and_cache" and pool["targets"][op][1] == ""


def test_runtime_only_from_traces_at_the_pin(tmp_path):
    engine = sitefixture.make_engine(tmp_path)
    at_pin = {
        "framework": "vllm",
        "commit": engine.pin.commit,
        "hooks": {"a.b": {"fired": 3}},
        "runtime_edges": {"observed": [{"caller": "a", "callee": "b", "count": 2, "site": "x.py:1"}]},
    }
    other = {**at_pin, "commit": "b" * 40}
    runtime = code.runtime_for(engine, [("mine", at_pin), ("other pin", other)])
    assert runtime.edges == {("a", "b"): 2} and runtime.hooks == {"a.b": {"fired": 3}} and runtime.source == "mine"


def test_runtime_includes_recorded_call_edges_at_the_pin(tmp_path):
    """A call-edge recording of the engine at this pin (results/edges/, atlas.runtime.recording) marks its calls by
    static (caller, callee); a recording at another commit, or an edge whose end the index lacks, marks nothing."""
    from atlas.runtime.recording import RecordedEdge, Recording

    engine = sitefixture.make_engine(tmp_path)
    edges = (
        RecordedEdge(
            "vllm/core/sched.py", "Scheduler.schedule", 19, "vllm/core/sched.py", "KVCacheManager.allocate_slots", 7, 5
        ),
        RecordedEdge("vllm/core/sched.py", "Scheduler.schedule", 18, "vllm/core/gone.py", "helper", 1, 2),
    )
    at_pin = Recording("vllm", "default", "v1", engine.pin.commit, "1", edges, 1, frozenset())
    elsewhere = Recording("vllm", "latest", "v2", "b" * 40, "2", edges, 1, frozenset())
    runtime = code.runtime_for(engine, [], [("recorded", at_pin), ("other", elsewhere)])
    assert runtime.edges == {("vllm.core.sched.Scheduler.schedule", "vllm.core.sched.KVCacheManager.allocate_slots"): 5}
    assert runtime.source == "recorded"


def test_imported_names_resolve_absolute_relative_and_parenthesized():
    text = (
        "from vllm.core.pool import BlockPool, get as fetch  # note\n"
        "from .pool import (\n"
        "    BlockPool,\n"
        "    free_blocks,\n"
        ")\n"
        "from .. import sched\n"
        "x = 1\n"
    )
    assert code.imported_names("vllm.core.sched", False, text) == [
        (1, "BlockPool", "vllm.core.pool.BlockPool"),
        (1, "get", "vllm.core.pool.get"),
        (3, "BlockPool", "vllm.core.pool.BlockPool"),
        (4, "free_blocks", "vllm.core.pool.free_blocks"),
        (6, "sched", "vllm.sched"),
    ]
    assert code.imported_names("vllm.core", True, "from .pool import BlockPool\n") == [
        (1, "BlockPool", "vllm.core.pool.BlockPool")
    ]


def test_imports_link_to_their_definitions(tmp_path):
    engine = sitefixture.make_engine(tmp_path)
    text = "from vllm.core.pool import BlockPool, missing\n"
    data = code.file_payload(engine, "vllm/core/uses.py", text, [], {}, {}, [], code.Runtime())
    ((name, target),) = data["refs"][1]
    assert name == "BlockPool" and data["targets"][target][:3] == ["vllm.core.pool.BlockPool", "vllm/core/pool.py", 1]


@pytest.mark.parametrize(
    "line",
    [
        "    def foo(self):",
        "class Foo(Bar):",
        "x = foo_bar + foo",
        "  async def  foo():",
        "deffoo",
        "def\tfoo",
        "undef foo",
        "classy foo",
        "def foo_",
        "_def foo",
        'op.def("foo")',
        "def foox foo",
        "lambda x: x",
        "def 中foo",
        "é_foo foo",
    ],
)
@pytest.mark.parametrize("name", ["foo", "Foo", "foo_bar", "lambda", "x", "def"])
def test_name_search_matches_the_word_patterns(line, name):
    """The plain-string search for a definition's name answers as `\\b(?:def|class)\\s+name\\b` and `\\bname\\b`."""
    from atlas.render.code import _holds_name

    assert _holds_name(line, name, True) == bool(re.search(rf"\b(?:def|class)\s+{re.escape(name)}\b", line))
    assert _holds_name(line, name, False) == bool(re.search(rf"\b{re.escape(name)}\b", line))
