"""Fixture git repositories built in tmp_path: one commit and one tag per folder of files, like griffe's tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

ENV = {
    "GIT_AUTHOR_NAME": "atlas",
    "GIT_AUTHOR_EMAIL": "atlas@example.invalid",
    "GIT_COMMITTER_NAME": "atlas",
    "GIT_COMMITTER_EMAIL": "atlas@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "HOME": "/nonexistent",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str, stdin: bytes | None = None) -> str:
    import os

    out = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **ENV}, input=stdin, capture_output=True, check=True
    )
    return out.stdout.decode().strip()


def make_remote(where: Path, versions: dict[str, dict[str, str]], name: str = "engine") -> Path:
    """A bare repository `<where>/<name>.git` with one commit per version (in order), each tagged with its key."""
    work = where / f"{name}-work"
    work.mkdir(parents=True)
    git(work, "init", "-q", "-b", "main")
    for tag, files in versions.items():
        for old in work.iterdir():
            if old.name != ".git":
                subprocess.run(["rm", "-rf", str(old)], check=True)
        for rel, text in files.items():
            path = work / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        git(work, "add", "-A")
        git(work, "commit", "-q", "-m", f"release {tag}")
        git(work, "tag", tag)
    bare = where / f"{name}.git"
    git(where, "clone", "-q", "--bare", str(work), str(bare))
    return bare


def write_manifest(root: Path, name: str, url: str, ref: str, extra: str = "") -> Path:
    folder = root / "pinned_sources"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(
        f"# fixture manifest\nschema: 1\nname: {name}\nurl: {url}\ninclude: [pkg/**]\n"
        f"exclude: ['**/tests/**']\n{extra}pins:\n  default:\n    ref: {ref}\n"
    )
    return path


def synced_project(tmp_path: Path, monkeypatch, trees: dict[str, dict[str, str]]):
    """A project under tmp_path whose frameworks (name -> files, tag v1) are synced at their default pins from a
    fixture mirror, with the cache, mirror and build folders in tmp_path and the project as the working directory:
    its settings."""
    from atlas.env import settings as load_settings
    from atlas.sources import load_all
    from atlas.sources.sync import sync_pin

    mirror, root = tmp_path / "mirror", tmp_path / "project"
    for name, files in trees.items():
        make_remote(mirror, {"v1": files}, name=name)
        write_manifest(root, name, f"https://example.invalid/{name}", "v1")
    monkeypatch.setenv("ATLAS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ATLAS_MIRROR", str(mirror))
    monkeypatch.setenv("ATLAS_BUILD", str(tmp_path / "build"))
    monkeypatch.chdir(root)
    settings = load_settings()
    for manifest in load_all(settings.root):
        sync_pin(manifest, "default", settings)
    return settings
