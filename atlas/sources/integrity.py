"""Locks checked against their refs: a pin set's lock (mirror or upstream) must be the commit its ref names at that
source. Checked once per (source, ref, commit) and remembered in `<cache>/verified/<name>.json`, so later runs cost a
file read; a lock that names another commit is an error saying which ref, which commit and how to re-lock."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import git

from atlas import publish
from atlas.env import Settings
from atlas.errors import SourceError
from atlas.model import Pin
from atlas.sources import gitops
from atlas.sources.manifest import Manifest


class Unreachable(SourceError):
    """The remote could not be asked what a ref names."""


def _record(settings: Settings, name: str) -> Path:
    return settings.cache / "verified" / f"{name}.json"


def _read(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):  # none yet, or damaged: verify again
        return {}


def verify_lock(
    manifest: Manifest,
    pin_set: str,
    pin: Pin,
    url: str,
    label: str,
    source: str,
    settings: Settings,
    offline_ok: bool = False,
) -> None:
    """Raise SourceError unless `pin.ref` names `pin.commit` at the remote `url` (shown as `label`). With
    `offline_ok` (read-only verbs over a checkout sync made), an unreachable remote leaves the check to the next
    sync instead of failing."""
    key = f"{source} {label} {pin.ref}"
    path = _record(settings, manifest.name)
    known = _read(path)
    if known.get(key) == pin.commit:
        return
    try:
        actual = resolve_at(url, label, pin.ref)
    except Unreachable:
        if offline_ok:
            return
        raise
    if actual is None:  # an abbreviated commit no ref names: the lock must extend it
        actual = pin.commit if pin.commit.startswith(pin.ref) else ""
    if actual != pin.commit:
        named = f"names {actual[:12]}" if actual else "is not a commit the lock extends"
        raise SourceError(
            f"{manifest.path}: the {source} lock of {manifest.name} {pin_set!r} is {pin.commit[:12]}, "
            f"but {pin.ref} {named} at {label}; re-lock with `atlas pin {manifest.name} {pin.ref} "
            f"--pins {pin_set}` (or delete that lock line and run `atlas sync`)"
        )
    known[key] = pin.commit
    with contextlib.suppress(OSError):  # a read-only cache: verified again next time
        publish.make_room(path, settings.cache)
        publish.write_text(path, json.dumps(known, indent=1, sort_keys=True) + "\n")


def resolve_at(url: str, label: str, ref: str) -> str | None:
    """The commit a tag or branch `ref` names at `url`; None when `ref` is a commit (no ref of that name)."""
    try:
        out = git.Git().ls_remote(url)
    except git.GitCommandError as exc:
        raise Unreachable(
            f"cannot reach {label} to check the lock of {ref}: {gitops.first_line(exc)}; check the "
            "network, or set ATLAS_MIRROR=DIR (--mirror DIR) to use a local mirror"
        ) from None
    refs = gitops.parse_refs(out)
    for candidate in (f"refs/tags/{ref}", f"refs/heads/{ref}", ref):
        if candidate in refs:
            return refs[candidate]
    if gitops.HEX.match(ref):
        return None
    raise SourceError(
        f"{ref!r} is no longer a tag or branch at {label}, so its lock cannot be checked; re-pin with "
        f"`atlas pin FRAMEWORK REF`"
    )
