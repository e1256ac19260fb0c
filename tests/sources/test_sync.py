"""atlas sync / atlas pin against fixture repositories: mirrors, locks, idempotence and every error path."""

from __future__ import annotations

import errno
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gitfixtures import git, make_remote, write_manifest

from atlas.cli import main
from atlas.sources import gitops

VERSIONS = {
    "v1": {"pkg/__init__.py": "", "pkg/core.py": "def f():\n    return 1\n", "pkg/tests/test_core.py": "x = 1\n"},
    "v2": {"pkg/__init__.py": "", "pkg/core.py": "def f():\n    return 2\n\n\ndef g():\n    return f()\n"},
}


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project root with a manifest for `engine`, a mirror folder holding engine.git, and an empty cache."""
    mirror = tmp_path / "mirror"
    bare = make_remote(mirror, VERSIONS)
    root = tmp_path / "project"
    write_manifest(root, "engine", "https://example.invalid/engine", "v1")
    monkeypatch.setenv("ATLAS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ATLAS_MIRROR", str(mirror))
    monkeypatch.chdir(root)
    return type(
        "Project",
        (),
        {
            "root": root,
            "mirror": mirror,
            "bare": bare,
            "cache": tmp_path / "cache",
            "manifest": root / "pinned_sources" / "engine.yaml",
        },
    )


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def sync_json(capsys, *argv) -> list[dict]:
    code, out, err = run(capsys, "sync", "--format", "json", *argv)
    assert code == 0, err
    return json.loads(out)


def test_sync_checks_out_the_pin_read_only_and_writes_the_lock(project, capsys):
    (row,) = sync_json(capsys)
    v1 = git(project.bare, "rev-parse", "v1")
    assert row == {
        "name": "engine",
        "pins": "default",
        "ref": "v1",
        "commit": v1,
        "source": "mirror",
        "path": row["path"],
    }
    checkout = Path(row["path"])
    assert (checkout / "pkg" / "core.py").read_text() == VERSIONS["v1"]["pkg/core.py"]
    assert not (checkout / "pkg" / "core.py").stat().st_mode & 0o222, "checkout files must be read-only"
    assert f"mirror: {v1}" in project.manifest.read_text()
    assert "# fixture manifest" in project.manifest.read_text(), "comments survive the rewrite"


def test_second_sync_is_a_no_op(project, capsys):
    sync_json(capsys)
    code, out, _ = run(capsys, "sync")
    assert code == 0 and "up to date" in out


def test_two_commits_sit_side_by_side(project, capsys):
    (first,) = sync_json(capsys)
    code, _, err = run(capsys, "pin", "engine", "v2")
    assert code == 0, err
    (second,) = sync_json(capsys)
    assert first["path"] != second["path"]
    assert Path(first["path"], "pkg/core.py").exists() and "def g" in Path(second["path"], "pkg/core.py").read_text()


def test_mirror_without_refs_folder_is_accepted(project, capsys):
    """Mirrors copied without their empty refs/ folder (as in ../shared/sources) still work, through a shim."""
    shutil.rmtree(project.bare / "refs")
    (row,) = sync_json(capsys)
    assert len(row["commit"]) == 40
    assert Path(row["path"], "pkg/core.py").exists()


def test_upstream_url_without_mirror(project, capsys, monkeypatch):
    monkeypatch.delenv("ATLAS_MIRROR")
    write_manifest(project.root, "engine", str(project.bare), "v2")
    (row,) = sync_json(capsys)
    assert row["source"] == "upstream" and row["commit"] == git(project.bare, "rev-parse", "v2")
    assert f"upstream: {row['commit']}" in project.manifest.read_text()


def test_pin_round_trips_the_manifest(project, capsys):
    sync_json(capsys)
    before = project.manifest.read_text()
    assert run(capsys, "pin", "engine", "v2")[0] == 0
    assert project.manifest.read_text() != before
    assert run(capsys, "pin", "engine", "v1")[0] == 0
    assert project.manifest.read_text() == before


def test_abbreviated_commit_is_resolved_into_the_lock(project, capsys):
    full = git(project.bare, "rev-parse", "v1")
    code, out, err = run(capsys, "pin", "engine", full[:9])
    assert code == 0, err
    assert f"mirror: {full}" in project.manifest.read_text() and f"ref: {full[:9]}" in project.manifest.read_text()


def test_abbreviated_commit_not_at_a_ref_tip_is_found_in_history(tmp_path, project, capsys):
    # v1 is not a tip once main moved on; it's found only after fetching the history.
    work = project.mirror / "engine-work"
    (work / "pkg" / "extra.py").write_text("y = 2\n")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "after v2")
    git(work, "tag", "-d", "v1")
    git(work, "push", "-q", "--force", str(project.bare), "main")
    git(project.bare, "tag", "-d", "v1")
    first = git(work, "rev-list", "--max-parents=0", "HEAD")
    code, _, err = run(capsys, "pin", "engine", first[:10])
    assert code == 0, err
    assert f"mirror: {first}" in project.manifest.read_text()


def test_unknown_ref_is_one_line_naming_ref_and_remote(project, capsys):
    code, out, err = run(capsys, "pin", "engine", "v9.9.9")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "v9.9.9" in err and str(project.mirror / "engine.git") in err


def _commits_sharing_a_prefix(bare: Path) -> str:
    """Add commits until two share a 4-hex-digit prefix; return that prefix."""
    stream = ["reset refs/heads/main"]
    for i in range(1200):
        stream += [
            "commit refs/heads/main",
            f"mark :{i + 1}",
            "committer a <a@b> 1700000000 +0000",
            f"data {len(str(i))}",
            str(i),
        ]
        if i:
            stream.append(f"from :{i}")
    git(bare, "fast-import", "--quiet", "--force", stdin=("\n".join(stream) + "\n").encode())
    seen: dict[str, str] = {}
    for sha in git(bare, "rev-list", "main").split():
        if sha[:4] in seen:
            return sha[:4]
        seen[sha[:4]] = sha
    raise AssertionError("no shared prefix among 1200 commits")


def test_ambiguous_abbreviated_commit(project, capsys):
    prefix = _commits_sharing_a_prefix(project.bare)
    code, _, err = run(capsys, "pin", "engine", prefix)
    assert code == 2 and "ambiguous" in err and prefix in err


def test_unreachable_remote(project, capsys, monkeypatch):
    monkeypatch.delenv("ATLAS_MIRROR")
    write_manifest(project.root, "engine", str(project.root / "nowhere.git"), "v1")
    code, _, err = run(capsys, "sync")
    assert code == 2 and "cannot reach the remote" in err and "ATLAS_MIRROR" in err


def test_missing_mirror_repository(project, capsys):
    shutil.rmtree(project.bare)
    code, _, err = run(capsys, "sync")
    assert code == 2 and "no mirror of engine" in err


def test_corrupt_cache_then_repair(project, capsys):
    sync_json(capsys)
    repo = project.cache / "repos" / "engine.git"
    shutil.rmtree(repo / "objects")
    (repo / "HEAD").write_text("garbage\n")
    shutil.rmtree(project.cache / "checkouts")
    code, _, err = run(capsys, "sync")
    assert code == 2 and "corrupt" in err and "--repair" in err
    (row,) = sync_json(capsys, "--repair")
    assert Path(row["path"], "pkg/core.py").exists()


def test_local_changes_in_a_checkout_then_repair(project, capsys):
    (row,) = sync_json(capsys)
    core = Path(row["path"], "pkg/core.py")
    core.chmod(0o644)
    core.write_text("tampered\n")
    code, _, err = run(capsys, "sync")
    assert code == 2 and "local changes" in err and "pkg/core.py" in err and "--repair" in err
    sync_json(capsys, "--repair")
    assert core.read_text() == VERSIONS["v1"]["pkg/core.py"]


@pytest.mark.parametrize(
    "text, where, what",
    [
        ("schema: 1\nname: engine\nurl: x\ninclude: [a]\npins: {default: {ref: v1}}\n", ":3:", "url"),
        ("schema: 1\nname: engine\nurl: /x\ninclude: [a]\ncolour: red\npins: {default: {ref: v1}}\n", ":5:", "colour"),
        ("schema: 1\nname: engine\nurl: /x\ninclude: [a]\npins:\n  default: {ref: v1, lock: abc}\n", ":6:", "lock"),
        ("schema: 1\nname: engine\nurl: /x\ninclude: [a]\npins:\n  default:\n    ref: [v1\n", ":7:", "invalid YAML"),
    ],
)
def test_bad_manifest_names_file_and_line(project, capsys, text, where, what):
    project.manifest.write_text(text)
    before = project.manifest.read_text()
    code, _, err = run(capsys, "sync")
    assert code == 2 and f"engine.yaml{where}" in err and what in err
    assert project.manifest.read_text() == before, "a bad manifest is never rewritten"


def test_unknown_pin_set_lists_the_choices(project, capsys):
    code, _, err = run(capsys, "sync", "--pins", "nightly")
    assert code == 2 and "nightly" in err and "default" in err


def test_no_space_left_leaves_nothing_half_written(project, capsys, monkeypatch):
    def full_disk(path):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(gitops, "make_read_only", full_disk)
    code, _, err = run(capsys, "sync")
    assert code == 2 and "no space left" in err
    checkouts = project.cache / "checkouts" / "engine"
    assert not checkouts.exists() or list(checkouts.iterdir()) == []
    monkeypatch.undo()
    monkeypatch.setenv("ATLAS_CACHE", str(project.cache))
    monkeypatch.setenv("ATLAS_MIRROR", str(project.mirror))
    monkeypatch.chdir(project.root)
    (row,) = sync_json(capsys)
    assert Path(row["path"], "pkg/core.py").exists()


def test_an_interrupted_clone_is_recovered(project, capsys):
    """Kill a sync halfway (simulated: the leftovers an interrupted fetch and checkout leave), then sync again."""
    (row,) = sync_json(capsys)
    checkout = Path(row["path"])
    marker = checkout.with_name(checkout.name + ".ok")
    marker.unlink()  # the marker is written last: without it the checkout counts as unfinished
    partial = checkout.with_name("." + checkout.name + ".partial")
    partial.mkdir()
    (project.cache / "repos" / "engine.git" / "shallow.lock").write_text("")
    (row2,) = sync_json(capsys)
    assert row2["path"] == row["path"] and marker.exists() and not partial.exists()
    assert Path(row2["path"], "pkg/core.py").exists()


def test_cli_version_and_help_exit_cleanly():
    script = Path(sys.executable).with_name("atlas")  # the console script the install put beside this Python
    out = subprocess.run([str(script), "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("atlas ")


def test_options_before_and_after_the_verb_are_the_same(project, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # outside the project: only --root finds it
    before = run(capsys, "--root", str(project.root), "--format", "json", "sync")
    after = run(capsys, "sync", "--root", str(project.root), "--format", "json")
    assert before[0] == after[0] == 0 and json.loads(before[1]) == json.loads(after[1])


def test_a_pin_set_only_some_frameworks_have(project, capsys, tmp_path):
    """`atlas sync --pins default,cpu` syncs `cpu` where a manifest has it; naming the framework makes it strict."""
    text = project.manifest.read_text()
    other = project.root / "pinned_sources" / "other.yaml"
    shutil.copytree(project.bare, project.mirror / "other.git")
    other.write_text(text.replace("name: engine", "name: other"))
    project.manifest.write_text(text + "  cpu:\n    ref: v2\n")
    rows = sync_json(capsys, "--pins", "default,cpu")
    assert sorted((r["name"], r["pins"]) for r in rows) == [
        ("engine", "cpu"),
        ("engine", "default"),
        ("other", "default"),
    ]
    code, _, err = run(capsys, "sync", "other", "--pins", "cpu")
    assert code == 2 and "no pin set 'cpu'" in err
    code, _, err = run(capsys, "sync", "--pins", "nightly")
    assert code == 2 and "nightly" in err
