"""atlas diff end to end on a fixture repository: real sync, real parse, annotations drifted / broken / to
re-check, every output format, and --apply-suggestions keeping the YAML's comments."""

from __future__ import annotations

import json

import pytest
from gitfixtures import make_remote, write_manifest

from atlas.cli import main

POOL = (
    "def {name}(pool, n):\n    blocks = pool.take(n)\n    for block in blocks:\n        block.ref_cnt += 1\n"
    "    return blocks\n"
)
SCHED_V1 = """from pkg.pool import take


class Scheduler:
    def schedule(self, pool):
        budget = 16
        return take(pool, budget)

    def preempt_all(self, reqs):
        for r in reqs:
            r.num_computed_tokens = 0
"""
SCHED_V2 = """from pkg.pool import allocate


class Scheduler:
    def schedule(self, pool):
        budget = 32
        return allocate(pool, budget)
"""
ANNOTATIONS = """# fixture annotations: this comment must survive --apply-suggestions
schema: 1
framework: vllm
annotations:
  - id: vllm.prefix-cache.take
    mechanism: prefix-cache
    symbol: pkg.pool.take   # the block allocator
    role: allocate
    summary: Takes blocks from the pool and bumps their reference counts.
  - id: vllm.continuous-batching.schedule
    mechanism: continuous-batching
    symbol: pkg.sched.Scheduler.schedule
    role: plan
    summary: Plans one step within a token budget.
  - id: vllm.preemption-retraction.preempt-all
    mechanism: preemption-retraction
    symbol: pkg.sched.Scheduler.preempt_all
    role: release
    summary: Resets the progress of every request.
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    make_remote(
        mirror,
        {
            "v1": {"pkg/__init__.py": "", "pkg/pool.py": POOL.format(name="take"), "pkg/sched.py": SCHED_V1},
            "v2": {"pkg/__init__.py": "", "pkg/pool.py": POOL.format(name="allocate"), "pkg/sched.py": SCHED_V2},
        },
        name="vllm",
    )
    root = tmp_path / "project"
    write_manifest(root, "vllm", "https://example.invalid/vllm", "v1")
    (root / "annotations" / "vllm").mkdir(parents=True)
    (root / "annotations" / "vllm" / "fixture.yaml").write_text(ANNOTATIONS)
    monkeypatch.setenv("ATLAS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ATLAS_BUILD", str(tmp_path / "build"))
    monkeypatch.setenv("ATLAS_MIRROR", str(mirror))
    monkeypatch.chdir(root)
    return root


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_diff_reports_drifted_broken_and_recheck(project, capsys):
    code, out, err = run(capsys, "diff", "vllm", "v1", "v2", "--format", "json")
    assert code == 1, err
    report = json.loads(out)
    status = {a["id"]: a for a in report["annotations"]}
    assert status["vllm.prefix-cache.take"]["status"] == "drifted"
    assert status["vllm.prefix-cache.take"]["proposed"] == "pkg.pool.allocate"
    assert status["vllm.continuous-batching.schedule"]["status"] == "recheck"
    assert status["vllm.preemption-retraction.preempt-all"]["status"] == "broken"
    kinds = {(c["kind"], c["symbol"], c["new_symbol"]) for c in report["changes"]}
    assert ("renamed", "pkg.pool.take", "pkg.pool.allocate") in kinds
    assert ("removed", "pkg.sched.Scheduler.preempt_all", "") in kinds
    assert ("body changed", "pkg.sched.Scheduler.schedule", "pkg.sched.Scheduler.schedule") in kinds


@pytest.mark.parametrize(
    "fmt, expected",
    [
        ("human", "Annotations drifted (1):"),
        ("markdown", "| `vllm.prefix-cache.take` | `pkg.pool.take` | **drifted** |"),
        ("github", "::error file=annotations/vllm/fixture.yaml,line="),
    ],
)
def test_formats(project, capsys, fmt, expected):
    code, out, _ = run(capsys, "diff", "vllm", "v1", "v2", "--format", fmt)
    assert code == 1 and expected in out


def test_apply_suggestions_rewrites_only_the_anchor(project, capsys):
    path = project / "annotations" / "vllm" / "fixture.yaml"
    before = path.read_text()
    code, _, err = run(capsys, "diff", "vllm", "v1", "v2", "--apply-suggestions")
    assert code == 1 and "at default: pkg.pool.allocate" in err  # the default set moves: its fields change
    after = path.read_text()
    assert after == before.replace("symbol: pkg.pool.take   #", "symbol: pkg.pool.allocate   #")
    code, out, _ = run(capsys, "diff", "vllm", "v1", "v2", "--format", "json")
    status = {a["id"]: a["status"] for a in json.loads(out)["annotations"]}
    assert status["vllm.prefix-cache.take"] == "ok"


def test_no_change_exits_zero(project, capsys):
    code, out, _ = run(capsys, "diff", "vllm", "v1", "v1")
    assert code == 0 and "no symbol changes" in out


def test_pin_refuses_when_annotations_break_unless_accepted(project, capsys):
    manifest = project / "pinned_sources" / "vllm.yaml"
    code, out, err = run(capsys, "pin", "vllm", "v2")
    assert code == 1 and "--accept" in err and "ref: v1" in manifest.read_text()
    code, _, err = run(capsys, "pin", "vllm", "v2", "--accept")
    assert code == 0, err
    assert "ref: v2" in manifest.read_text()
