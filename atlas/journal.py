"""Several project files replaced as one (`atlas pin`: the annotation files and the manifest of one pin move; `atlas
diff --apply-suggestions`: the annotation files), through a journal in `<root>/.atlas/`. The new texts are staged
beside their files and synced, the journal is switched from `staging` to `committed` in one rename (the commit
point), then each staged file is renamed over its file and the journal removed. A kill before the switch leaves
the old files; after it, every atlas command finishes the renames before it reads anything (`replay`): the new
files. The journal's folder lock keeps a replay off a write in progress."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from pathlib import Path

from atlas import locks, publish

FOLDER = ".atlas"
JOURNAL = "journal.json"
STAGING, COMMITTED = "staging", "committed"


def commit(root: Path, files: dict[Path, str]) -> None:
    """Replace each file of `files` (path inside `root` -> its new text) as one: a kill at any moment leaves all
    the old texts, or (once the next command has replayed the journal) all the new ones."""
    if not files:
        return
    root = Path(root)
    with locks.hold(root / FOLDER, "writing the annotations and the manifest"):
        _replay_held(root)
        token = f"{os.getpid()}-{secrets.token_hex(4)}"
        pairs = []
        for path in sorted(files):
            target = Path(path).resolve().relative_to(root.resolve())
            pairs.append((target.as_posix(), target.with_name(f".{target.name}.txn-{token}").as_posix()))
        _write(root, STAGING, pairs)
        for (_, staged), path in zip(pairs, sorted(files)):
            publish.write_text(root / staged, files[path])
        _write(root, COMMITTED, pairs)  # the switch: from here on the new texts are the state
        _finish(root, pairs)


def replay(root: Path) -> None:
    """Finish (or undo, before its switch) a write that was interrupted; one stat call when there is none."""
    root = Path(root)
    if not (root / FOLDER / JOURNAL).exists():
        return
    with locks.hold(root / FOLDER, "finishing an interrupted write of the annotations and the manifest"):
        _replay_held(root)


def _replay_held(root: Path) -> None:
    path = root / FOLDER / JOURNAL
    if not (path.exists() or path.is_symlink()):
        return
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        entry = None
    if not _is_journal(entry):
        publish.discard(path)  # not a journal this code wrote: nothing it names is touched
        return
    pairs = entry["files"]
    if entry["state"] == COMMITTED:
        _finish(root, [(target, staged) for target, staged in pairs])
    else:
        for _, staged in pairs:
            (root / staged).unlink(missing_ok=True)
        publish.discard(path)


def _is_journal(entry: object) -> bool:
    """The shape `_write` writes: a state, and (file, staged file) pairs of paths inside the root."""
    return (
        isinstance(entry, dict)
        and entry.get("state") in (STAGING, COMMITTED)
        and isinstance(entry.get("files"), list)
        and all(
            isinstance(pair, list) and len(pair) == 2 and all(_is_inside(p) for p in pair) for pair in entry["files"]
        )
    )


def _is_inside(path: object) -> bool:
    return isinstance(path, str) and bool(path) and not Path(path).is_absolute() and ".." not in Path(path).parts


def _write(root: Path, state: str, pairs: list[tuple[str, str]]) -> None:
    publish.write_text(root / FOLDER / JOURNAL, json.dumps({"state": state, "files": pairs}, indent=1) + "\n")


def _finish(root: Path, pairs: list[tuple[str, str]]) -> None:
    """Rename each staged file that is still there over its file (those renamed before a kill are gone), then
    remove the journal."""
    for target, staged in pairs:
        with contextlib.suppress(FileNotFoundError):
            os.replace(root / staged, root / target)
    for folder in sorted({(root / target).parent for target, _ in pairs}):
        publish.sync_folder(folder)
    (root / FOLDER / JOURNAL).unlink(missing_ok=True)
    publish.sync_folder(root / FOLDER)
