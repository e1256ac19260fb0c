"""A small real-shaped atlas project for the fault suite, built in tmp_path: fixture engines in a mirror (real git
repositories, two tagged releases each), pin manifests, the project's own site templates, and helpers that drive
the real `atlas` CLI in subprocesses and check the README's promises on what they leave."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from gitfixtures import make_remote, write_manifest

REPO = Path(__file__).resolve().parents[2]
ATLAS = [sys.executable, "-m", "atlas"]

ENGINE = {
    "pkg/__init__.py": "",
    "pkg/pool.py": "class BlockPool:\n    def get_new_blocks(self, n):\n        return [n]\n",
    "pkg/kv.py": "from pkg.pool import BlockPool\n\n\nclass KVCacheManager:\n    def __init__(self):\n"
    "        self.pool = BlockPool()\n\n    def allocate_slots(self, n):\n"
    "        return self.pool.get_new_blocks(n)\n",
    "pkg/sched.py": "from pkg.kv import KVCacheManager\n\n\nclass Scheduler:\n    def __init__(self):\n"
    "        self.kv = KVCacheManager()\n\n    def schedule(self):\n"
    "        return self.kv.allocate_slots(1)\n",
}
NEWER = {**ENGINE, "pkg/extra.py": "def helper():\n    return 2\n"}


@dataclass
class Project:
    root: Path
    mirror: Path
    cache: Path
    build: Path
    env: dict

    def atlas(
        self, *args: str, timeout: float = 300, env: dict | None = None, cwd: Path | None = None, **kwargs
    ) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*ATLAS, *args],
            cwd=cwd or self.root,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            **kwargs,
        )

    def start(self, *args: str, env: dict | None = None) -> subprocess.Popen:
        """`atlas ARGS` in the background, in a process group of its own (so a test can signal the group)."""
        return subprocess.Popen(
            [*ATLAS, *args],
            cwd=self.root,
            env={**self.env, **(env or {})},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )


def make_project(tmp: Path, frameworks: tuple[str, ...] = ("vllm", "sglang")) -> Project:
    mirror, root = tmp / "mirror", tmp / "project"
    for name in frameworks:
        make_remote(mirror, {"v1": ENGINE, "v2": NEWER}, name=name)
        path = write_manifest(root, name, f"https://example.invalid/{name}", "v1")
        path.write_text(path.read_text() + "  latest:\n    ref: v2\n")
    for shared in ("site", "mkdocs.yml"):
        (root / shared).symlink_to(REPO / shared)
    (root / "annotations").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATLAS_")}
    env.update(
        ATLAS_CACHE=str(tmp / "cache"),
        ATLAS_MIRROR=str(mirror),
        ATLAS_BUILD=str(tmp / "build"),
        NO_COLOR="1",
        PYTHONPATH=str(REPO),
    )
    return Project(root, mirror, tmp / "cache", tmp / "build", env)


def promise(done: subprocess.CompletedProcess | tuple, codes: tuple[int, ...] = (0,)) -> None:
    """The README's promise on one run: an expected exit code, no traceback, and an error in one line."""
    code, err = (done.returncode, done.stderr) if isinstance(done, subprocess.CompletedProcess) else done
    assert "Traceback" not in err, err
    assert code in codes, f"exit {code}, expected {codes}: {err}"
    if code == 2:
        errors = [line for line in err.splitlines() if line.startswith("atlas") and "error" in line]
        assert len(errors) == 1 and len(err.strip().splitlines()) == 1, err


def kill_after(proc: subprocess.Popen, seconds: float, signum: int, group: bool = False) -> tuple[int, str]:
    time.sleep(seconds)
    if proc.poll() is None:
        if group:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err


def group_alive(pgid: int) -> list[int]:
    """Processes still in the process group `pgid`."""
    out = subprocess.run(["ps", "-eo", "pid=,pgid=,stat="], capture_output=True, text=True).stdout
    return [
        int(pid)
        for pid, group, stat in (line.split()[:3] for line in out.splitlines())
        if int(group) == pgid and not stat.startswith("Z")
    ]


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)
