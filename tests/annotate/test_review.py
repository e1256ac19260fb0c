"""The review record: loading (schema, YAML and rule problems with file:line), the statements an annotation makes,
and each `atlas check` rule on it, on a small annotation file and tree of our own making."""

from pathlib import Path

import pytest
from annotate.folder_index import FolderIndex
from annotate.test_loader import GOOD, write

from atlas import stored
from atlas.annotate import ReviewError, check, load_annotations, load_reviews, review, statements
from atlas.model import Pin

SCHED = "class Scheduler:\n    def preempt(self, req):\n        self.free(req)\n"

# One row per statement of GOOD (annotations/vllm/a.yaml): summary, input[0], cost[0], the claim.
ROWS = """\
schema: 1
statements:
  - annotation: vllm.preemption.preempt
    field: summary
    text: frees a request
    verdict: true
    deciding:
      - {path: pkg/sched.py, lines: 2-3}
    note: "`self.free(req)` frees it"
  - annotation: vllm.preemption.preempt
    field: contract.input[0]
    text: "a   request"
    verdict: true
    deciding: [{path: pkg/sched.py, lines: 2}]
  - annotation: vllm.preemption.preempt
    field: contract.cost[0]
    text: "flops adds: recompute"
    verdict: true
    deciding: [{path: pkg/sched.py, lines: 3}]
  - annotation: vllm.preemption.preempt
    field: claims.frees
    text: preempt frees the request
    verdict: true
    deciding: [{path: pkg/sched.py, lines: 3}]
"""
SUMMARY = """\
  - {annotation: vllm.preemption.preempt, field: summary, text: x, verdict: true, deciding: [{path: p.py, lines: 1}]}
"""


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    write(root, "vllm/a.yaml", GOOD)
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "sched.py").write_text(SCHED)
    return root, FolderIndex(repo, Pin("vllm", "default", "c" * 40, "u"))


def findings(root, index, pin_set="default", rows=ROWS, review="vllm/review/a.yaml"):
    if rows is not None:
        write(root, review, rows)
    report = check(load_annotations(root), index, pin_set, load_reviews(root))
    return [(f.kind, f.where, f.message) for f in report.findings]


def test_statements_name_every_field_with_its_text_and_line(project):
    root, _ = project
    (a,) = load_annotations(root)
    assert [(s.field, s.kind, s.text, s.line) for s in statements(a)] == [
        ("summary", "summary", "frees a request", 9),
        ("contract.input[0]", "input", "a request", 11),
        ("contract.cost[0]", "cost", "flops adds: recompute", 13),
        ("claims.frees", "claims", "preempt frees the request", 15),
    ]


def test_a_complete_true_record_gives_no_finding_and_counts_every_statement(project):
    root, index = project
    assert findings(root, index) == []
    report = check(load_annotations(root), index, "default", load_reviews(root))
    assert (report.num_statements, report.num_reviewed) == (4, 4)


def test_a_statement_without_a_row_is_not_reviewed(project):
    root, index = project
    rows = ROWS.replace("field: contract.cost[0]", "field: contract.cost[1]")
    found = findings(root, index, rows=rows)
    assert ("not-reviewed", "annotations/vllm/a.yaml:13") in [(k, w) for k, w, _ in found]
    assert ("review-orphan", "annotations/vllm/review/a.yaml:15") in [(k, w) for k, w, _ in found]


def test_an_engine_without_a_review_folder_is_not_asked_for_rows(project):
    root, index = project
    assert findings(root, index, rows=None) == []
    (root / "annotations" / "vllm" / "review").mkdir()
    assert len(findings(root, index, rows=None)) == 4


def test_a_changed_statement_makes_its_row_stale(project):
    root, index = project
    write(root, "vllm/a.yaml", GOOD.replace("summary: frees a request", "summary: frees a request's KV"))
    (found,) = findings(root, index)
    assert found[:2] == ("review-stale", "annotations/vllm/review/a.yaml:3")
    assert "review stale: the statement changed" in found[2] and "frees a request's KV" in found[2]


def test_a_row_of_an_annotation_that_is_gone_is_an_orphan(project):
    root, index = project
    rows = ROWS + SUMMARY.replace("vllm.preemption.preempt", "vllm.preemption.gone")
    kinds = [(k, w) for k, w, _ in findings(root, index, rows=rows)]
    assert kinds == [("review-orphan", "annotations/vllm/review/a.yaml:25")]


@pytest.mark.parametrize("verdict", ["false", "unenforced"])
def test_a_false_or_unenforced_row_is_a_finding(project, verdict):
    root, index = project
    rows = ROWS.replace("verdict: true", f"verdict: {verdict}", 1)
    (found,) = findings(root, index, rows=rows)
    assert found[0] == "review-verdict" and f"reviewed {verdict}: fix the annotation" in found[2]


def test_deciding_lines_outside_the_file_or_in_no_file_at_the_pin(project):
    root, index = project
    rows = ROWS.replace("lines: 2-3}", "lines: 2-4}").replace(
        "{path: pkg/sched.py, lines: 3}", "{path: pkg/x.py, lines: 3}", 1
    )
    found = findings(root, index, rows=rows)
    assert [(k, w) for k, w, _ in found] == [
        ("deciding-not-found", "annotations/vllm/review/a.yaml:3"),
        ("deciding-not-found", "annotations/vllm/review/a.yaml:15"),
    ]
    assert "pkg/sched.py:2-4 are outside the file at vllm@cccccccccccc (3 lines)" in found[0][2]
    assert "pkg/x.py does not exist" in found[1][2]


