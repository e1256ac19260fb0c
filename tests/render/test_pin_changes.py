"""The mechanism pages' 'from default to latest' block: pin_changes over two small trees (a method folded into its
base class at the new pin, a claim whose verdict changes there), rendered by site/templates/_pin_changes.md.j2."""

from pathlib import Path

from annotate.folder_index import FolderIndex

from atlas.annotate import load_annotations
from atlas.annotate.resolve import Resolver
from atlas.model import Pin
from atlas.render import pinchanges
from atlas.render.env import environment

ROOT = Path(__file__).resolve().parents[2]
OLD = """class Scheduler:
    def update(self, request, ids):
        request.output.extend(ids)


class AsyncScheduler(Scheduler):
    def update(self, request, ids):
        super().update(request, ids)
        request.num_output_placeholders -= len(ids)
"""
NEW = """class Scheduler:
    def update(self, request, ids, is_stale=False):
        request.output.extend(ids)
        if not is_stale:
            request.num_output_placeholders -= len(ids)


class AsyncScheduler(Scheduler):
    pass
"""
ANNOTATIONS = """schema: 1
framework: vllm
annotations:
  - id: vllm.overlap-scheduling.async-commit
    mechanism: overlap-scheduling
    symbol: pkg.sched.AsyncScheduler.update
    anchor: {pattern: "request.num_output_placeholders -= len(ids)"}
    at:
      latest: {symbol: pkg.sched.Scheduler.update}
    role: commit
    summary: placeholders are consumed when real tokens arrive
    claims:
      - id: async-only
        article: "x"
        claim: Only the async scheduler consumes placeholders.
        verdict: holds
        evidence:
          - pattern: "request.num_output_placeholders -= len(ids)"
            at:
              latest: {symbol: pkg.sched.Scheduler.update}
        at:
          latest: {verdict: changed, note: folded into Scheduler.update}
"""


def tree(root: Path, text: str, ref: str) -> FolderIndex:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "sched.py").write_text(text)
    return FolderIndex(root, Pin("vllm", ref, (ref * 40)[:40], "https://github.com/vllm-project/vllm"))


def test_a_moved_step_shows_both_pins_and_the_verdict_change(tmp_path):
    (tmp_path / "annotations" / "vllm").mkdir(parents=True)
    (tmp_path / "annotations" / "vllm" / "a.yaml").write_text(ANNOTATIONS)
    (a,) = load_annotations(tmp_path)
    old, new = tree(tmp_path / "old", OLD, "v1"), tree(tmp_path / "new", NEW, "v2")
    change = pinchanges._change(a, pinchanges._placed(a, old, new, Resolver(old), Resolver(new), "latest"), "latest")
    assert change["moved"] == "pkg.sched.AsyncScheduler.update -> pkg.sched.Scheduler.update"
    assert change["old"] == {
        "text": "pkg/sched.py:9",
        "href": "https://github.com/vllm-project/vllm/blob/v1/pkg/sched.py#L9",
    }
    assert change["new"]["text"] == "pkg/sched.py:5"
    assert change["verdicts"] == [
        {
            "claim": "Only the async scheduler consumes placeholders.",
            "old": "holds",
            "new": "changed",
            "note": "folded into Scheduler.update",
        }
    ]
    env = environment(ROOT / "site" / "templates")
    text = env.from_string('{% from "_pin_changes.md.j2" import pin_changes %}{{ pin_changes(c) }}').render(c=change)
    assert "**From v1 to v2** (latest pins)" in text
    assert 'href="https://github.com/vllm-project/vllm/blob/v2/pkg/sched.py#L5"' in text
    assert "atlas-verdict-holds" in text and "atlas-verdict-changed" in text and "folded into Scheduler.update" in text


def test_no_change_says_so(tmp_path):
    change = {
        "pin_set": "latest",
        "old_ref": "v1",
        "new_ref": "v2",
        "old": {"text": "a.py:1", "href": "u1"},
        "new": {"text": "a.py:3", "href": "u2"},
        "moved": "",
        "anchor_changed": False,
        "signature": None,
        "verdicts": [],
    }
    env = environment(ROOT / "site" / "templates")
    text = env.from_string('{% from "_pin_changes.md.j2" import pin_changes %}{{ pin_changes(c) }}').render(c=change)
    assert "the same code and verdicts" in text
    assert (
        env.from_string('{% from "_pin_changes.md.j2" import pin_changes %}{{ pin_changes(c) }}').render(c=None).strip()
        == ""
    )
