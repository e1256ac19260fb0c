"""Loading annotation files: every malformed input is reported with file:line, all problems at once."""

import json
from pathlib import Path

import pytest

from atlas.annotate import AnnotationError, load_annotations, schema_json
from atlas.annotate.schema import PUBLISHED

PROJECT = Path(__file__).resolve().parents[2]

GOOD = """\
schema: 1
framework: vllm
annotations:
  - id: vllm.preemption.preempt
    mechanism: preemption-retraction
    symbol: pkg.sched.Scheduler.preempt
    anchor: {pattern: "self.free(req)"}
    role: release
    summary: frees a request
    contract:
      input: [a request]
      cost:
        - {dimension: flops, effect: adds, detail: recompute}
    claims:
      - id: frees
        article: "释放其 KV"
        claim: preempt frees the request
        verdict: holds
        evidence:
          - pattern: "self.free(...)"
          - symbol: pkg.sched.Other
            expect: absent
    probe: {capture: [preempted]}
"""


def write(root: Path, rel: str, text: str) -> None:
    path = root / "annotations" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def problems(root: Path) -> list[str]:
    with pytest.raises(AnnotationError) as info:
        load_annotations(root)
    return info.value.problems


def test_good_file_loads_into_frozen_annotations(tmp_path):
    write(tmp_path, "vllm/preemption.yaml", GOOD)
    (a,) = load_annotations(tmp_path)
    assert (a.id, a.framework, a.section, a.role, a.capture) == (
        "vllm.preemption.preempt",
        "vllm",
        9,
        "release",
        ("preempted",),
    )
    assert a.anchor.pattern == "self.free(req)" and a.anchor.line == 7
    assert a.where == "annotations/vllm/preemption.yaml:4"
    (claim,) = a.claims
    assert [e.symbol for e in claim.evidence] == ["pkg.sched.Scheduler.preempt", "pkg.sched.Other"]
    assert claim.evidence[1].is_absent and a.contract.cost[0].dimension == "flops"
    assert load_annotations(tmp_path, "sglang") == []


# (file text, expected 'file:line: ...' fragment)
MALFORMED = [
    ("schema: 1\nframework: vllm\nannotations: [\n", "preemption.yaml:4: invalid YAML"),
    (
        GOOD.replace("    role: release\n", "    role: release\n    colour: red\n"),
        "preemption.yaml:9: annotations.0: unknown field(s) colour",
    ),
    (
        GOOD.replace("framework: vllm", "framework: vlm"),
        "preemption.yaml:2: framework: 'vlm' is not one of: vllm, sglang",
    ),
    (GOOD.replace("role: release", "role: free"), "preemption.yaml:8: annotations.0.role: 'free' is not one of"),
    (GOOD.replace("verdict: holds", "verdict: true-ish"), "preemption.yaml:18: annotations.0.claims.0.verdict"),
    (GOOD.replace("[preempted]", "[preempted, temperature]"), "preemption.yaml:23: annotations.0.probe.capture.1"),
    (GOOD.replace("    summary: frees a request\n", ""), "preemption.yaml:4: annotations.0: 'summary' is a required"),
    (GOOD.replace('"self.free(req)"', '"self.free(req"'), "preemption.yaml:7: pattern 'self.free(req' is not Python"),
    (
        GOOD.replace("id: vllm.preemption.preempt", "id: sglang.preemption.preempt"),
        "preemption.yaml:4: id: 'sglang.preemption.preempt' must start with 'vllm.'",
    ),
    (
        GOOD.replace("id: frees", "id: frees").replace(
            "    probe:",
            "      - id: frees\n        article: a\n"
            "        claim: c\n        verdict: holds\n        evidence: [{pattern: 'x()'}]\n    probe:",
        ),
        "preemption.yaml:23: claim id 'frees' appears twice",
    ),
    (
        GOOD + "    related: [vllm.nothing.here]\n",
        "preemption.yaml:4: related: no annotation has id 'vllm.nothing.here'",
    ),
]


@pytest.mark.parametrize(("text", "expected"), MALFORMED)
def test_each_malformation_is_named_with_file_and_line(tmp_path, text, expected):
    write(tmp_path, "vllm/preemption.yaml", text)
    found = problems(tmp_path)
    assert any(expected in p for p in found), found
    assert all(p.startswith("annotations/vllm/preemption.yaml:") for p in found), found


def test_duplicate_id_names_both_places(tmp_path):
    write(tmp_path, "vllm/a.yaml", GOOD)
    write(tmp_path, "vllm/b.yaml", GOOD)
    assert problems(tmp_path) == [
        "annotations/vllm/b.yaml:4: id 'vllm.preemption.preempt' is already used at "
        "annotations/vllm/a.yaml:4; ids must be unique"
    ]


def test_folder_must_match_framework(tmp_path):
    write(tmp_path, "sglang/x.yaml", GOOD)
    (p,) = problems(tmp_path)
    assert p.startswith("annotations/sglang/x.yaml:2: framework: 'vllm' in the sglang/ folder")


def test_all_problems_of_all_files_are_reported_together(tmp_path):
    write(tmp_path, "vllm/a.yaml", GOOD.replace("role: release", "role: free"))
    write(tmp_path, "vllm/b.yaml", "schema: 1\nframework: [\n")
    write(
        tmp_path,
        "vllm/c.yaml",
        GOOD.replace("vllm.preemption.preempt", "vllm.preemption.other").replace(
            "mechanism: preemption-retraction", "mechanism: nope"
        ),
    )
    found = problems(tmp_path)
    assert [p.split(":")[0] for p in found] == [
        "annotations/vllm/a.yaml",
        "annotations/vllm/b.yaml",
        "annotations/vllm/c.yaml",
    ]


