"""Every knob of atlas in one place: environment variables, their defaults, and the folders derived from them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from atlas.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Settings:
    root: Path  # the project: pinned_sources/, annotations/, site/
    cache: Path  # clones and checkouts (ATLAS_CACHE, else $XDG_CACHE_HOME/atlas)
    mirror: Path | None  # ATLAS_MIRROR: a folder of <name>.git mirrors standing in for upstream
    build: Path  # graphs and per-file caches (ATLAS_BUILD, else <root>/build)

    @property
    def checkouts(self) -> Path:
        return self.cache / "checkouts"


def find_root(start: Path) -> Path:
    for folder in [start, *start.parents]:
        if (folder / "pinned_sources").is_dir():
            return folder
    raise ConfigError(f"no pinned_sources/ folder in {start} or above; run atlas inside the project or pass --root")


def _path(flag: str | None, variable: str, root: Path) -> Path | None:
    """A folder from a flag (relative to the current folder, as the shell completed it) or from an environment
    variable (relative to the project root, as the set-up command's `ATLAS_MIRROR=../shared/sources` is), or None."""
    if flag:
        return Path(flag).expanduser().resolve()
    value = os.environ.get(variable)
    if not value:
        return None
    path = Path(value).expanduser()
    return (path if path.is_absolute() else root / path).resolve()


def settings(
    root: str | None = None, cache: str | None = None, mirror: str | None = None, build: str | None = None
) -> Settings:
    """Settings from flags, falling back to the environment, then to defaults."""
    root_path = (
        Path(root or os.environ.get("ATLAS_ROOT") or "").resolve()
        if (root or os.environ.get("ATLAS_ROOT"))
        else find_root(Path.cwd().resolve())
    )
    xdg = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    cache_path = _path(cache, "ATLAS_CACHE", root_path) or (xdg / "atlas").resolve()
    mirror_path = _path(mirror, "ATLAS_MIRROR", root_path)  # checked where it is used (atlas.sources.sync)
    build_path = _path(build, "ATLAS_BUILD", root_path) or root_path / "build"
    return Settings(root=root_path, cache=cache_path, mirror=mirror_path, build=build_path)


def lock_wait() -> float:
    """ATLAS_LOCK_WAIT: seconds a command waits for another atlas process using the same cache or build folder
    before refusing (default 900; 0 refuses at once)."""
    value = os.environ.get("ATLAS_LOCK_WAIT", "900")
    try:
        return float(value)
    except ValueError:
        raise ConfigError(
            f"ATLAS_LOCK_WAIT={value!r} is not a number of seconds; set it to e.g. 60, or 0 to refuse at once"
        ) from None


def no_fork() -> bool:
    """ATLAS_NO_FORK=1: builds run in this process (no parse workers, the kernel layer after resolution)."""
    return bool(os.environ.get("ATLAS_NO_FORK"))


def engine_python() -> str | None:
    """ATLAS_ENGINE_PYTHON: the interpreter of the engine's own environment, for `atlas trace` (else --python, else
    atlas's own). The engine drivers (atlas/runtime/drivers, standard library only, run inside the engine) read
    ATLAS_TRACE_DIR, ATLAS_MODEL and ATLAS_TURN_DIR themselves: set on the machine that runs the engine."""
    return os.environ.get("ATLAS_ENGINE_PYTHON") or None