def test_a_note_citing_code_its_deciding_lines_lack(project):
    root, index = project
    rows = ROWS.replace("lines: 2-3}", "lines: 2}")
    (found,) = findings(root, index, rows=rows)
    assert found[0] == "citation-not-found" and "`self.free(req)`" in found[2]


def test_rows_of_another_pin_set_are_checked_only_there(project):
    root, index = project
    text = GOOD.replace(
        "        verdict: holds\n", "        verdict: holds\n        at: {latest: {verdict: changed}}\n"
    )
    write(root, "vllm/a.yaml", text)
    rows = ROWS + (
        "  - {annotation: vllm.preemption.preempt, field: claims.frees, pin_set: latest, text: preempt frees the "
        "request, verdict: true, deciding: [{path: pkg/sched.py, lines: 9}]}\n"
    )
    assert findings(root, index, rows=rows) == []
    assert [k for k, _, _ in findings(root, index, "latest", rows=rows)] == ["deciding-not-found"]
    kinds = [k for k, _, _ in findings(root, index, "latest", rows=ROWS)]
    assert kinds == ["not-reviewed"]  # the claim's own verdict at latest


MALFORMED = [
    ("schema: 1\nstatements: [\n", "a.yaml:3: invalid YAML"),
    (ROWS.replace("verdict: true", "verdict: maybe", 1), "a.yaml:6: statements.0.verdict: 'maybe' is not one of"),
    (ROWS.replace("lines: 2-3", "lines: L2"), "a.yaml:8: statements.0.deciding.0.lines"),
    (ROWS.replace("lines: 2-3", "lines: 3-2"), "a.yaml:8: lines 3-2: the range ends before it starts"),
    (ROWS.replace("    note:", "    colour: red\n    note:", 1), "a.yaml:9: statements.0: unknown field(s) colour"),
    (ROWS.replace("    field: summary\n", "    field: summary\n    pin_set: nightly\n"), "a.yaml:3: pin_set: no pin"),
    (ROWS + SUMMARY, "a.yaml:25: summary of vllm.preemption.preempt at pins default is reviewed already at"),
]


@pytest.mark.parametrize(("text", "expected"), MALFORMED)
def test_each_malformed_record_is_named_with_file_and_line(project, text, expected):
    root, _ = project
    write(root, "vllm/review/a.yaml", text)
    with pytest.raises(ReviewError) as info:
        load_reviews(root, {"default", "latest"})
    assert any(expected in p for p in info.value.problems), info.value.problems


def test_a_review_file_beside_no_annotation_file(project):
    root, _ = project
    write(root, "vllm/review/b.yaml", ROWS)
    with pytest.raises(ReviewError) as info:
        load_reviews(root)
    assert info.value.problems == [
        "annotations/vllm/review/b.yaml:1: reviews annotations/vllm/b.yaml, which does not exist; "
        "move or delete the file"
    ]


def test_review_files_are_not_annotation_files(project):
    root, _ = project
    write(root, "vllm/review/a.yaml", ROWS)
    assert [a.id for a in load_annotations(root)] == ["vllm.preemption.preempt"]


def test_the_published_review_schema_is_the_loaders():
    published = (Path(__file__).resolve().parents[2] / review.PUBLISHED).read_text(encoding="utf-8")
    assert published == review.schema_json(), "run `atlas check --write-schema`"


def test_an_unchanged_review_file_is_read_from_the_cache(project, tmp_path, monkeypatch):
    root, _ = project
    write(root, "vllm/review/a.yaml", ROWS)
    cache = tmp_path / "reviews.pickle"
    first = load_reviews(root, cache=cache)

    def no_parse(path):
        raise AssertionError(f"{path} parsed again")

    monkeypatch.setattr("atlas.yamlio.load", no_parse)
    assert load_reviews(root, cache=cache).rows == first.rows
    write(root, "vllm/review/a.yaml", ROWS.replace("text: frees a request", "text: frees it"))
    with pytest.raises(AssertionError, match="parsed again"):
        load_reviews(root, cache=cache)


def test_a_review_cache_of_another_shape_or_kind_is_read_again_and_rewritten(project, tmp_path):
    """The cache is checked by shape as the annotations' is: entries that are not (rows, problems) are not used,
    and a folder where the cache file belongs is cleared."""
    root, _ = project
    write(root, "vllm/review/a.yaml", ROWS)
    cache = tmp_path / "reviews.pickle"
    first = load_reviews(root, cache=cache)
    keys = stored.load(cache, review._CACHE_VERSION)
    stored.dump(cache, dict.fromkeys(keys, "not an entry"), review._CACHE_VERSION)  # header and checksum valid
    assert load_reviews(root, cache=cache).rows == first.rows
    assert stored.load(cache, review._CACHE_VERSION) == keys
    cache.unlink()
    (cache / "inside").mkdir(parents=True)
    assert load_reviews(root, cache=cache).rows == first.rows
    assert cache.is_file()


def test_a_review_error_is_one_line_naming_the_first_problem(project):
    """As an annotation error is: verbs other than `atlas check` say the first problem and point at check."""
    root, _ = project
    write(root, "vllm/review/a.yaml", ROWS)
    write(root, "vllm/review/b.yaml", ROWS)
    with pytest.raises(ReviewError) as info:
        load_reviews(root)
    assert len(info.value.problems) > 1 and "\n" not in str(info.value)
    assert str(info.value).startswith(info.value.problems[0]) and "`atlas check` lists all" in str(info.value)
