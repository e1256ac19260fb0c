"""Pin manifests (`pinned_sources/<framework>.yaml`): upstream URL, named pin sets with their locks, and the
globs of what atlas analyses. Read with line numbers, validated, rewritten with comments kept."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atlas import yamlio
from atlas.errors import ConfigError
from atlas.model import Pin

MIRROR, UPSTREAM = "mirror", "upstream"

_SHA = "^[0-9a-f]{40}$"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["schema", "name", "url", "include", "pins"],
    "properties": {
        "schema": {"const": 1},
        "name": {"type": "string", "pattern": "^[a-z][a-z0-9_-]*$"},
        "url": {"type": "string", "pattern": "^(https?|file|ssh|git)://|^/"},
        "package_root": {"type": "string", "description": "folder holding the top-level Python package"},
        "include": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "exclude": {"type": "array", "items": {"type": "string"}},
        "releases": {
            "type": "object",
            "description": "upstream commit each release was cut from, where the release tree does not record it",
            "additionalProperties": {"type": "string", "pattern": "^[0-9a-f]{7,40}$"},
        },
        "pins": {
            "type": "object",
            "required": ["default"],
            "additionalProperties": {
                "type": "object",
                "additionalProperties": False,
                "required": ["ref"],
                "properties": {
                    "ref": {"type": "string", "minLength": 1},
                    "upstream_commit": {"type": ["string", "null"], "pattern": "^[0-9a-f]{7,40}$"},
                    "locks": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            UPSTREAM: {"type": "string", "pattern": _SHA},
                            MIRROR: {"type": "string", "pattern": _SHA},
                        },
                    },
                },
            },
        },
    },
}


@dataclass(frozen=True, slots=True)
class Manifest:
    path: Path
    name: str
    url: str
    package_root: str  # "" for vllm (vllm/ at the root), "python" for sglang
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    releases: dict[str, str]
    pins: dict[str, dict]  # set name -> {ref, upstream_commit, locks}
    raw: Any  # the round-trip document, for rewriting

    def pin_entry(self, pin_set: str) -> dict:
        if pin_set not in self.pins:
            raise ConfigError(
                f"{self.path}: no pin set {pin_set!r} for {self.name}; choose one of: {', '.join(self.pins)}"
            )
        return self.pins[pin_set]

    def locked_pin(self, pin_set: str, source: str) -> Pin | None:
        """The Pin of a set as locked for `source` (mirror|upstream), or None when not locked yet."""
        entry = self.pin_entry(pin_set)
        commit = (entry.get("locks") or {}).get(source)
        if not commit:
            return None
        return Pin(self.name, entry["ref"], commit, self.url, entry.get("upstream_commit") or "")

    def is_analysed(self, path: str) -> bool:
        """Whether a repository-relative path is inside the include globs and outside the exclude globs."""
        return any(_match(path, g) for g in self.include) and not any(_match(path, g) for g in self.exclude)


def _match(path: str, glob: str) -> bool:
    if glob.endswith("/**"):
        return path.startswith(glob[:-2]) or fnmatch.fnmatchcase(path, glob)
    return fnmatch.fnmatchcase(path, glob)


def load_manifest(path: Path) -> Manifest:
    data = yamlio.load(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1: a pin manifest is a mapping (name, url, include, pins); see pinned_sources/")
    problems = list(yamlio.schema_problems(data, SCHEMA, path))
    if problems:
        raise ConfigError("; ".join(problems))
    return Manifest(
        path=path,
        name=str(data["name"]),
        url=str(data["url"]),
        package_root=str(data.get("package_root") or "").strip("/"),
        include=tuple(data["include"]),
        exclude=tuple(data.get("exclude") or ()),
        releases={str(k): str(v) for k, v in (data.get("releases") or {}).items()},
        pins={str(k): dict(v) for k, v in data["pins"].items()},
        raw=data,
    )


def manifests_dir(root: Path) -> Path:
    return root / "pinned_sources"


def load_all(root: Path, names: list[str] | None = None) -> list[Manifest]:
    folder = manifests_dir(root)
    available = sorted(p.stem for p in folder.glob("*.yaml"))
    if not available:
        raise ConfigError(f"{folder}: no pin manifests (*.yaml) found; run atlas from the project root or pass --root")
    for name in names or []:
        if name not in available:
            raise ConfigError(f"unknown framework {name!r}; choose one of: {', '.join(available)}")
    return [load_manifest(folder / f"{name}.yaml") for name in (names or available)]


def having(root: Path, names: list[str] | None, pin_set: str) -> list[Manifest]:
    """The manifests a verb works on for `--pins pin_set`, the same on every verb: frameworks named explicitly must
    have the set (else a ConfigError naming the choices); with none named, those lacking it are skipped, and a set
    no manifest has is an error."""
    manifests = load_all(root, names)
    if names:
        for manifest in manifests:
            manifest.pin_entry(pin_set)
        return manifests
    chosen = [m for m in manifests if pin_set in m.pins]
    if not chosen:
        sets = sorted({name for m in manifests for name in m.pins})
        raise ConfigError(f"no pin set {pin_set!r} in {manifests_dir(root)}; choose one of: {', '.join(sets)}")
    return chosen


def write_pin(manifest: Manifest, pin_set: str, ref: str, upstream_commit: str, locks: dict[str, str]) -> None:
    """Rewrite one pin set in place (comments and layout kept), atomically. The file is read again first, so a
    lock another process wrote meanwhile is kept (callers hold the cache's lock, atlas.locks)."""
    yamlio.write_atomic(manifest.path, pin_text(manifest, pin_set, ref, upstream_commit, locks))


def pin_text(manifest: Manifest, pin_set: str, ref: str, upstream_commit: str, locks: dict[str, str]) -> str:
    """The manifest's text with one pin set rewritten (comments and layout kept), from the file as it is now."""
    manifest = load_manifest(manifest.path)
    if pin_set not in manifest.raw["pins"]:
        manifest.raw["pins"][pin_set] = {"ref": ref}
    entry = manifest.raw["pins"][pin_set]
    entry["ref"] = ref
    if upstream_commit:
        entry["upstream_commit"] = upstream_commit
    elif "upstream_commit" in entry:
        del entry["upstream_commit"]
    if "locks" not in entry:
        entry["locks"] = {}
    stale = [key for key in entry["locks"] if key not in locks]
    for key in stale:
        del entry["locks"][key]
    for key in (UPSTREAM, MIRROR):
        if key in locks:
            entry["locks"][key] = locks[key]
    return yamlio.dump(manifest.raw)
