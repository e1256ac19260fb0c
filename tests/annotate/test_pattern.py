"""Statement-anchor patterns: a table of (pattern, expected matched lines) over one small source."""

import ast

import pytest

from atlas.annotate.pattern import compile_pattern, find

SOURCE = """\
class Scheduler:
    def schedule(self):
        new_blocks = self.kv_cache_manager.allocate_slots(request, num_new_tokens, num_lookahead_tokens=2)
        if new_blocks is None:
            self._preempt_request(victim, ts)
        for req in self.running:
            self._preempt_request(req, ts)
        self.block_size: int = 16
        return SamplingParams(logprobs=2 * beam_width, max_tokens=1, temperature=t)
        CONFIG = {'pass': {}, 'mode': Mode.FULL, 'other': False}

    def other(self):
        self._preempt_request(x, ts)
"""

CASES = [
    ("self._preempt_request(...)", [(5, 5), (7, 7)]),
    ("self._preempt_request(victim, ...)", [(5, 5)]),
    ("self._preempt_request(victim)", []),
    ("....allocate_slots(...)", [(3, 3)]),
    ("....allocate_slots(..., num_lookahead_tokens=2)", [(3, 3)]),
    ("....allocate_slots(..., num_lookahead_tokens=3)", []),
    ("....allocate_slots(..., missing_kw=...)", []),
    ("self.kv_cache_manager.allocate_slots(request, num_new_tokens)", [(3, 3)]),
    ("new_blocks = ...", [(3, 3)]),
    ("if new_blocks is None: ...", [(4, 5)]),
    ("for req in self.running: ...", [(6, 7)]),
    ("self.block_size: ... = 16", [(8, 8)]),
    ("self.block_size: ... = 32", []),
    ("SamplingParams(max_tokens=1, logprobs=2 * beam_width)", [(9, 9)]),
    ("SamplingParams(..., logprobs=2 * ...)", [(9, 9)]),
    ("return SamplingParams(...)", [(9, 9)]),
    ("x = 1", []),
    ("{...: ..., 'mode': Mode.FULL, ...: ...}", [(10, 10)]),
    ("{'mode': Mode.FULL, ...: ...}", []),
    ("{...: ..., 'mode': Mode.NONE, ...: ...}", []),
    ("CONFIG = {...: ...}", [(10, 10)]),
]


@pytest.mark.parametrize(("pattern", "lines"), CASES)
def test_pattern_matches_lines_within_the_symbol(pattern, lines):
    tree = ast.parse(SOURCE)
    hits = find(compile_pattern(pattern), tree, 2, 10)  # Scheduler.schedule only: line 13 is outside
    assert [(n.lineno, n.end_lineno) for n in hits] == lines


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("self._preempt_request(", "is not Python"),
        ("a = 1\nb = 2", "holds 2 statements"),
        ("...", "matches everything"),
    ],
)
def test_bad_pattern_says_what_to_write(pattern, message):
    with pytest.raises(ValueError, match=message):
        compile_pattern(pattern)
