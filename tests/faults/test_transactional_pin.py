"""`atlas pin` as one transaction: moving the default pin rewrites the annotations (the new code's places, the old
pin's values kept as `at:` entries of the other pin sets) and the manifest together. A kill at any rename of the
command leaves the old files or, once the next command has run, the new ones; running the same `atlas pin` again
ends where an uninterrupted one does."""

from __future__ import annotations

import json
import shutil

import pytest
from gitfixtures import git
from project import ATLAS, promise

from atlas import journal

ANNOTATION = """# the fixture's contract: its comments stay
schema: 1
framework: vllm
annotations:
  - id: vllm.prefix-cache.allocate
    mechanism: prefix-cache
    symbol: pkg.kv.KVCacheManager.allocate_slots   # the allocator
    anchor:
      pattern: "self.pool.get_new_blocks(n)"
    role: allocate
    summary: Takes blocks from the pool.
    claims:
      - id: takes-blocks
        article: "takes blocks"
        claim: The manager takes blocks from the pool.
        verdict: holds
        evidence:
          - pattern: "return self.pool.get_new_blocks(n)"
"""


def _release_renaming_the_method(project) -> None:
    """v3 of the vllm mirror: allocate_slots renamed to allocate."""
    work = project.mirror / "vllm-work"
    git(work, "checkout", "-q", "v2")
    for rel, old, new in (
        ("pkg/kv.py", "def allocate_slots", "def allocate"),
        ("pkg/sched.py", "allocate_slots(", "allocate("),
    ):
        path = work / rel
        path.write_text(path.read_text().replace(old, new))
    git(work, "commit", "-qam", "release v3")
    git(work, "tag", "v3")
    git(work, "push", "-q", str(project.mirror / "vllm.git"), "v3")


@pytest.fixture
def moving(project):
    """The project with one annotation holding at both pin sets, and a release that moves its code."""
    _release_renaming_the_method(project)
    (project.root / "annotations" / "vllm").mkdir()
    (project.root / "annotations" / "vllm" / "fixture.yaml").write_text(ANNOTATION)
    promise(project.atlas("check", "--pins", "default"))
    promise(project.atlas("check", "--pins", "latest"))
    return project


def _files(project) -> dict[str, str]:
    return {
        rel: (project.root / rel).read_text() for rel in ("annotations/vllm/fixture.yaml", "pinned_sources/vllm.yaml")
    }


def _put(project, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (project.root / rel).write_text(text)
    shutil.rmtree(project.root / journal.FOLDER, ignore_errors=True)


def _killed_at_rename(project, n: int, *args: str):
    """`atlas ARGS`, killed (SIGKILL) when its process makes its n-th rename (strace injects the signal)."""
    import subprocess

    return subprocess.run(
        [
            "strace",
            "-qq",
            "-o",
            "/dev/null",
            "-e",
            "trace=rename,renameat,renameat2",
            "-e",
            f"inject=rename,renameat,renameat2:signal=KILL:when={n}",
            *ATLAS,
            *args,
        ],
        cwd=project.root,
        env=project.env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_kill_at_any_rename_leaves_the_old_files_or_the_new(moving):
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed (it injects the kills)")
    move = ("pin", "vllm", "v3", "--apply-suggestions")
    old = _files(moving)
    promise(moving.atlas(*move))
    new = _files(moving)
    assert new != old and "at:" in new["annotations/vllm/fixture.yaml"]
    for n in range(1, 60):
        _put(moving, old)
        done = _killed_at_rename(moving, n, *move)
        if done.returncode == 0:
            break
        assert done.returncode in (-9, 137), done.stderr
        promise(moving.atlas("check", "--pins", "latest"), (0, 1))  # any command first finishes or undoes it
        assert _files(moving) in (old, new), f"killed at rename {n}: a mix of the old and the new files"
        promise(moving.atlas(*move))
        assert _files(moving) == new, f"killed at rename {n}: running the same pin again did not end as one run"
        for pin_set in ("default", "latest"):
            promise(moving.atlas("sync", "--pins", pin_set))
            promise(moving.atlas("check", "--pins", pin_set))
    else:
        pytest.fail("atlas pin was killed at every one of 59 renames")
    assert n > 3, "the kills never reached the writes"


def test_a_switched_journal_is_finished_by_the_next_command(project):
    """A kill after the switch: the staged texts replace the files before anything reads them."""
    manifest = project.root / "pinned_sources" / "vllm.yaml"
    staged = manifest.with_name(".vllm.yaml.txn-1-ab")
    staged.write_text(manifest.read_text() + "# moved\n")
    (project.root / journal.FOLDER).mkdir()
    (project.root / journal.FOLDER / journal.JOURNAL).write_text(
        json.dumps(
            {"state": "committed", "files": [["pinned_sources/vllm.yaml", "pinned_sources/.vllm.yaml.txn-1-ab"]]}
        )
    )
    promise(project.atlas("show", "Scheduler.schedule", "--framework", "vllm"))
    assert manifest.read_text().endswith("# moved\n") and not staged.exists()
    assert not (project.root / journal.FOLDER / journal.JOURNAL).exists()


@pytest.mark.parametrize(
    "entry",
    [
        {"state": "staging", "files": [["pinned_sources/vllm.yaml", "pinned_sources/.vllm.yaml.txn-1-ab"]]},
        {"state": "committed", "files": [["../outside.yaml", "pinned_sources/.vllm.yaml.txn-1-ab"]]},
        "not json",
    ],
)
def test_a_journal_before_its_switch_or_damaged_changes_nothing(project, entry):
    manifest = project.root / "pinned_sources" / "vllm.yaml"
    before = manifest.read_text()
    staged = manifest.with_name(".vllm.yaml.txn-1-ab")
    staged.write_text("half of a new manifest")
    (project.root / journal.FOLDER).mkdir()
    (project.root / journal.FOLDER / journal.JOURNAL).write_text(entry if isinstance(entry, str) else json.dumps(entry))
    promise(project.atlas("show", "Scheduler.schedule", "--framework", "vllm"))
    assert manifest.read_text() == before
    assert not (project.root / journal.FOLDER / journal.JOURNAL).exists()
    assert not (project.root.parent / "outside.yaml").exists()
