"""Version guard: is the running engine the pinned one? Compares the engine's version with the pin's and each
running file's git blob id with the pin's blob id of the same repository path."""

from __future__ import annotations

import hashlib
import os


def blob_id(path: str) -> str:
    """The git blob id of a file: what `git ls-files -s` shows for it at the pin."""
    with open(path, "rb") as f:
        data = f.read()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def base_version(version: str) -> str:
    """'0.32.0+cpu' -> '0.32.0'; 'v0.5.17' -> '0.5.17'."""
    return version.lstrip("v").split("+", 1)[0]


class FileGuard:
    """Maps running files to repository paths and says whether each is the pinned one (cached per file)."""

    def __init__(self, package: str, package_root: str, blobs: dict[str, str]):
        self.marker = os.sep + package + os.sep
        self.prefix = f"{package_root}/" if package_root else ""
        self.blobs = blobs
        self._cache: dict[str, tuple[str, bool]] = {}

    def locate(self, filename: str) -> tuple[str, bool]:
        """(repository-relative path or the filename itself, whether the file is byte-identical to the pin's)."""
        hit = self._cache.get(filename)
        if hit is not None:
            return hit
        at = filename.rfind(self.marker)
        if at < 0:
            result = (filename, False)
        else:
            rel = self.prefix + filename[at + 1 :].replace(os.sep, "/")
            expected = self.blobs.get(rel)
            try:
                result = (rel, expected is not None and blob_id(filename) == expected)
            except OSError:
                result = (rel, False)
        self._cache[filename] = result
        return result
