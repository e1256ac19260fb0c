"""Paths and the modules they are: the one place a repository path becomes a dotted module id."""

from __future__ import annotations


def module_name(path: str, package_root: str = "") -> tuple[str, bool]:
    """(dotted module id, is_package) of a repository-relative .py path; `package_root` is stripped first
    (`python/sglang/srt/managers/__init__.py` under `python` -> ("sglang.srt.managers", True))."""
    rel = path[len(package_root) + 1 :] if package_root and path.startswith(package_root + "/") else path
    parts = rel[:-3].split("/") if rel.endswith(".py") else rel.split("/")
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False
