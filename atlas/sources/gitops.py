"""Git through gitpython: the bare cache repository per framework, ref resolution against the remote, shallow
fetches of one commit, and one read-only worktree per commit. Every git failure becomes a SourceError that says
what to do."""

from __future__ import annotations

import errno
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import git

from atlas.errors import SourceError

UNREADABLE = "is not a readable git checkout"
HEX = re.compile(r"^[0-9a-f]{4,40}$")
Progress = Callable[[str, float], None]  # (message, fraction 0..1)


LOW_SPACE = 1 << 20  # bytes free below which a git failure is put down to a full disk (git may not say so)


def no_space(exc: BaseException, where: Path | None = None, needed: int = 0) -> bool:
    """Whether `exc` came of a full disk: it says so, or the file system of `where` has less room than `needed`
    bytes (what the failed command was writing) or is all but full."""
    if (isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)) or "No space left" in str(exc):
        return True
    try:
        free = os.statvfs(where) if where is not None else None
    except OSError:
        return False
    return free is not None and free.f_bavail * free.f_frsize < max(LOW_SPACE, needed)


def explain(exc: BaseException, doing: str, where: Path | None = None, needed: int = 0) -> SourceError:
    """A git failure as a SourceError; `where`: the folder git was writing to, `needed`: the bytes it was writing."""
    if no_space(exc, where, needed):
        return SourceError(
            f"no space left on the device while {doing}; free some space (or point --cache elsewhere) "
            "and run the command again: nothing half-written was kept"
        )
    return SourceError(f"git failed while {doing}: {first_line(exc)}")


def tree_size(repo: git.Repo, sha: str) -> int:
    """The bytes a checkout of `sha` holds (its files' sizes); 0 when git cannot say."""
    try:
        listed = repo.git.ls_tree("-r", "-l", "--full-tree", sha)
    except git.GitCommandError:
        return 0
    sizes = (line.split("\t", 1)[0].split()[-1] for line in listed.splitlines())
    return sum(int(size) for size in sizes if size.isdigit())


def make_writable(path: Path) -> None:
    for p in [path, *path.rglob("*")]:
        if not p.is_symlink():
            p.chmod(p.stat().st_mode | 0o200)


def make_read_only(path: Path, skip: str = ".git") -> None:
    for p in path.rglob("*"):
        if p.name == skip and p.parent == path or p.is_symlink():
            continue
        p.chmod(p.stat().st_mode & ~0o222)


def remove_tree(path: Path) -> None:
    if path.exists() or path.is_symlink():
        make_writable(path)
        shutil.rmtree(path)


def open_cache_repo(repo_dir: Path, url: str) -> git.Repo:
    """The bare repository that holds every fetched commit of one framework; created on first use."""
    if repo_dir.exists():
        try:
            repo = git.Repo(repo_dir)
            repo.git.rev_parse("--git-dir")
        except (git.InvalidGitRepositoryError, git.NoSuchPathError, git.GitCommandError):
            raise SourceError(
                f"the cache repository {repo_dir} is corrupt; run `atlas sync --repair` "
                "(or delete that folder) to fetch it again"
            ) from None
    else:
        repo_dir.parent.mkdir(parents=True, exist_ok=True)
        tmp = repo_dir.with_name(repo_dir.name + ".partial")
        remove_tree(tmp)
        try:
            git.Repo.init(tmp, bare=True)
            tmp.rename(repo_dir)
        except OSError as exc:
            remove_tree(tmp)
            raise explain(exc, f"creating {repo_dir}") from None
        repo = git.Repo(repo_dir)
    clear_leftovers(repo_dir)
    # git writes its config to config.lock and renames it over: a kill leaves the old file or the new one whole
    # (gitpython's config writer truncates the file in place, where a kill leaves a config git cannot read).
    try:
        if repo.git.config("--get", "remote.origin.url", with_exceptions=False) != url:
            repo.git.config("remote.origin.url", url)
    except git.GitCommandError as exc:
        raise explain(exc, f"setting the remote of {repo_dir}", repo_dir) from None
    return repo


LEFTOVERS = ("*.lock", "refs/**/*.lock", "objects/pack/tmp_*", "objects/*/tmp_obj_*", "objects/incoming-*")


def clear_leftovers(repo_dir: Path) -> None:
    """Remove what an interrupted or failed git command left in the cache repository (lock files, a temporary pack
    of a fetch that ran out of space), so that the next fetch can run and has the space back. Called holding the
    cache's lock: no other git command of atlas is running there."""
    for pattern in LEFTOVERS:
        for path in repo_dir.glob(pattern):
            if path.is_dir() and not path.is_symlink():
                remove_tree(path)
            else:
                path.unlink(missing_ok=True)


def ls_remote(repo: git.Repo, url: str) -> dict[str, str]:
    """Refs of the remote `origin` (called `url` in messages): name -> commit (annotated tags peeled)."""
    try:
        out = repo.git.ls_remote("origin")
    except git.GitCommandError as exc:
        raise SourceError(
            f"cannot reach the remote {url}: {first_line(exc)}; check the network, "
            "or set ATLAS_MIRROR=DIR (--mirror DIR) to use a local mirror"
        ) from None
    return parse_refs(out)


