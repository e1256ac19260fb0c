"""Bounded answers for the MCP server: a result's JSON whole when it fits the size cap, else one page of its
longest list with a cursor for the next."""

from __future__ import annotations

import json
from typing import Any

MAX_CHARS = 40_000  # an answer's JSON at most (a model reads it whole)


def dumps(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _longest(doc: dict) -> str | None:
    """The key of the largest list in `doc` (its JSON size), the one a page cuts."""
    lists = [(len(dumps(v)), k) for k, v in doc.items() if isinstance(v, list) and v]
    return max(lists)[1] if lists else None


def page(doc: dict, cursor: str = "", max_chars: int = MAX_CHARS) -> dict:
    """`doc` with its longest list cut to the items from `cursor` (an offset, as a previous page's `next_cursor`
    gave it) that fit in `max_chars`; `page` says where the cut is: {list, offset, num_items, next_cursor}."""
    try:
        offset = int(cursor or 0)
    except ValueError:
        raise ValueError(f"cursor {cursor!r} is not one this server gave; pass a page's next_cursor, or none") from None
    key = _longest(doc)
    if key is None or (not offset and len(dumps(doc)) <= max_chars):
        return {
            **doc,
            "page": {
                "list": key or "",
                "offset": 0,
                "num_items": len(doc.get(key, []) if key else []),
                "next_cursor": "",
            },
        }
    items = doc[key]
    budget = max_chars - len(dumps({**doc, key: []})) - 200
    taken: list = []
    size = 0
    for item in items[offset:]:
        size += len(dumps(item)) + 1
        if taken and size > budget:
            break
        taken.append(item)
    end = offset + len(taken)
    nxt = str(end) if end < len(items) else ""
    return {**doc, key: taken, "page": {"list": key, "offset": offset, "num_items": len(items), "next_cursor": nxt}}
