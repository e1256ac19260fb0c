"""Every knob of atlas in one place: environment variables, their defaults, and the folders derived from them. Each
is read here, checked when the command starts (`check_knobs`), and a bad value is one error naming the variable."""

from __future__ import annotations

import math
import os
import pwd
from dataclasses import dataclass
from pathlib import Path

from atlas.errors import ConfigError

_TRUE, _FALSE = ("1", "true", "yes", "on"), ("", "0", "false", "no", "off")
CACHE_KNOB, BUILD_KNOB = "--cache (ATLAS_CACHE)", "--build (ATLAS_BUILD)"  # how messages name the folders' settings


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


def _variable(name: str) -> str:
    """An environment variable's value; empty (or only blanks) reads as unset."""
    return os.environ.get(name, "").strip()


def _path(flag: str | None, variable: str, root: Path) -> Path | None:
    """A folder from a flag (relative to the current folder, as the shell completed it) or from an environment
    variable (relative to the project root, as the set-up command's `ATLAS_MIRROR=../shared/sources` is), or None."""
    if flag:
        return Path(flag).expanduser().resolve()
    value = _variable(variable)
    if not value:
        return None
    path = Path(value).expanduser()
    return (path if path.is_absolute() else root / path).resolve()


def cache_home() -> Path:
    """$XDG_CACHE_HOME, else ~/.cache: an empty or relative XDG_CACHE_HOME is ignored (as the XDG spec says), an
    empty HOME is read from the user database."""
    xdg = _variable("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg)
    home = _variable("HOME")
    if not home or not os.path.isabs(home):
        try:
            home = pwd.getpwuid(os.getuid()).pw_dir
        except KeyError:
            home = ""
        home = "" if home == "/" else home  # an account without a home folder: not the file system's root
    if not home or not os.path.isabs(home):
        raise ConfigError(
            "no cache folder: HOME and XDG_CACHE_HOME are unset or empty; set ATLAS_CACHE=DIR (or pass --cache DIR)"
        )
    return Path(home) / ".cache"


def settings(
    root: str | None = None, cache: str | None = None, mirror: str | None = None, build: str | None = None
) -> Settings:
    """Settings from flags, falling back to the environment, then to defaults; every knob is checked first."""
    check_knobs()
    named_root = root or _variable("ATLAS_ROOT")
    root_path = Path(named_root).expanduser().resolve() if named_root else find_root(Path.cwd().resolve())
    cache_path = _path(cache, "ATLAS_CACHE", root_path) or (cache_home() / "atlas").resolve()
    mirror_path = _path(mirror, "ATLAS_MIRROR", root_path)  # checked where it is used (atlas.sources.sync)
    build_path = _path(build, "ATLAS_BUILD", root_path) or root_path / "build"
    _placeable(cache_path, CACHE_KNOB)
    _placeable(build_path, BUILD_KNOB)
    return Settings(root=root_path, cache=cache_path, mirror=mirror_path, build=build_path)


def _placeable(folder: Path, knob: str) -> None:
    """Refuse a folder that cannot be one: the path, or a folder above it, is a file."""
    for path in [folder, *folder.parents]:
        if path.exists():
            if not path.is_dir():
                where = "is a file" if path == folder else f"is under {path}, which is a file"
                raise ConfigError(f"{folder} {where}, not a folder; point {knob} at a folder")
            return


def check_knobs() -> None:
    """Read every setting once, so that a bad value is refused when the command starts, not when it is first used."""
    lock_wait()
    no_fork()
    source_date_epoch()
    kernel_windows()


def lock_wait() -> float:
    """ATLAS_LOCK_WAIT: seconds a command waits for another atlas process using the same cache or build folder
    before refusing (default 900; 0 refuses at once)."""
    value = _variable("ATLAS_LOCK_WAIT")
    if not value:
        return 900.0
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0:
        raise ConfigError(
            f"ATLAS_LOCK_WAIT={value!r} is not a number of seconds; set it to e.g. 60, or 0 to refuse at once"
        )
    return seconds


def no_fork() -> bool:
    """ATLAS_NO_FORK=1: builds run in this process (no parse workers, the kernel layer after resolution)."""
    value = _variable("ATLAS_NO_FORK").lower()
    if value not in _TRUE + _FALSE:
        raise ConfigError(f"ATLAS_NO_FORK={value!r} is neither on nor off; set it to 1, or 0 (or unset it)")
    return value in _TRUE


def source_date_epoch() -> str | None:
    """SOURCE_DATE_EPOCH: the date the site shows (seconds since 1970), for reproducible builds; else the project's
    last commit."""
    value = _variable("SOURCE_DATE_EPOCH")
    if value and not value.isdigit():
        raise ConfigError(
            f"SOURCE_DATE_EPOCH={value!r} is not a number of seconds since 1970; set it to e.g. 1767225600, or unset it"
        )
    return value or None


def kernel_windows() -> tuple[float, float] | None:
    """ATLAS_KERNEL_WINDOWS=EVERY_S,WINDOW_S: how often `atlas trace --kernels` opens a profiling window and how long
    it stays open (default 2,0.25: ~12% of a steady run's steps profiled); e.g. 0.5,0.5 profiles about half the steps
    of a short workload, at more cost. None when unset."""
    value = _variable("ATLAS_KERNEL_WINDOWS")
    if not value:
        return None
    try:
        every, window = (float(x) for x in value.split(","))
    except ValueError:
        every = window = math.nan
    if not (math.isfinite(every) and math.isfinite(window) and every > 0 and window > 0):
        raise ConfigError(
            f"ATLAS_KERNEL_WINDOWS={value!r} is not two positive numbers of seconds; set it to EVERY_S,WINDOW_S, "
            "e.g. 2,0.25 (the default), or unset it"
        )
    return every, window


def engine_python() -> str | None:
    """ATLAS_ENGINE_PYTHON: the interpreter of the engine's own environment, for `atlas trace` (else --python, else
    atlas's own). The engine drivers (atlas/runtime/drivers, standard library only, run inside the engine) read
    ATLAS_TRACE_DIR, ATLAS_MODEL and ATLAS_TURN_DIR themselves: set on the machine that runs the engine."""
    return _variable("ATLAS_ENGINE_PYTHON") or None