def parse_refs(out: str) -> dict[str, str]:
    """`git ls-remote` output as name -> commit (annotated tags peeled)."""
    refs: dict[str, str] = {}
    for line in out.splitlines():
        sha, _, name = line.partition("\t")
        if name.endswith("^{}"):
            refs[name[:-3]] = sha  # the peeled commit wins over the tag object
        else:
            refs.setdefault(name, sha)
    return refs


def resolve(repo: git.Repo, url: str, ref: str, progress: Progress | None = None) -> str:
    """The full commit `ref` names at the remote `origin` (called `url` in messages): a tag, a branch, a full or
    abbreviated commit."""
    refs = ls_remote(repo, url)
    for candidate in (f"refs/tags/{ref}", f"refs/heads/{ref}", ref):
        if candidate in refs:
            return refs[candidate]
    if not HEX.match(ref):
        raise SourceError(f"unknown ref {ref!r} at {url}: no such tag or branch; list them with `git ls-remote {url}`")
    if len(ref) == 40:
        return ref
    matches = sorted({sha for sha in refs.values() if sha.startswith(ref)})
    if len(matches) == 1:
        return matches[0]
    # An abbreviated commit no ref points at: fetch the history (no blobs) and ask git to expand it.
    fetch(repo, "+refs/heads/*:refs/remotes/origin/*", progress, depth=None, blobless=True, history=True)
    try:
        out = repo.git.rev_parse("--disambiguate=" + ref)
    except git.GitCommandError as exc:
        raise explain(exc, f"resolving {ref}") from None
    commits = [sha for sha in out.split() if repo.git.cat_file("-t", sha) == "commit"]
    if len(commits) > 1:
        raise SourceError(
            f"ambiguous commit {ref!r} at {url}: it matches {', '.join(c[:12] for c in commits)}; give more hex digits"
        )
    if not commits:
        raise SourceError(
            f"unknown ref {ref!r} at {url}: no tag, branch or commit matches; list refs with `git ls-remote {url}`"
        )
    return commits[0]


def has_commit(repo: git.Repo, sha: str) -> bool:
    """Whether the repository holds commit `sha` and every object of its tree (a fetch that ran out of space can
    leave the commit without its files)."""
    try:
        if repo.git.cat_file("-t", sha) != "commit":
            return False
        listed = repo.git.rev_list("--objects", "--missing=print", "--no-walk", sha)
    except git.GitCommandError:
        return False
    return not any(line.startswith("?") for line in listed.splitlines())


class _GitProgress(git.RemoteProgress):
    def __init__(self, report: Progress):
        super().__init__()
        self.report = report

    def update(self, op_code, cur_count, max_count=None, message=""):
        stage = {
            self.COUNTING: "counting",
            self.COMPRESSING: "compressing",
            self.RECEIVING: "receiving",
            self.RESOLVING: "resolving",
        }.get(op_code & self.OP_MASK, "fetching")
        self.report(stage, (cur_count / max_count) if max_count else 0.0)


def fetch(
    repo: git.Repo,
    refspec: str,
    progress: Progress | None,
    depth: int | None = 1,
    blobless: bool = False,
    history: bool = False,
) -> None:
    """Fetch `refspec` from origin: shallow by default; `history` fetches every branch and tag in full."""
    kwargs: dict = {}
    if depth:
        kwargs["depth"] = depth
    if blobless:
        kwargs["filter"] = "blob:none"
    if history:
        kwargs["tags"] = True
        if repo.git.rev_parse("--is-shallow-repository") == "true":
            kwargs["unshallow"] = True
    try:
        repo.remote("origin").fetch(refspec, progress=_GitProgress(progress) if progress else None, **kwargs)
    except git.GitCommandError as exc:
        raise explain(exc, f"fetching {refspec} from {repo.remote('origin').url}", Path(repo.git_dir)) from None


def add_worktree(repo: git.Repo, path: Path, sha: str) -> None:
    """Check `sha` out at `path` (via a temporary folder, so an interruption leaves nothing that looks done)."""
    tmp = path.with_name("." + path.name + ".partial")
    remove_tree(tmp)
    repo.git.worktree("prune")
    try:
        repo.git.worktree("add", "--detach", "--force", str(tmp), sha)
        make_read_only(tmp)
        repo.git.worktree("move", str(tmp), str(path))
    except (git.GitCommandError, OSError) as exc:
        remove_tree(tmp)
        repo.git.worktree("prune")
        raise explain(exc, f"checking out {sha[:12]}", path.parent, tree_size(repo, sha)) from None


def remove_worktree(repo: git.Repo, path: Path) -> None:
    remove_tree(path)
    repo.git.worktree("prune")


def commit_time(folder: Path) -> int:
    """Seconds since the epoch of the last commit of the git checkout holding `folder`; 0 outside one."""
    try:
        return int(git.Repo(folder, search_parent_directories=True).head.commit.committed_date)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, ValueError, TypeError):
        return 0


def first_line(exc: BaseException) -> str:
    """The last meaningful line git printed, without gitpython's quoting."""
    text = str(getattr(exc, "stderr", "") or exc).strip().removeprefix("stderr:").strip().strip("'").strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return (lines[-1] if lines else text)[:300].removeprefix("fatal: ")
