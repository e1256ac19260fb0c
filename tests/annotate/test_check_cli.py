"""`atlas check` end to end over a fixture project and a fixture index: exit codes 0 / 1 / 2, file:line output."""

import json
from types import SimpleNamespace

import pytest
from annotate.folder_index import FolderIndex
from annotate.test_loader import GOOD, write

from atlas.cli import check as check_cli
from atlas.cli import main
from atlas.model import Pin

SCHED = "class Scheduler:\n    def preempt(self, req):\n        self.free(req)\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "project"
    (root / "pinned_sources").mkdir(parents=True)
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "sched.py").write_text(SCHED)
    indexes = []

    def fake_index(settings, framework, pin_set):
        indexes.append((framework, pin_set))
        return FolderIndex(repo, Pin(framework, pin_set, "c" * 40, "u"))

    monkeypatch.setattr(check_cli, "_index", fake_index)
    monkeypatch.delenv("ATLAS_MIRROR", raising=False)
    return SimpleNamespace(root=root, indexes=indexes)


def run(project, *argv) -> int:
    return main(["check", "--root", str(project.root), *argv])


def test_clean_project_exits_0(project, capsys):
    write(project.root, "vllm/a.yaml", GOOD)
    assert run(project) == 0
    assert (
        "vllm@cccccccccccc (default, pins default): 1/1 annotations resolve, 2/2 evidence items hold, "
        "0/4 statements reviewed, 0 finding(s)" in capsys.readouterr().err
    )
    assert project.indexes == [("vllm", "default")]


def test_unresolved_anchor_exits_1_with_file_and_line(project, capsys):
    write(project.root, "vllm/a.yaml", GOOD.replace('"self.free(req)"', '"self.free(other)"'))
    assert run(project) == 1
    out = capsys.readouterr().out
    assert out.startswith("annotations/vllm/a.yaml:7: anchor-not-found: anchor `self.free(other)`")


def test_guards_on_the_yaml_and_the_review_record_are_findings(project, capsys):
    write(project.root, "vllm/a.yaml", GOOD.replace("input: [a request]", "input: [request (lora, mm), range]"))
    write(project.root, "vllm/review/a.yaml", "schema: 1\nstatements: []\n")
    assert run(project) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("annotations/vllm/a.yaml:11: split-flow-item: contract.input: flow-list item")
    assert sum(": not-reviewed: " in line for line in out) == 6  # summary, three input items as loaded, cost, claim


def test_a_malformed_review_record_exits_2(project, capsys):
    write(project.root, "vllm/a.yaml", GOOD)
    write(project.root, "vllm/review/a.yaml", "schema: 1\nstatements: [{field: summary}]\n")
    assert run(project) == 2
    assert (
        "annotations/vllm/review/a.yaml:2: statements.0: 'annotation' is a required property" in capsys.readouterr().err
    )


def test_malformed_file_exits_2_listing_every_problem(project, capsys):
    write(
        project.root, "vllm/a.yaml", GOOD.replace("role: release", "role: free").replace("verdict: holds", "verdict: x")
    )
    assert run(project) == 2
    err = capsys.readouterr().err
    assert "annotations/vllm/a.yaml:8: annotations.0.role" in err and "a.yaml:18:" in err
    assert "2 problem(s) in annotation files" in err and project.indexes == []


def test_claims_json_lists_verdicts_and_evidence_lines(project, capsys):
    write(project.root, "vllm/a.yaml", GOOD)
    assert run(project, "--claims", "--format", "json", "--pins", "default,latest") == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["ref"] for r in data["reports"]] == ["default", "latest"]
    (claim,) = data["reports"][0]["claims"]
    assert (claim["claim"], claim["verdict"]) == ("frees", "holds")
    assert [(e["path"], e["line"], e["holds"]) for e in claim["evidence"]] == [("pkg/sched.py", 3, True), ("", 0, True)]


def test_unknown_framework_and_format_are_errors(project, capsys):
    write(project.root, "vllm/a.yaml", GOOD)
    assert run(project, "trt") == 2
    assert "unknown framework(s) trt; choose from: vllm, sglang" in capsys.readouterr().err
    assert run(project, "--format", "dot") == 2


def test_a_pin_set_only_one_framework_has_is_checked_where_it_exists(project, capsys):
    from gitfixtures import write_manifest

    write(project.root, "vllm/a.yaml", GOOD)
    path = write_manifest(project.root, "vllm", "https://example.invalid/vllm", "v1")
    path.write_text(path.read_text() + "  cpu:\n    ref: v2\n")
    write_manifest(project.root, "sglang", "https://example.invalid/sglang", "v1")
    assert run(project, "--pins", "default,cpu") == 0
    assert project.indexes == [("vllm", "default"), ("vllm", "cpu")]
    assert run(project, "--pins", "nope") == 2
    assert "no pin set 'nope'" in capsys.readouterr().err


def test_at_entries_are_resolved_at_their_pin_set(project, capsys):
    from gitfixtures import write_manifest

    path = write_manifest(project.root, "vllm", "https://example.invalid/vllm", "v1")
    path.write_text(path.read_text() + "  latest:\n    ref: v2\n")
    moved = GOOD.replace(
        """    anchor: {pattern: "self.free(req)"}
""",
        """    anchor: {pattern: "self.free(req)"}
    at:
      latest: {anchor: {pattern: "self.release(req)"}}
""",
    )
    write(project.root, "vllm/a.yaml", moved)
    assert run(project, "--pins", "default,latest") == 1  # the fixture tree has no self.release(req)
    err = capsys.readouterr()
    assert "anchor `self.release(req)`" in err.out and "pins latest" in err.err
    assert "pins default): 1/1 annotations resolve" in err.err
