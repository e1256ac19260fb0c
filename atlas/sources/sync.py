"""`atlas sync` and `atlas pin`: bring each pinned commit into the cache as a read-only checkout, and re-pin.

Locked pins never touch the network once fetched, so a second sync is a few stat calls and one `git status`."""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path

import git

from atlas import journal, locks, publish
from atlas.env import CACHE_KNOB, Settings
from atlas.errors import BuildMissing, SourceError
from atlas.model import Pin
from atlas.sources import checkouts, gitops
from atlas.sources.integrity import verify_lock
from atlas.sources.manifest import MIRROR, UPSTREAM, Manifest, pin_text, write_pin


@dataclass(frozen=True, slots=True)
class Checkout:
    pin: Pin
    pin_set: str
    path: Path
    source: str  # mirror | upstream
    fetched: bool  # whether this run had to fetch or check out


@dataclass(frozen=True, slots=True)
class Remote:
    url: str  # what git talks to
    source: str  # mirror | upstream
    label: str = ""  # what the user named (a mirror's own path, when a shim stands in for it)


def remote_of(manifest: Manifest, settings: Settings) -> Remote:
    """Upstream, or `<mirror>/<name>.git` when a mirror stands in for it."""
    if settings.mirror is None:
        return Remote(manifest.url, UPSTREAM, manifest.url)
    if not settings.mirror.is_dir():
        raise SourceError(
            f"mirror folder {settings.mirror} does not exist; ATLAS_MIRROR (--mirror) names a folder "
            "holding <framework>.git repositories"
        )
    mirror = settings.mirror / f"{manifest.name}.git"
    if not mirror.is_dir():
        raise SourceError(
            f"no mirror of {manifest.name} at {mirror}; ATLAS_MIRROR (--mirror) must name a folder "
            f"holding {manifest.name}.git"
        )
    if (mirror / "refs").is_dir():
        return Remote(str(mirror), MIRROR, str(mirror))
    shim = settings.cache / "mirror-shims" / f"{manifest.name}.git"
    with contextlib.suppress(OSError):  # a read-only cache: the stand-in is used as it is
        publish.make_room(shim, settings.cache, is_folder=True)
    shim = _shim(mirror, shim)
    return Remote(str(shim), MIRROR, str(mirror))


def _shim(mirror: Path, shim: Path) -> Path:
    """A mirror copied without its empty refs/ folder (git then refuses it): a writable stand-in that borrows the
    mirror's objects through `alternates` and copies its packed refs. Costs a few small files, no object copies.
    Files already as they should be are left alone (a read-only cache works), others are published atomically."""
    if not (mirror / "objects").is_dir() or not (mirror / "HEAD").is_file():
        raise SourceError(f"{mirror} is not a git repository (no objects/ or HEAD); point ATLAS_MIRROR elsewhere")
    wanted = {
        "objects/info/alternates": (str((mirror / "objects").resolve()) + "\n").encode(),
        "config": b"[core]\n\trepositoryformatversion = 0\n\tbare = true\n"
        b"[uploadpack]\n\tallowFilter = true\n\tallowAnySHA1InWant = true\n",
    }
    for name in ("HEAD", "packed-refs"):
        if (mirror / name).is_file():
            wanted[name] = (mirror / name).read_bytes()
    for rel, data in wanted.items():
        path = shim / rel
        if not (path.is_file() and path.read_bytes() == data):
            try:
                publish.write_bytes(path, data)
            except OSError as exc:
                raise SourceError(
                    f"cannot write the mirror stand-in {shim} ({exc.strerror}); make the cache "
                    "writable, or point --cache (ATLAS_CACHE) at a writable folder"
                ) from None
    if not (shim / "refs").is_dir():
        (shim / "refs").mkdir(parents=True, exist_ok=True)
    return shim


def checkout_path(settings: Settings, pin: Pin) -> Path:
    return settings.checkouts / pin.framework / pin.commit[:12]


def _done_marker(path: Path) -> Path:
    return path.with_name(path.name + ".ok")


def is_ready(settings: Settings, pin: Pin) -> bool:
    """Whether the checkout of `pin` is complete (the marker is written last)."""
    return _done_marker(checkout_path(settings, pin)).exists()


def _verified(
    manifest: Manifest, pin_set: str, remote: Remote, settings: Settings, offline_ok: bool = False
) -> Pin | None:
    """The locked pin of a set for this remote's source, checked against its ref (atlas.sources.integrity)."""
    pin = manifest.locked_pin(pin_set, remote.source)
    if pin is not None:
        verify_lock(manifest, pin_set, pin, remote.url, remote.label, remote.source, settings, offline_ok)
    return pin