def test_unknown_framework_filter_names_the_choices(tmp_path):
    with pytest.raises(Exception, match="choose one of: vllm, sglang"):
        load_annotations(tmp_path, "trt")


def test_published_schema_is_the_one_the_loader_uses():
    published = (PROJECT / PUBLISHED).read_text(encoding="utf-8")
    assert published == schema_json(), "run `atlas check --write-schema`"
    assert json.loads(published)["properties"]["schema"] == {"const": 1}


def test_project_annotations_load_clean():
    annotations = load_annotations(PROJECT)
    assert annotations, "annotations/ holds no annotation"


def test_cache_reuses_unchanged_files_and_rereads_changed_ones(tmp_path):
    write(tmp_path, "vllm/a.yaml", GOOD)
    cache = tmp_path / "build" / "annotations.pickle"
    first = load_annotations(tmp_path, cache=cache)
    assert cache.exists() and load_annotations(tmp_path, cache=cache) == first
    write(tmp_path, "vllm/a.yaml", GOOD.replace("role: release", "role: free"))
    assert any("role" in p for p in problems_with_cache(tmp_path, cache))
    write(tmp_path, "vllm/a.yaml", GOOD)
    assert load_annotations(tmp_path, cache=cache) == first


def test_an_unchanged_file_is_not_parsed_again(tmp_path, monkeypatch):
    """The cache's entries pass its shape check (atlas.stored), so they are used, not silently read again."""
    write(tmp_path, "vllm/a.yaml", GOOD)
    cache = tmp_path / "build" / "annotations.pickle"
    first = load_annotations(tmp_path, cache=cache)

    def no_parse(path):
        raise AssertionError(f"{path} parsed again")

    monkeypatch.setattr("atlas.yamlio.load", no_parse)
    assert load_annotations(tmp_path, cache=cache) == first


def problems_with_cache(root: Path, cache: Path) -> list[str]:
    with pytest.raises(AnnotationError) as info:
        load_annotations(root, cache=cache)
    return info.value.problems


def test_framework_filter_ignores_problems_of_other_frameworks(tmp_path):
    write(tmp_path, "vllm/a.yaml", GOOD)
    write(
        tmp_path,
        "sglang/b.yaml",
        GOOD.replace("framework: vllm", "framework: sglang")
        .replace("vllm.preemption", "sglang.preemption")
        .replace("role: release", "role: free"),
    )
    assert [a.id for a in load_annotations(tmp_path, "vllm")] == ["vllm.preemption.preempt"]
    assert problems(tmp_path)[0].startswith("annotations/sglang/b.yaml:8: annotations.0.role")


AT = (
    GOOD.replace(
        """    anchor: {pattern: "self.free(req)"}
""",
        """    anchor: {pattern: "self.free(req)"}
    at:
      latest: {symbol: pkg.sched.Scheduler.release}
""",
    )
    .replace(
        """          - pattern: "self.free(...)"
""",
        """          - pattern: "self.free(...)"
            at:
              latest: {pattern: "self.release(...)"}
""",
    )
    .replace(
        """        verdict: holds
""",
        """        verdict: holds
        at:
          latest: {verdict: changed, note: frees through release()}
""",
    )
)


def test_at_entries_give_the_annotation_as_it_reads_at_a_pin_set(tmp_path):
    from gitfixtures import write_manifest

    write_manifest(tmp_path, "vllm", "https://example.invalid/vllm", "v1")
    text = (tmp_path / "pinned_sources" / "vllm.yaml").read_text()
    (tmp_path / "pinned_sources" / "vllm.yaml").write_text(text + "  latest:\n    ref: v2\n")
    write(tmp_path, "vllm/preemption.yaml", AT)
    (a,) = load_annotations(tmp_path)
    assert a.pin_sets == {"latest"}
    latest = a.for_pin("latest")
    assert (latest.symbol, latest.anchor.pattern) == ("pkg.sched.Scheduler.release", "self.free(req)")
    (claim,) = latest.claims
    assert (claim.verdict, claim.note) == ("changed", "frees through release()")
    assert claim.evidence[0].pattern == "self.release(...)" and claim.evidence[0].symbol == a.symbol
    assert a.for_pin("cpu").symbol == a.symbol  # a set without an entry reads as the default pin
    (base,) = a.for_pin("default").claims
    assert (base.verdict, base.evidence[0].pattern) == ("holds", "self.free(...)")


def test_unknown_pin_set_in_at_is_reported_with_file_line(tmp_path):
    from gitfixtures import write_manifest

    write_manifest(tmp_path, "vllm", "https://example.invalid/vllm", "v1")
    write(tmp_path, "vllm/preemption.yaml", AT.replace("      latest: {symbol", "      lates: {symbol"))
    found = problems(tmp_path)
    assert any(
        p.startswith("annotations/vllm/preemption.yaml:9: at: no pin set 'lates'") and "choose one of" in p
        for p in found
    ), found


def test_at_default_is_an_error(tmp_path):
    write(tmp_path, "vllm/preemption.yaml", AT.replace("          latest: {verdict", "          default: {verdict"))
    found = problems(tmp_path)
    assert any(": at: default is what the fields outside `at` say" in p for p in found), found


def test_bad_verdict_in_at_is_a_schema_problem(tmp_path):
    write(tmp_path, "vllm/preemption.yaml", AT.replace("{verdict: changed", "{verdict: wrong"))
    found = problems(tmp_path)
    assert any(p.startswith("annotations/vllm/preemption.yaml:") and "wrong" in p for p in found), found
