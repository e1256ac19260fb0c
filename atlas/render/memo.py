"""The build's memory of its own work. Each unit of the site (a source file's data, a symbol page, a page built by
mkdocs) is kept under a key that digests everything the unit is made from; a rebuild makes only the units whose key
is new and takes the others as they were. A unit made while another is made (a symbol page's call-graph rows) is kept
with it: taking the outer unit keeps the inner ones for the next build. A unit without a key is always made. Pure:
atlas.render.build loads the previous build's memo and stores this one's beside the site."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")
VERSION = "memo 2"  # bump when what a unit holds changes shape
PACKAGES = ("mkdocs", "mkdocs-material", "markdown", "pygments", "jinja2", "markupsafe")


class Memo:
    """Units by key, each with the keys of the units it was made from: `known` from the previous build, `kept` (what
    this build made or reused) for the next one."""

    def __init__(self, known: dict[str, tuple[object, tuple[str, ...]]] | None = None, salt: str | None = None) -> None:
        self.known = known or {}
        self.salt = salt  # the code version (code_version); None: nothing is kept
        self.kept: dict[str, tuple[object, tuple[str, ...]]] = {}
        self.damaged: set[str] = set()  # shards of the stored memo that could not be read: written anew
        self.num_reused = 0
        self.num_made = 0
        self._making: list[list[str]] = []  # per unit being made (innermost last), the keys it got

    def key(self, *parts: object) -> str | None:
        """The key of a unit made from `parts` by this code; None (make it every time) without a salt, or when a
        part is None (an input that cannot be digested, such as an engine without a fingerprint)."""
        if self.salt is None or any(part is None for part in parts):
            return None
        return digest(self.salt, *parts)

    @property
    def is_making(self) -> bool:
        """Whether a unit is being made (what is asked now goes into it)."""
        return bool(self._making)

    def get(self, key: str | None, make: Callable[[], T]) -> T:
        """The unit under `key`: the previous build's, else `make()`'s; kept for the next build either way."""
        if key is None:
            return make()
        if key in self.known:
            value = self.known[key][0]
            self.num_reused += 1
            self._keep(key)
        else:
            self._making.append([])
            try:
                value = make()
            finally:
                uses = tuple(sorted(set(self._making.pop())))  # not the order asked in: the memo's bytes must not vary
            self.num_made += 1
            self.kept[key] = (value, uses)
        if self._making:
            self._making[-1].append(key)
        return value

    def _keep(self, key: str) -> None:
        """A unit of the previous build, and the units it was made from, kept for the next build."""
        todo = [key]
        while todo:
            key = todo.pop()
            if key not in self.kept and key in self.known:
                self.kept[key] = self.known[key]
                todo.extend(self.known[key][1])


def digest(*parts: object) -> str:
    """A key over values whose repr is deterministic (str, numbers, tuples, lists, dicts built in a fixed order,
    frozen dataclasses of those; never sets)."""
    return hashlib.sha256(repr(parts).encode("utf-8", "surrogatepass")).hexdigest()


def code_version(root: Path) -> str:
    """What renders the site: atlas's own code, the site's templates and content, and the versions of the packages
    that turn them into HTML. A unit's key includes it, so a change to any of them remakes every unit."""
    sha = hashlib.sha256(VERSION.encode())
    package = Path(__file__).resolve().parents[1]
    for folder, pattern in ((package, "*.py"), (root / "site" / "templates", "*"), (root / "site" / "data", "*")):
        for path in sorted(folder.rglob(pattern)):
            if path.is_file() and "__pycache__" not in path.parts:
                sha.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    for name in PACKAGES:
        try:
            sha.update(f"{name} {metadata.version(name)}\0".encode())
        except metadata.PackageNotFoundError:
            sha.update(f"{name} -\0".encode())
    return sha.hexdigest()