def _ready(settings: Settings, pin: Pin, pin_set: str, remote: Remote) -> Checkout | None:
    """The finished checkout of `pin`, if there is one (None: check it out). One whose git link is broken (its
    repository was removed under it) is checked out again; one whose files are not the commit's is an error naming
    the repair."""
    path = checkout_path(settings, pin)
    if _done_marker(path).exists() and path.is_dir():
        found = checkouts.damage(path, pin.commit)
        if found.unreadable:
            return None
        if found:
            raise SourceError(
                f"the checkout {path} {found.describe(pin.commit)}; run "
                f"`{checkouts.repair_command(pin.framework, pin_set)}` to put the commit's files back"
            )
        return Checkout(pin, pin_set, path, remote.source, fetched=False)
    return None


def sync_pin(manifest: Manifest, pin_set: str, settings: Settings, progress=None, repair: bool = False) -> Checkout:
    """Bring one pin set's commit into the cache. Nothing to do costs no lock (a read-only cache works); work is
    done holding the cache's lock (atlas.locks), and looked for again once it is held. `repair` mends only what is
    damaged: the files of the checkout that differ from the commit, else the checkout, else the repository."""
    remote = remote_of(manifest, settings)
    pin = _verified(manifest, pin_set, remote, settings)
    if pin is not None and not repair:
        ready = _ready(settings, pin, pin_set, remote)
        if ready:
            return ready
    with locks.hold(settings.cache, f"syncing {manifest.name}", knob=CACHE_KNOB):
        return _sync_locked(manifest, pin_set, settings, remote, progress, repair)


def _sync_locked(
    manifest: Manifest, pin_set: str, settings: Settings, remote: Remote, progress, repair: bool
) -> Checkout:
    from atlas.sources.manifest import load_manifest

    manifest = load_manifest(manifest.path)  # another process may have locked it meanwhile
    entry = manifest.pin_entry(pin_set)
    pin = _verified(manifest, pin_set, remote, settings)
    repo_dir = _repo_dir(settings, manifest.name)
    if pin is not None and not repair:
        ready = _ready(settings, pin, pin_set, remote)
        if ready:
            return ready
    repo = _repository(repo_dir, remote.url, repair)
    if pin is None:
        commit = gitops.resolve(repo, remote.label, entry["ref"], progress)
        upstream = entry.get("upstream_commit") or ""
        if remote.source == UPSTREAM and upstream and not commit.startswith(upstream):
            raise SourceError(
                f"{manifest.name} {entry['ref']} resolves to {commit[:12]} at {remote.label}, but the "
                f"release was cut from {upstream}; check the manifest {manifest.path}"
            )
        pin = Pin(manifest.name, entry["ref"], commit, manifest.url, upstream)
        pinned = dict(entry.get("locks") or {}, **{remote.source: commit})
        write_pin(manifest, pin_set, entry["ref"], upstream, pinned)
    try:
        return _ensure_checkout(repo, remote, pin, pin_set, settings, progress, repair)
    except SourceError as exc:
        if not repair or "no space left" in str(exc):
            raise
    # what the repository holds cannot be checked out: it is damaged too, and fetched again
    publish.discard(repo_dir)
    repo = gitops.open_cache_repo(repo_dir, remote.url)
    return _ensure_checkout(repo, remote, pin, pin_set, settings, progress, repair)


def _repo_dir(settings: Settings, name: str) -> Path:
    """The cache repository of framework `name`; what stands in the way of its folder is cleared."""
    repo_dir = settings.cache / "repos" / f"{name}.git"
    publish.make_room(repo_dir, settings.cache, is_folder=True)
    return repo_dir


def _repository(repo_dir: Path, url: str, repair: bool) -> git.Repo:
    """The cache repository; with `repair`, one that cannot be opened is replaced by a new one."""
    try:
        return gitops.open_cache_repo(repo_dir, url)
    except SourceError:
        if not repair:
            raise
    publish.discard(repo_dir)
    return gitops.open_cache_repo(repo_dir, url)


