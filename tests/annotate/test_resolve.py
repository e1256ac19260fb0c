"""Resolving annotations against an index: symbols, statement anchors, claim evidence, the probe spec; a fixture
index over a folder built in tmp_path stands in for atlas.graph's."""

import pytest
from annotate.folder_index import FolderIndex
from annotate.test_loader import write

from atlas.annotate import check, load_annotations, probe_spec, resolve
from atlas.model import Pin

SCHED = '''\
class Scheduler:
    def preempt(self, req):
        """Free and requeue."""
        self.free(req)
        req.num_computed_tokens = 0

    def schedule(self):
        return 1
'''

FILE = """\
schema: 1
framework: vllm
annotations:
  - id: vllm.preemption.a
    mechanism: preemption-retraction
    symbol: {symbol}
    {anchor}
    role: release
    summary: s
    claims:
      - id: c
        article: a
        claim: c
        verdict: holds
        evidence:
          - {evidence}
    probe: {{capture: [preempted, request_ids]}}
"""


@pytest.fixture
def index(tmp_path) -> FolderIndex:
    src = tmp_path / "repo" / "python" / "pkg"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "sched.py").write_text(SCHED)
    return FolderIndex(tmp_path / "repo", Pin("vllm", "v1", "a" * 40, "https://x/y"), package_root="python")


def annotate(
    tmp_path,
    symbol="pkg.sched.Scheduler.preempt",
    anchor='anchor: {pattern: "self.free(req)"}',
    evidence="{pattern: 'req.num_computed_tokens = 0'}",
):
    root = tmp_path / "project"
    write(root, "vllm/x.yaml", FILE.format(symbol=symbol, anchor=anchor, evidence=evidence))
    return load_annotations(root)


def test_anchor_resolves_to_the_statement_inside_the_symbol(tmp_path, index):
    (a,) = annotate(tmp_path)
    r = resolve(a, index)
    assert r.is_resolved and (r.path, r.line, r.end_line, r.anchor_line) == ("python/pkg/sched.py", 2, 5, 4)


# (symbol, anchor, evidence, expected finding kinds at the index's pin)
CASES = [
    ("pkg.sched.Scheduler.preempt", "", "{pattern: 'req.num_computed_tokens = 0'}", []),
    (
        "pkg.sched.Scheduler.preempt",
        'anchor: {pattern: "self.free(req)", occurrence: 2}',
        "{pattern: 'self.free(...)'}",
        ["anchor-not-found"],
    ),
    (
        "pkg.sched.Scheduler.schedule",
        'anchor: {pattern: "self.free(req)"}',
        "{pattern: 'return 1'}",
        ["anchor-not-found"],
    ),
    ("pkg.sched.Scheduler.prempt", "", "{pattern: 'return 1'}", ["symbol-not-found", "symbol-not-found"]),
    ("pkg.sched.Scheduler.preempt", "", "{pattern: 'return 2'}", ["evidence-not-found"]),
    ("pkg.sched.Scheduler.preempt", "", "{symbol: pkg.sched.Scheduler.beam, expect: absent}", []),
    ("pkg.sched.Scheduler.preempt", "", "{symbol: pkg.sched.Scheduler.schedule, expect: absent}", ["evidence-present"]),
    ("pkg.sched.Scheduler.preempt", "", "{pattern: 'self.fork(...)', expect: absent}", []),
    ("pkg.sched.Scheduler.preempt", "", "{pattern: 'self.free(...)', expect: absent}", ["evidence-present"]),
    ("pkg.sched", "", "{symbol: pkg.sched.Scheduler, pattern: 'return 1'}", []),
]


@pytest.mark.parametrize(("symbol", "anchor", "evidence", "kinds"), CASES)
def test_check_finds_what_does_not_resolve(tmp_path, index, symbol, anchor, evidence, kinds):
    report = check(annotate(tmp_path, symbol, anchor, evidence), index)
    assert [f.kind for f in report.findings] == kinds
    assert all(f.path == "annotations/vllm/x.yaml" and f.line for f in report.findings)


def test_missing_symbol_suggests_candidates(tmp_path, index):
    (a,) = annotate(tmp_path, symbol="pkg.Scheduler.preempt")
    finding = resolve(a, index).finding
    assert "not found at vllm@aaaaaaaaaaaa; did you mean: pkg.sched.Scheduler.preempt" in finding.message
    assert finding.line == 4


def test_evidence_lines_are_reported(tmp_path, index):
    report = check(annotate(tmp_path), index)
    (e,) = report.evidence
    assert (e.path, e.line, e.end_line, e.finding) == ("python/pkg/sched.py", 5, 5, None)


def test_probe_spec_names_module_qualname_lines_and_capture(tmp_path, index):
    assert probe_spec(annotate(tmp_path), index) == [
        {
            "annotation": "vllm.preemption.a",
            "framework": "vllm",
            "symbol": "pkg.sched.Scheduler.preempt",
            "module": "pkg.sched",
            "qualname": "Scheduler.preempt",
            "role": "release",
            "path": "python/pkg/sched.py",
            "line": 2,
            "end_line": 5,
            "capture": ["preempted", "request_ids"],
            "anchor_line": 4,
        }
    ]


def test_other_frameworks_are_skipped(tmp_path, index):
    other = FolderIndex(index.root, Pin("sglang", "v", "b" * 40, "u"), "python")
    assert check(annotate(tmp_path), other).resolutions == () and probe_spec(annotate(tmp_path), other) == []
