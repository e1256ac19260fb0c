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


def settings(root: str | None = None, cache: str | None = None, mirror: str | None = None,
             build: str | None = None) -> Settings:
    """Settings from flags, falling back to the environment, then to defaults."""
    root_path = Path(root or os.environ.get("ATLAS_ROOT") or "").resolve() if (root or os.environ.get("ATLAS_ROOT")) \
        else find_root(Path.cwd().resolve())
    xdg = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    cache_path = Path(cache or os.environ.get("ATLAS_CACHE") or xdg / "atlas").expanduser().resolve()
    mirror_value = mirror or os.environ.get("ATLAS_MIRROR")
    mirror_path = Path(mirror_value).expanduser().resolve() if mirror_value else None
    if mirror_path is not None and not mirror_path.is_dir():
        raise ConfigError(f"mirror folder {mirror_path} does not exist; ATLAS_MIRROR (--mirror) names a folder "
                          "holding <framework>.git repositories")
    build_path = Path(build or os.environ.get("ATLAS_BUILD") or root_path / "build").expanduser().resolve()
    return Settings(root=root_path, cache=cache_path, mirror=mirror_path, build=build_path)


def lock_wait() -> float:
    """ATLAS_LOCK_WAIT: seconds a command waits for another atlas process using the same cache or build folder
    before refusing (default 900; 0 refuses at once)."""
    value = os.environ.get("ATLAS_LOCK_WAIT", "900")
    try:
        return float(value)
    except ValueError:
        raise ConfigError(f"ATLAS_LOCK_WAIT={value!r} is not a number of seconds; set it to e.g. 60, or 0 to refuse "
                          "at once") from None
