"""The user questions on the real default trees through the CLI (marker `slow`: builds a tree when not built):
contracts and claims in `atlas show`, callers counted as symbols and sites, claims side by side across pin sets,
`atlas find`, callers of a class."""

import pytest

from atlas.cli import main
from atlas.env import settings as load_settings
from atlas.errors import AtlasError
from atlas.graph import load_graph

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def built():
    try:
        settings = load_settings()
        load_graph(settings, "sglang")
    except AtlasError as exc:
        pytest.skip(f"sglang's default pins are not synced: {exc}")


def test_show_prints_the_contract_and_claims_with_verdicts_per_pin(capsys):
    assert main(["show", "RadixCache.match_prefix", "--framework", "sglang"]) == 0
    out = capsys.readouterr().out
    assert (
        "contract sglang.prefix-cache.match-prefix  (prefix-cache, plan)  at "
        "python/sglang/srt/mem_cache/radix_cache.py:352" in out
    )
    assert "\n  allocated  nothing; the matched KV is not locked yet" in out
    assert "claim radix-token-match:" in out and "verdicts: default holds, article holds, latest holds" in out
    assert "\n  review     16 of 16 statements reviewed true\n" in out  # the review record's word on each statement
    assert "    reviewed: true  decided by python/sglang/srt/mem_cache/radix_cache.py:400-410" in out
    assert "evidence at default: python/sglang/srt/mem_cache/radix_cache.py:400" in out
    header = next(line for line in out.splitlines() if line.startswith("callers ("))
    rows = out.split(header, 1)[1].split("\ncontract ", 1)[0].strip().splitlines()
    num_symbols, num_sites = int(header.split("(")[1].split()[0]), int(header.split(" at ")[1].split()[0])
    assert header == f"callers ({num_symbols} symbols at {num_sites} sites):"
    assert num_sites == len(rows) and num_symbols == len({r.split()[0] for r in rows})
    assert "runtime: probe fired" in out
    assert main(["show", "RadixCache.match_prefix", "--framework", "sglang", "--pins", "default,latest"]) == 0
    out = capsys.readouterr().out
    assert "at latest: contract sglang.prefix-cache.match-prefix at python/sglang/srt/mem_cache/radix_cache.py:" in out
    latest = out.split("at latest: contract", 1)[1]
    assert "evidence at latest: python/sglang/srt/mem_cache/radix_cache.py:" in latest


def test_claims_side_by_side_put_the_changes_first(capsys):
    assert main(["check", "sglang", "--claims", "--pins", "default,latest"]) in (0, 1)
    out = capsys.readouterr().out
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("# claims at sglang"))
    rows = [line for line in lines[start + 2 :] if line.startswith("  ") and not line.startswith("      ")]
    marks = [r[2] for r in rows]
    assert "*" in marks and marks == sorted(marks, key=lambda m: m != "*")  # changed first
    changed = next(r for r in rows if "sglang.prefix-cache.adder-recount-after-lock#recount-after-lock" in r)
    assert changed.split()[:3] == ["*", "holds", "changed"]


def test_find_searches_names_and_says_when_nothing_matches(capsys):
    assert main(["find", "match_prefix", "--framework", "sglang", "--kind", "symbol"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("symbol     sglang.srt.mem_cache.radix_cache.RadixCache.match_prefix")
    assert main(["find", "zzqqxxjjkk", "--framework", "sglang", "--kind", "file"]) == 1
    assert "nothing matches" in capsys.readouterr().err
    assert main(["find", "match_prefx", "--framework", "sglang", "--kind", "symbol"]) == 1  # only names spelled alike
    captured = capsys.readouterr()
    assert "the names spelled alike are listed" in captured.err
    assert "RadixCache.match_prefix  (method, KV-cache manager, annotated, spelled alike)" in captured.out
    assert main(["find", "*radix_cache*", "--framework", "sglang", "--kind", "file"]) == 0  # a glob over paths
    assert "python/sglang/srt/mem_cache/radix_cache.py" in capsys.readouterr().out


def test_callers_of_a_class_list_its_methods_callers(capsys):
    assert main(["graph", "callers", "schedule_batch.Req", "--framework", "sglang"]) == 0
    captured = capsys.readouterr()
    assert "is a class with no edges of its own" in captured.err
    assert "<- sglang.srt.managers.schedule_batch.Req.init_next_round_input" in captured.out
