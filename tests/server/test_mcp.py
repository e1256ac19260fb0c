"""`atlas mcp` through the MCP SDK's own client: every tool on the real default graphs in memory, a warm call
under a second, errors as tool errors with the CLI's one-line text, paging with a cursor; and the same server as
a real stdio subprocess (`python -m atlas mcp`), nothing on stdout but the protocol. Marker `slow`: the graphs are
built when missing."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from atlas.env import settings as load_settings
from atlas.errors import AtlasError
from atlas.graph import load_graph
from atlas.server import server

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
CALLS = {  # every tool, with arguments a user would give
    "search_symbols": {"query": "match_prefix", "framework": "sglang"},
    "show_symbol": {"symbol": "RadixCache.match_prefix", "framework": "sglang"},
    "callers": {"symbol": "KVCacheManager.allocate_slots", "framework": "vllm", "depth": 2},
    "callees": {"symbol": "Scheduler.schedule", "framework": "vllm", "depth": 2},
    "call_path": {"source": "EngineCore.step", "target": "reshape_and_cache_flash", "framework": "vllm", "k": 2},
    "mechanism": {"name": "prefix-cache", "framework": "sglang"},
    "claims": {"framework": "sglang", "pins": ["default"]},
    "diff": {"framework": "sglang", "old": "default", "new": "latest", "under": "python/sglang/srt/mem_cache"},
    "unresolved": {"framework": "vllm", "kind": "kernel"},
    "runtime_evidence": {"symbol": "RadixCache.match_prefix", "framework": "sglang"},
}


@pytest.fixture(scope="module")
def settings():
    try:
        found = load_settings()
        for framework in ("vllm", "sglang"):
            load_graph(found, framework)
    except AtlasError as exc:
        pytest.skip(f"no synced default pins: {exc}")
    return found


def _doc(result) -> dict:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def test_every_tool_answers_with_the_pin_and_file_lines(settings):
    async def run():
        async with Client(server(settings)) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names == set(CALLS)
            answers = {name: _doc(await client.call_tool(name, args)) for name, args in CALLS.items()}
            started = time.perf_counter()
            warm = await client.call_tool("show_symbol", {"symbol": "Scheduler.schedule", "framework": "vllm"})
            return answers, warm, time.perf_counter() - started

    answers, warm, seconds = anyio.run(run)
    assert seconds < 1.0, f"a warm show_symbol took {seconds:.2f} s"
    assert _doc(warm)["pin"]["commit"] and _doc(warm)["place"]["path"] == "vllm/v1/core/sched/scheduler.py"
    show = answers["show_symbol"]
    assert show["pin"] == {
        "framework": "sglang",
        "pin_set": "default",
        "ref": "v0.5.17",
        "commit": show["pin"]["commit"],
    }
    assert len(show["pin"]["commit"]) == 40
    (contract,) = [c for c in show["contracts"] if c["annotation"] == "sglang.prefix-cache.match-prefix"]
    assert contract["contract"]["allocated"] and contract["line"] > 0
    reviews = {r["field"]: r for r in contract["reviews"]}
    assert reviews["contract.allocated"]["verdict"] == "true" and reviews["contract.allocated"]["deciding"][0]["path"]
    claim = next(c for c in contract["claims"] if c["id"] == "radix-token-match")
    latest = {v["pin_set"]: v for v in claim["verdicts"]}["latest"]
    assert latest["verdict"] == "holds" and "MatchResult.device_prefix_len" in latest["note"]
    assert all(e["path"].endswith(".py") and e["line"] > 0 for e in claim["evidence"])
    assert answers["search_symbols"]["hits"][0]["name"] == "sglang.srt.mem_cache.radix_cache.RadixCache.match_prefix"
    rows = answers["callees"]["rows"]
    assert all(r["path"] and r["line"] > 0 for r in rows if r["depth"] > 0)
    assert {r["parent"] for r in rows} <= {answers["callees"]["root"]} | {r["symbol"] for r in rows}
    path = answers["call_path"]["paths"][0]["hops"]
    assert path[-1]["callee"].endswith("::reshape_and_cache_flash_kernel") and all(h["line"] for h in path)
    steps = answers["mechanism"]["steps"]
    assert steps and all(s["path"] and s["line"] for s in steps)
    assert answers["claims"]["rows"] and answers["claims"]["pins"][0]["commit"]
    changes = answers["diff"]["changes"]
    assert changes and all(
        any(s and s["path"].startswith("python/sglang/srt/mem_cache") for s in (c["old"], c["new"])) for c in changes
    )
    assert answers["unresolved"]["sites"] and answers["unresolved"]["pin"]["commit"]
    runtime = answers["runtime_evidence"]
    assert runtime["hooks"][0]["fired"] > 0 and runtime["called_by"]


def test_errors_are_tool_errors_with_the_cli_text_and_pages_have_a_cursor(settings):
    async def run():
        async with Client(server(settings)) as client:
            missing = await client.call_tool("show_symbol", {"symbol": "Scheduler.schedul", "framework": "vllm"})
            first = _doc(await client.call_tool("unresolved", {"framework": "vllm"}))
            second = _doc(
                await client.call_tool("unresolved", {"framework": "vllm", "cursor": first["page"]["next_cursor"]})
            )
            return missing, first, second

    missing, first, second = anyio.run(run)
    assert missing.is_error
    text = missing.content[0].text
    assert text.startswith("atlas: error: no symbol 'Scheduler.schedul'") and "\n" not in text
    assert "did you mean: vllm.v1.core.sched.scheduler.Scheduler.schedule" in text
    assert first["page"]["next_cursor"] and len(json.dumps(first)) < 45_000
    assert second["page"]["offset"] == len(first["sites"])
    assert second["sites"][0] != first["sites"][0]


def test_stdio_subprocess_speaks_only_the_protocol_on_stdout(settings):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ATLAS_BUILD": str(settings.build), "ATLAS_ROOT": str(settings.root)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "atlas", "mcp"], env=env, cwd=str(ROOT))

    async def run():
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
            shown = await client.call_tool(
                "show_symbol", {"symbol": "KVCacheManager.allocate_slots", "framework": "vllm"}
            )
            found = await client.call_tool("search_symbols", {"query": "allocate_slots", "framework": "vllm"})
            return tools, _doc(shown), _doc(found)

    tools, shown, found = anyio.run(run)
    assert len(tools) == len(CALLS)
    assert shown["id"] == "vllm.v1.core.kv_cache_manager.KVCacheManager.allocate_slots"
    assert shown["place"]["permalink"].startswith("https://github.com/vllm-project/vllm/blob/")
    assert found["hits"][0]["path"] == "vllm/v1/core/kv_cache_manager.py"
    # the raw stream: every line the server writes on stdout is a JSON-RPC message, even while it loads a graph
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "show_symbol", "arguments": {"symbol": "Scheduler.schedule", "framework": "vllm"}},
        },
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "atlas", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        proc.stdin.flush()
        lines = []
        while not lines or lines[-1].get("id") != 2:
            line = proc.stdout.readline()
            assert line, f"the server ended after {lines}"
            lines.append(json.loads(line))  # not JSON: something else wrote on stdout
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert [m.get("id") for m in lines] == [1, 2] and all(m["jsonrpc"] == "2.0" for m in lines)
    assert "vllm.v1.core.sched.scheduler.Scheduler.schedule" in lines[1]["result"]["content"][0]["text"]
