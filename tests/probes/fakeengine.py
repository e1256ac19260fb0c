"""A tiny stand-in engine package written into tmp_path, and a runner that installs the probe in a fresh
interpreter (as the engines' plugin entry points do) and drives it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from probes.guard import blob_id

REPO = Path(__file__).resolve().parents[2]

SCHED = """\
__all__ = ["Scheduler"]


class Scheduler:
    def __init__(self):
        self.steps = 0

    def schedule(self, n):
        self.steps += 1
        return list(range(n))

    def idle(self):
        return None
"""

RUN = """\
from fakeengine.sched import Scheduler


def drive(calls):
    s = Scheduler()
    out = []
    for i in range(calls):
        out.append(s.schedule(i))
    return out
"""


def make_engine(root: Path) -> dict[str, str]:
    """fakeengine/ under root; returns its repository-relative blob ids."""
    pkg = root / "fakeengine"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text('__version__ = "1.2.3+local"\n')
    (pkg / "sched.py").write_text(SCHED)
    (pkg / "run.py").write_text(RUN)
    return {f"fakeengine/{n}": blob_id(str(pkg / n)) for n in ("__init__.py", "sched.py", "run.py")}


def spec(root: Path, out: Path, blobs: dict, captures=(), **flags) -> dict:
    line = SCHED.splitlines().index("    def schedule(self, n):") + 1
    return {
        "framework": "fakeengine",
        "package": "fakeengine",
        "package_root": "",
        "commit": "c0ffee" * 6 + "c0ff",
        "ref": "v1.2.3",
        "engine_version": "1.2.3",
        "out": str(out),
        "blobs": blobs,
        "flush_interval_s": 0.1,
        "hooks": [
            {
                "symbol": "fakeengine.sched.Scheduler.schedule",
                "module": "fakeengine.sched",
                "qualname": "Scheduler.schedule",
                "role": "plan",
                "path": "fakeengine/sched.py",
                "line": line,
                "end_line": line + 2,
                "capture": list(captures),
                **flags,
            }
        ],
    }


def run(root: Path, spec_dict: dict, body: str, wait: bool = True):
    """Run `body` in a fresh interpreter after installing the probe from `spec_dict`."""
    spec_path = root / "spec.json"
    spec_path.write_text(json.dumps(spec_dict))
    script = root / "main.py"
    script.write_text(
        "import fakeengine\nfrom probes.runtime import install_from_env\n"
        "assert install_from_env('fakeengine') is not None\n" + textwrap.dedent(body)
    )
    env = dict(os.environ, ATLAS_PROBES=str(spec_path), PYTHONPATH=f"{REPO}{os.pathsep}{root}")
    env.pop("ATLAS_TRACE_DIR", None)
    if not wait:
        return subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE, text=True)
    return subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60)


def records(out: Path) -> list[dict]:
    """Every record, compact rows expanded as atlas reads them back (atlas.runtime.merge.read_shard)."""
    from atlas.runtime.merge import read_shard, shard_paths

    rows = []
    for shard in shard_paths(out / "shards"):
        rows += read_shard(shard)[0]
    return rows
