"""Renames, moves, splits and signature changes, one row per case: (old files, new files, expected changes)."""

from __future__ import annotations

import pytest
from tables import table

from atlas.diff.symbols import symbol_changes
from atlas.model import ChangeKind as K

BODY = """
    total = 0
    for item in items:
        if item.ready:
            total += item.size
    return total
"""
OTHER = """
    blocks = pool.take(n)
    for block in blocks:
        block.ref_cnt += 1
    return blocks
"""
SPLIT_OLD = """
def schedule(self, reqs):
    budget = self.budget
    running = [r for r in reqs if r.running]
    waiting = [r for r in reqs if not r.running]
    for r in running:
        budget -= r.num_tokens
    for r in waiting:
        if r.num_tokens <= budget:
            budget -= r.num_tokens
    return budget
"""
SPLIT_NEW = """
def schedule_running(self, reqs, budget):
    running = [r for r in reqs if r.running]
    for r in running:
        budget -= r.num_tokens
    return budget

def schedule_waiting(self, reqs, budget):
    waiting = [r for r in reqs if not r.running]
    for r in waiting:
        if r.num_tokens <= budget:
            budget -= r.num_tokens
    return budget
"""

CASES = [
    (
        "rename in place",
        {"a.py": f"def size(items):{BODY}"},
        {"a.py": f"def total_size(items):{BODY}"},
        {(K.RENAMED, "a.size", "a.total_size")},
    ),
    (
        "move across files",
        {"a.py": f"def size(items):{BODY}", "b.py": "X = 1\n"},
        {"a.py": "Y = 2\n", "b.py": f"def size(items):{BODY}"},
        {(K.MOVED, "a.size", "b.size")},
    ),
    (
        "rename across files",
        {"a.py": f"def take(pool, n):{OTHER}", "b.py": ""},
        {"a.py": "", "b.py": f"def allocate(pool, n):{OTHER}"},
        {(K.RENAMED, "a.take", "b.allocate")},
    ),
    (
        "method moved to a base class",
        {
            "m.py": "class Base:\n    pass\n\nclass Sub(Base):\n    def size(self, items):"
            + BODY.replace(chr(10), chr(10) + "    ")
        },
        {
            "m.py": "class Base:\n    def size(self, items):"
            + BODY.replace(chr(10), chr(10) + "    ")
            + "\nclass Sub(Base):\n    pass\n"
        },
        {(K.MOVED, "m.Sub.size", "m.Base.size")},
    ),
    (
        "function split in two",
        {"s.py": SPLIT_OLD},
        {"s.py": SPLIT_NEW},
        {(K.SPLIT, "s.schedule", "s.schedule_running, s.schedule_waiting")},
    ),
    (
        "signature change",
        {"a.py": f"def size(items):{BODY}"},
        {"a.py": f"def size(items, strict=False):{BODY}"},
        {(K.SIGNATURE, "a.size", "a.size")},
    ),
    (
        "body change",
        {"a.py": f"def size(items):{BODY}"},
        {"a.py": f"def size(items):{BODY.replace('+= item.size', '+= 1')}"},
        {(K.BODY, "a.size", "a.size")},
    ),
    (
        "unrelated add and remove stay add and remove",
        {"a.py": f"def size(items):{BODY}"},
        {"a.py": f"def take(pool, n):{OTHER}"},
        {(K.REMOVED, "a.size", ""), (K.ADDED, "a.take", "")},
    ),
    (
        "trivial bodies do not pair different names",
        {"p.py": "class A:\n    def area(self):\n        ...\n"},
        {"p.py": "class A:\n    def size(self):\n        ...\n"},
        {(K.REMOVED, "p.A.area", ""), (K.ADDED, "p.A.size", "")},
    ),
    (
        "lines reused by methods of other classes are not a split",
        {"s.py": "class K:" + SPLIT_OLD.replace(chr(10), chr(10) + "    ")},
        {"s.py": "class K:\n    pass\n\nclass L:" + SPLIT_NEW.replace(chr(10), chr(10) + "    ")},
        {
            (K.REMOVED, "s.K.schedule", ""),
            (K.ADDED, "s.L", ""),
            (K.ADDED, "s.L.schedule_running", ""),
            (K.ADDED, "s.L.schedule_waiting", ""),
        },
    ),
    ("unchanged file is skipped", {"a.py": f"def size(items):{BODY}"}, {"a.py": f"def size(items):{BODY}"}, set()),
]


@pytest.mark.parametrize("name, old, new, expected", CASES, ids=[c[0] for c in CASES])
def test_changes(name, old, new, expected):
    same = {p for p in old if old[p] == new.get(p)}
    changes = list(symbol_changes(table(old), table(new), same))
    found = {(c.kind, c.symbol, c.new_symbol if c.kind is not K.ADDED else "") for c in changes}
    assert found == expected, changes
