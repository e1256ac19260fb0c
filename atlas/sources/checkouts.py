"""Checkouts held to their commit. Every run checks what it will read against the commit before any stage reads it:
one `git status` over git's index, whose stat data (size, times, inode) makes an unchanged file cost a stat call and
a changed one a hash, so an edit, a deletion or a staged change is seen. `restore` puts back only the files that
differ, for `atlas sync --repair`."""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import git

from atlas.errors import SourceError
from atlas.sources import gitops

MAX_RESTORED = 200  # more damaged files than this: the checkout is made again rather than patched
_KINDS = {"D": "deleted", "A": "added", "T": "changed kind", "U": "unmerged"}
_verified: set[tuple[Path, str]] = set()  # checkouts this process found clean (a process reads each once)


@dataclass(frozen=True, slots=True)
class Damage:
    """How a checkout differs from its commit; false when it does not."""

    unreadable: str = ""  # why git cannot read it (its link to the cache repository is broken, its index corrupt)
    head: str = ""  # the commit it is at, when another than its own
    changed: tuple[tuple[str, str], ...] = ()  # (path, how) of each file whose content or kind is not the commit's

    def __bool__(self) -> bool:
        return bool(self.unreadable or self.head or self.changed)

    @property
    def is_patchable(self) -> bool:
        """Whether putting back the changed files repairs it (git can read it, and it is at its commit)."""
        return not self.unreadable and not self.head and 0 < len(self.changed) <= MAX_RESTORED

    def describe(self, sha: str) -> str:
        if self.unreadable:
            return f"{gitops.UNREADABLE} ({self.unreadable})"
        if self.head:
            return f"is at {self.head[:12]}, not {sha[:12]}"
        listed = ", ".join(f"{path} {how}" for path, how in self.changed[:3])
        more = f" and {len(self.changed) - 3} more" if len(self.changed) > 3 else ""
        return f"has local changes: {listed}{more}"


def damage(path: Path, sha: str, refresh: bool = False) -> Damage:
    """How the checkout at `path` differs from commit `sha`: one `git status` (untracked files are not read by atlas
    and not looked for). It writes nothing, unless `refresh` (a writer holding the cache's lock): then git keeps
    the stat data of files it had to hash, so the next check costs a stat call each."""
    try:
        out = git.Repo(path).git.status(
            "--porcelain=v2",
            "-z",
            "--branch",
            "--untracked-files=no",
            "--ignore-submodules=all",
            "--no-renames",
            env={"GIT_OPTIONAL_LOCKS": "1" if refresh else "0"},
        )
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, git.GitCommandError, ValueError, OSError) as exc:
        return Damage(unreadable=gitops.first_line(exc))
    head, changed = "", []
    for entry in out.split("\0"):
        if entry.startswith("# branch.oid "):
            head = entry.removeprefix("# branch.oid ")
        elif entry.startswith(("1 ", "u ")):
            fields = entry.split(" ", 8 if entry[0] == "1" else 10)
            codes = fields[1].replace(".", "")
            changed.append((fields[-1], next((_KINDS[c] for c in codes if c in _KINDS), "changed")))
    return Damage(head="" if head == sha else head, changed=tuple(sorted(changed)))


def verify(framework: str, pin_set: str, path: Path, sha: str, again: bool = False, is_ref: bool = False) -> None:
    """Raise SourceError, naming the files and the repair, unless the checkout at `path` holds commit `sha`
    unchanged. Checked once per process (`again`: check once more, after a stage that read it)."""
    key = (path, sha)
    if key in _verified and not again:
        return
    found = damage(path, sha)
    if found:
        _verified.discard(key)
        fix = (
            f"run `atlas diff` again (it checks {pin_set} out afresh)"
            if is_ref
            else f"run `{repair_command(framework, pin_set)}` to restore it"
        )
        what = f"ref {pin_set}" if is_ref else f"{pin_set} pins"
        raise SourceError(f"the checkout {path} of {framework} ({what}) {found.describe(sha)}; {fix}")
    _verified.add(key)


def blob_id(data: bytes, like: str = "") -> str:
    """The git blob id of `data` (SHA-1, or SHA-256 when `like`, an id of the repository, is one): a file's
    content hash, as `git ls-files -s` lists it."""
    algorithm = hashlib.sha256 if len(like) == 64 else hashlib.sha1
    return algorithm(b"blob %d\0" % len(data) + data).hexdigest()


def repair_command(framework: str, pin_set: str) -> str:
    return f"atlas sync --repair {framework}" + (f" --pins {pin_set}" if pin_set != "default" else "")


def restore(path: Path, found: Damage) -> None:
    """Put the commit's version of each changed file back into the read-only checkout at `path`, touching nothing
    else: what stands in a file's place (a folder, a link) is removed, the index entry and the file are taken from
    the commit, and the file and its folders are made read-only again."""
    paths = [rel for rel, _ in found.changed]
    opened = {folder for rel in paths for folder in _clear(path, rel)}
    tree = git.Repo(path)
    tree.git.update_environment(GIT_LITERAL_PATHSPECS="1")
    tree.git.reset("-q", "HEAD", "--", *paths)
    in_head = [p for p in tree.git.ls_tree("-r", "--name-only", "-z", "HEAD", "--", *paths).split("\0") if p]
    if in_head:
        tree.git.checkout("HEAD", "--", *in_head)
    restored = [path / rel for rel in in_head]
    for p in {*restored, *opened, *(folder for target in restored for folder in target.parents)}:
        if path in p.parents and p.exists() and not p.is_symlink():
            p.chmod(p.stat().st_mode & ~0o222)
    with contextlib.suppress(git.GitCommandError):  # the restored files' stat data: the next check costs a stat
        tree.git.update_index("-q", "--refresh")
    _verified.discard((path, tree.head.commit.hexsha))


def _clear(root: Path, rel: str) -> list[Path]:
    """Make room for `rel` under `root`: its folders writable, and whatever is at its place (or at a folder's
    place: a file standing where a folder belongs) removed; returns the folders made writable."""
    folder, opened = root, list[Path]()
    for part in Path(rel).parts[:-1]:
        folder = folder / part
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            folder.parent.chmod(folder.parent.stat().st_mode | stat.S_IWUSR)
            folder.unlink()
            return opened
        if not folder.is_dir():
            return opened
        folder.chmod(folder.stat().st_mode | stat.S_IWUSR | stat.S_IXUSR)
        opened.append(folder)
    target = root / rel
    if target.is_dir() and not target.is_symlink():
        gitops.remove_tree(target)
    elif target.exists() or target.is_symlink():
        os.unlink(target)
    return opened
