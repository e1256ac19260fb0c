"""Checkouts held to their commit: a synced checkout edited, emptied or moved by hand is named (with the repair) by
every verb that reads it before any stage reads a file; `atlas sync --repair` puts back only what is damaged; and
nothing made while it was damaged is kept, so the site of a restored checkout is the clean build's, byte for byte."""

from __future__ import annotations

import os
import shutil
import stat

import pytest
from project import files_of, promise

from atlas.errors import SourceError
from atlas.graph.parsing import PyFile, parse_packed
from atlas.sources import blob_id, load_manifest

ANNOTATION = """schema: 1
framework: vllm
annotations:
  - id: vllm.prefix-cache.allocate
    mechanism: prefix-cache
    symbol: pkg.kv.KVCacheManager.allocate_slots
    anchor:
      pattern: "self.pool.get_new_blocks(n)"
    role: allocate
    summary: Takes blocks from the pool.
"""
READERS = [
    ("index",),
    ("index", "--force"),
    ("check",),
    ("show", "Scheduler.schedule", "--framework", "vllm"),
    ("graph", "callees", "Scheduler.schedule", "--framework", "vllm"),
]


def _checkout(project, pin_set="default"):
    commit = load_manifest(project.root / "pinned_sources" / "vllm.yaml").locked_pin(pin_set, "mirror").commit
    return project.cache / "checkouts" / "vllm" / commit[:12]


def _writable(path):
    for p in [path, *path.parents]:
        if p.name in ("vllm", "checkouts"):
            break
        p.chmod(p.stat().st_mode | stat.S_IWUSR)


def _edit(checkout):
    path = checkout / "pkg" / "kv.py"
    _writable(path)
    path.write_text(path.read_text().replace("get_new_blocks(n)", "get_other_blocks(n)"))


def _edit_keeping_size_and_time(checkout):
    path = checkout / "pkg" / "kv.py"
    before = path.stat()
    _writable(path)
    path.write_text(path.read_text().replace("get_new_blocks(n)", "get_new_blockz(n)"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _delete(checkout):
    _writable(checkout / "pkg" / "pool.py")
    (checkout / "pkg" / "pool.py").unlink()


def _folder_for_file(checkout):
    _delete(checkout)
    (checkout / "pkg" / "pool.py").mkdir()


def _folder_deleted(checkout):
    (checkout / "pkg").chmod(0o755)
    shutil.rmtree(checkout / "pkg")


def _staged(checkout):
    from gitfixtures import git

    _edit(checkout)
    git(checkout, "add", "pkg/kv.py")


def _other_commit(checkout):
    from gitfixtures import git

    for folder in [checkout, *checkout.rglob("*")]:
        if folder.is_dir() and ".git" not in folder.parts:
            folder.chmod(0o755)
    head = git(checkout, "rev-parse", "HEAD")
    (other,) = set(git(checkout, "for-each-ref", "--format=%(objectname)", "refs/atlas").split()) - {head}
    git(checkout, "checkout", "-q", "--detach", other)


DAMAGE = [_edit, _edit_keeping_size_and_time, _delete, _folder_for_file, _folder_deleted, _staged, _other_commit]
PATCHED = (_edit, _edit_keeping_size_and_time, _delete, _folder_for_file, _staged)  # the rest of the tree stays


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_checkout_is_named_before_it_is_read(project, damage):
    (project.root / "annotations" / "vllm").mkdir()
    (project.root / "annotations" / "vllm" / "fixture.yaml").write_text(ANNOTATION)
    promise(project.atlas("check"))
    damage(_checkout(project))
    for verb in READERS:
        done = project.atlas(*verb)
        promise(done, (2,))
        assert "atlas sync --repair vllm" in done.stderr and str(_checkout(project)) in done.stderr, (verb, done.stderr)
        assert "up to date" not in done.stdout


@pytest.mark.parametrize("damage", DAMAGE)
def test_repair_puts_back_only_what_is_damaged(project, damage):
    """The other pin set's checkout, and the damaged checkout's other files when only files were damaged, stay as
    they were (the same inodes); the repaired checkout is whole and read-only again."""
    kept = [*_checkout(project, "latest").rglob("*.py")]
    kept += [_checkout(project) / "pkg" / "sched.py"] if damage in PATCHED else []
    inodes = {p: p.stat().st_ino for p in kept}
    damage(_checkout(project))
    promise(project.atlas("sync", "--repair", "vllm"))
    assert {p: p.stat().st_ino for p in kept} == inodes
    shown = project.atlas("show", "KVCacheManager.allocate_slots", "--framework", "vllm")
    promise(shown)
    assert "get_new_blocks" in shown.stdout
    writable = [p for p in _checkout(project).rglob("*") if p.stat().st_mode & 0o222 and ".git" not in p.parts]
    assert writable == []


def test_plain_sync_names_the_damage_and_the_repair(project):
    _edit(_checkout(project))
    done = project.atlas("sync")
    promise(done, (2,))
    assert "pkg/kv.py" in done.stderr and "atlas sync --repair vllm" in done.stderr


def test_the_site_of_a_restored_checkout_is_the_clean_build(built):
    html = built.root / "site_build" / "html"
    clean = files_of(html)
    _edit(_checkout(built))
    promise(built.atlas("build", "--no-check"), (2,))
    assert files_of(html) == clean
    promise(built.atlas("sync", "--repair", "vllm"))
    promise(built.atlas("build", "--no-check"))
    assert files_of(html) == clean


def test_parsed_facts_are_made_only_from_the_text_of_their_blob(tmp_path):
    (tmp_path / "a.py").write_bytes(b"def f():\n    return 1\n")
    listed = blob_id(b"def f():\n    return 1\n")
    assert parse_packed(tmp_path, PyFile("a.py", listed, "a", False))
    (tmp_path / "a.py").write_bytes(b"def f():\n    return 2\n")  # edited after the checkout was checked
    with pytest.raises(SourceError, match="changed while atlas read it"):
        parse_packed(tmp_path, PyFile("a.py", listed, "a", False))


def test_a_repair_killed_at_any_step_is_finished_by_the_next_sync(project):
    """Killed (SIGKILL) at each rename or unlink it makes: the next plain sync either checks the checkout out again
    or, when the repair had not begun, names it; the next repair always ends whole."""
    import subprocess

    from project import ATLAS

    if shutil.which("strace") is None:
        pytest.skip("strace is not installed (it injects the kills)")
    calls = "rename,renameat,renameat2,unlink,unlinkat"
    for n in range(1, 40):
        _edit(_checkout(project))
        _delete(_checkout(project))
        done = subprocess.run(
            ["strace", "-qq", "-o", "/dev/null", "-e", f"trace={calls}", "-e", f"inject={calls}:signal=KILL:when={n}"]
            + [*ATLAS, "sync", "--repair", "vllm"],
            cwd=project.root,
            env=project.env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        plain = project.atlas("sync")
        promise(plain, (0, 2))
        if plain.returncode == 2:
            assert "atlas sync --repair vllm" in plain.stderr, plain.stderr
        promise(project.atlas("sync", "--repair", "vllm"))
        shown = project.atlas("show", "KVCacheManager.allocate_slots", "--framework", "vllm")
        promise(shown)
        assert "get_new_blocks" in shown.stdout
        if done.returncode == 0:
            break
    else:
        pytest.fail("the repair was killed at every one of 39 steps")
    assert n > 2, "the kills never reached the repair"
