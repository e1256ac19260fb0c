"""atlas.graph.schedule: every file is parsed exactly once, by its owner or one other process; a lone tree shares
its parse with the spare cores; two trees end together; a tree whose resolution alone outlasts the rest keeps it."""

from __future__ import annotations

import pytest

from atlas.graph.schedule import MB, Tree, assign, chunks, finish_times


def placed(trees, shares):
    """chunk -> process, as the shares say, and each tree's files in the order the shares hold them."""
    where = {}
    for p, share in enumerate(shares):
        for chunk in share.foreign:
            where[chunk] = p
    for i, tree in enumerate(trees):
        for chunk in chunks(i, tree.py, False) + chunks(i, tree.cpp, True):
            where.setdefault(chunk, i)
    return where


def files_of(shares, tree: int, is_cpp: bool) -> list[int]:
    out = []
    for share in shares:
        out += [i for c in share.foreign if c.tree == tree and c.is_cpp is is_cpp for i in c.files]
        if share.owner == tree:
            out += share.own_cpp if is_cpp else share.own_py
    return sorted(out)


SGLANG = Tree((100_000,) * 400, (15_000,) * 200)  # 40 MB of Python, 3 MB of C++
VLLM = Tree((100_000,) * 280, (15_000,) * 280)


@pytest.mark.parametrize(
    "trees, cores",
    [
        ([SGLANG], 1),
        ([SGLANG], 2),
        ([SGLANG], 4),
        ([SGLANG, VLLM], 2),
        ([VLLM, SGLANG], 3),
        ([SGLANG, VLLM, VLLM], 2),
        ([Tree((), ())], 2),
    ],
)
def test_every_file_once(trees, cores):
    shares = assign(trees, cores)
    assert len(shares) == max(cores, len(trees))
    assert [s.owner for s in shares[: len(trees)]] == list(range(len(trees)))
    assert all(s.owner == -1 for s in shares[len(trees) :])
    for i, tree in enumerate(trees):
        assert files_of(shares, i, False) == list(range(len(tree.py)))
        assert files_of(shares, i, True) == list(range(len(tree.cpp)))
    for share in shares:  # Python chunks come before C++ ones: their owners wait for those first
        kinds = [c.is_cpp for c in share.foreign]
        assert kinds == sorted(kinds)


def test_a_lone_tree_shares_its_parse():
    alone, shared = (max(finish_times([SGLANG], placed([SGLANG], assign([SGLANG], n)), n)) for n in (1, 2))
    helper = assign([SGLANG], 2)[1]
    assert sum(len(c.files) for c in helper.foreign if not c.is_cpp) >= 150  # about half of the 400 files
    assert any(c.is_cpp for c in helper.foreign)  # and the C++, parsed while the owner resolves
    assert shared < 0.8 * alone


def test_two_trees_end_together_and_resolution_is_never_moved():
    trees = [SGLANG, VLLM]
    shares = assign(trees, 2)
    ends = finish_times(trees, placed(trees, shares), 2)
    assert abs(ends[0] - ends[1]) < 0.05 * max(ends)
    helped = [sum(c.seconds for c in s.foreign) for s in shares]
    assert helped[1] > 5 * helped[0]  # the smaller tree's process helps the larger
    lone = finish_times(trees, placed(trees, [type(s)(s.owner) for s in shares]), 2)  # nothing moved: worse
    assert max(ends) < max(lone)


def test_chunks_are_runs_of_about_half_a_megabyte():
    (first, second) = chunks(0, (300_000, 300_000, 100_000), False)
    assert first.files == (0, 1) and second.files == (2,)
    assert first.seconds == pytest.approx(0.6 * 0.20) and sum(len(c.files) for c in chunks(0, (1,) * 10, True)) == 10
    assert MB == 1e6