def _ensure_checkout(
    repo, remote: Remote, pin: Pin, pin_set: str, settings: Settings, progress, repair: bool = False
) -> Checkout:
    """Fetch the pin's commit if the cache lacks it and check it out read-only; the marker is written last. A
    finished checkout whose files differ from the commit is, with `repair`, mended file by file (its marker removed
    meanwhile: a kill leaves it to be checked out again); otherwise, or when that does not mend it, it is checked
    out again."""
    path = checkout_path(settings, pin)
    marker = _done_marker(path)
    publish.make_room(path.parent, settings.cache, is_folder=True)
    if marker.exists() and path.is_dir():
        found = checkouts.damage(path, pin.commit, refresh=True)
        if not found:
            return Checkout(pin, pin_set, path, remote.source, fetched=False)
        if repair and found.is_patchable:
            publish.discard(marker)
            with contextlib.suppress(git.GitCommandError, OSError):  # else it is checked out again, below
                checkouts.restore(path, found)
            if not checkouts.damage(path, pin.commit):
                _mark_done(settings, marker, pin.commit)
                return Checkout(pin, pin_set, path, remote.source, fetched=True)
    publish.discard(marker)
    if not gitops.has_commit(repo, pin.commit):
        gitops.fetch(repo, pin.commit, progress)
        if not gitops.has_commit(repo, pin.commit):
            raise SourceError(
                f"{remote.label} did not send commit {pin.commit[:12]} of {pin.framework}; "
                "the lock may be stale: run `atlas pin` again"
            )
    _keep(repo, pin.commit)
    gitops.remove_worktree(repo, path)  # a leftover from an interrupted run
    path.parent.mkdir(parents=True, exist_ok=True)
    gitops.add_worktree(repo, path, pin.commit)
    found = checkouts.damage(path, pin.commit, refresh=True)  # its index learns the read-only files' stat data
    if found:
        raise SourceError(
            f"the fresh checkout {path} {found.describe(pin.commit)}; run "
            f"`{checkouts.repair_command(pin.framework, pin_set)}`"
        )
    _mark_done(settings, marker, pin.commit)
    return Checkout(pin, pin_set, path, remote.source, fetched=True)


def _mark_done(settings: Settings, marker: Path, commit: str) -> None:
    """The checkout is whole: its marker, written last."""
    publish.make_room(marker, settings.cache)
    publish.write_text(marker, commit + "\n")


def sync_ref(manifest: Manifest, ref: str, settings: Settings, progress=None) -> Checkout:
    """A checkout of any ref, for `atlas diff`: a pin set's name or ref uses that set (and its lock); anything
    else is resolved at the remote and checked out beside the pins, without touching the manifest."""
    if ref in manifest.pins:
        return sync_pin(manifest, ref, settings, progress)
    for name, entry in manifest.pins.items():
        if entry["ref"] == ref:
            return sync_pin(manifest, name, settings, progress)
    remote = remote_of(manifest, settings)
    with locks.hold(settings.cache, f"checking out {manifest.name} {ref}", knob=CACHE_KNOB):
        repo = gitops.open_cache_repo(_repo_dir(settings, manifest.name), remote.url)
        commit = gitops.resolve(repo, remote.label, ref, progress)
        pin = Pin(manifest.name, ref, commit, manifest.url, manifest.releases.get(ref, ""))
        checkout = _ensure_checkout(repo, remote, pin, ref, settings, progress)
        refs = _synced_refs(settings, manifest.name)
        if refs.get(ref) != commit:
            refs[ref] = commit
            publish.write_text(_refs_file(settings, manifest.name), json.dumps(refs, indent=1, sort_keys=True) + "\n")
    return checkout


def _refs_file(settings: Settings, name: str) -> Path:
    return settings.checkouts / name / "refs.json"


def _synced_refs(settings: Settings, name: str) -> dict[str, str]:
    """Refs outside the pin sets that sync_ref checked out: ref -> commit."""
    try:
        refs = json.loads(_refs_file(settings, name).read_text())
    except (OSError, ValueError):  # none yet, or damaged: such refs are checked out again on demand
        return {}
    if not isinstance(refs, dict):
        return {}
    return {
        ref: commit
        for ref, commit in refs.items()
        if isinstance(commit, str) and len(commit) == 40 and gitops.HEX.match(commit)
    }


def _keep(repo: git.Repo, sha: str) -> None:
    """A ref per pinned commit, so that git never prunes it."""
    repo.git.update_ref(f"refs/atlas/{sha}", sha)


