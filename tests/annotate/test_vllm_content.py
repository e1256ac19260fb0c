"""The vLLM annotations against the real pinned tree (v0.26.0): every anchor and piece of evidence resolves, the
counts the issue asks for hold, and every section 2-10 is covered. Uses the folder index over the synced
checkout, so it runs without a graph build; it needs `atlas sync vllm` (skipped, with the reason, otherwise)."""

from pathlib import Path

import pytest
from annotate.folder_index import FolderIndex, default_pin_index

from atlas.annotate import check, load_annotations, probe_spec

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def index() -> FolderIndex:
    return default_pin_index(PROJECT, "vllm")


@pytest.fixture(scope="module")
def annotations():
    return load_annotations(PROJECT, "vllm")


def test_every_vllm_anchor_and_evidence_resolves_at_the_default_pin(index, annotations):
    report = check(annotations, index)
    assert [f"{f.where}: {f.message}" for f in report.findings] == []


def test_vllm_content_meets_the_issue_targets(annotations):
    assert len(annotations) >= 35
    sections = {a.section for a in annotations}
    assert set(range(2, 11)) <= sections
    claims = [c for a in annotations for c in a.claims]
    assert len(claims) >= 50 and {c.verdict for c in claims} >= {"holds", "changed"}


def test_probe_spec_covers_every_capturing_annotation(index, annotations):
    spec = probe_spec(annotations, index)
    assert len(spec) == sum(1 for a in annotations if a.capture)
    by_id = {e["annotation"]: e for e in spec}
    preempt = by_id["vllm.preemption.allocate-or-preempt"]
    assert (preempt["module"], preempt["qualname"], preempt["role"]) == (
        "vllm.v1.core.sched.scheduler",
        "Scheduler.schedule",
        "release",
    )
    assert preempt["line"] < preempt["anchor_line"] <= preempt["end_line"]
