"""Paging of MCP answers: a small answer whole, a large one cut on its longest list with a cursor that walks every
item once."""

import json

import pytest

from atlas.server.paging import page


def test_a_small_answer_comes_whole():
    doc = {"pin": {"commit": "c" * 40}, "rows": [1, 2, 3]}
    out = page(doc)
    assert out["rows"] == [1, 2, 3] and out["page"] == {"list": "rows", "offset": 0, "num_items": 3, "next_cursor": ""}


def test_a_large_answer_is_cut_on_its_longest_list_and_the_cursor_walks_it_once():
    doc = {"pin": "p", "few": list(range(5)), "rows": [{"symbol": f"s{i}", "line": i} for i in range(2000)]}
    seen, cursor = [], ""
    while True:
        out = page(doc, cursor, max_chars=4000)
        assert len(json.dumps(out)) < 4500 and out["few"] == doc["few"] and out["pin"] == "p"
        seen += out["rows"]
        cursor = out["page"]["next_cursor"]
        if not cursor:
            break
    assert seen == doc["rows"]


def test_a_cursor_not_given_by_the_server_is_an_error():
    with pytest.raises(ValueError, match="not one this server gave"):
        page({"rows": [1]}, "abc")