def repin(
    manifest: Manifest,
    pin_set: str,
    ref: str,
    settings: Settings,
    progress=None,
    together: dict[Path, str] | None = None,
) -> Pin:
    """Resolve `ref` at the remote and rewrite the pin set; the new lock replaces the old ones. The manifest and
    the files of `together` (path -> new text: the annotations the move rewrites) are written as one
    (atlas.journal)."""
    remote = remote_of(manifest, settings)
    with locks.hold(settings.cache, f"re-pinning {manifest.name}", knob=CACHE_KNOB):
        repo = gitops.open_cache_repo(_repo_dir(settings, manifest.name), remote.url)
        commit = gitops.resolve(repo, remote.label, ref, progress)
        if not gitops.has_commit(repo, commit):
            gitops.fetch(repo, commit, progress)
        upstream = recorded_upstream_commit(repo, commit, manifest.name) or manifest.releases.get(ref, "")
        text = pin_text(manifest, pin_set, ref, upstream, {remote.source: commit})
        journal.commit(settings.root, {**(together or {}), manifest.path: text})
    return Pin(manifest.name, ref, commit, manifest.url, upstream)


def recorded_upstream_commit(repo: git.Repo, commit: str, name: str) -> str:
    """The commit a release records it was cut from (`<pkg>/_version.py`'s commit id), or ''."""
    for path in (f"{name}/_version.py", f"python/{name}/_version.py"):
        try:
            text = repo.git.show(f"{commit}:{path}")
        except git.GitCommandError:
            continue
        for line in text.splitlines():
            if "commit_id" in line and "=" in line:
                value = line.rsplit("=", 1)[1].strip().strip("'\"")
                if gitops.HEX.match(value) and len(value) >= 7:
                    return value[:9]
    return ""


def locate(manifest: Manifest, pin_set: str, settings: Settings) -> Checkout:
    """The checkout of a pin set that `atlas sync` already made (or of a ref `sync_ref` checked out); never
    fetches."""
    remote = remote_of(manifest, settings)
    if pin_set not in manifest.pins and pin_set in _synced_refs(settings, manifest.name):
        commit = _synced_refs(settings, manifest.name)[pin_set]
        pin = Pin(manifest.name, pin_set, commit, manifest.url, manifest.releases.get(pin_set, ""))
        if is_ready(settings, pin):
            checkouts.verify(manifest.name, pin_set, checkout_path(settings, pin), commit, is_ref=True)
            return Checkout(pin, pin_set, checkout_path(settings, pin), remote.source, fetched=False)
    pin = _verified(manifest, pin_set, remote, settings, offline_ok=True)
    if pin is None or not is_ready(settings, pin):
        other = MIRROR if remote.source == UPSTREAM else UPSTREAM
        synced = manifest.locked_pin(pin_set, other)
        if synced is not None and is_ready(settings, synced):  # synced from the other source: a setting was lost
            fix = (
                "set ATLAS_MIRROR (or --mirror) as when you synced"
                if other == MIRROR
                else f"unset ATLAS_MIRROR (this run reads the mirror {remote.label})"
            )
            raise BuildMissing(
                f"{manifest.name} ({pin_set} pins) was synced from {other}, not {remote.source}: "
                f"{fix}, or run `atlas sync {manifest.name} --pins {pin_set}`"
            )
        raise BuildMissing(
            f"{manifest.name} ({pin_set} pins) is not synced yet; run `atlas sync {manifest.name} "
            f"--pins {pin_set}` first"
        )
    path = checkout_path(settings, pin)
    if not (path / ".git").exists():
        raise BuildMissing(
            f"the checkout {path} of {manifest.name} ({pin_set} pins) was deleted; run `atlas sync "
            f"{manifest.name} --pins {pin_set}` to check it out again"
        )
    checkouts.verify(manifest.name, pin_set, path, pin.commit)
    return Checkout(pin, pin_set, path, remote.source, fetched=False)


def recheck(framework: str, pin_set: str, path: Path, commit: str) -> None:
    """Check once more that a checkout holds its commit unchanged, after a stage has read it and before its results
    are kept: a result made while a file was being edited is never stored under the commit's key."""
    checkouts.verify(framework, pin_set, path, commit, again=True)


def analysed_files(manifest: Manifest, checkout: Checkout, suffixes: tuple[str, ...]) -> list[tuple[str, str]]:
    """(path, git blob id) of every file of the checkout that the manifest's globs select, with one of `suffixes`.
    The blob id is the content hash: per-file caches key on it."""
    out = git.Repo(checkout.path).git.ls_files("-s", "--", *[f"*{s}" for s in suffixes])
    files = []
    for line in out.splitlines():
        meta, _, path = line.partition("\t")
        blob = meta.split()[1]
        if manifest.is_analysed(path):
            files.append((path, blob))
    return files
