"""Starting an engine under the probes: the trace folder (checked writable before anything starts), the boot folder
put on the engine's PYTHONPATH (a copy of `probes`, a dist-info declaring both engines' plugin entry points, the
drivers), the environment, and the engine process itself."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from atlas import env, lifetime
from atlas.errors import ConfigError
from atlas.runtime.merge import shard_paths

PROBES = Path(__file__).resolve().parents[2] / "probes"
DRIVERS = Path(__file__).resolve().parent / "drivers"
ENTRY_POINTS = """[vllm.general_plugins]
atlas_probes = probes.vllm_plugin:register

[sglang.srt.plugins]
atlas_probes = probes.sglang_plugin:register
"""


def prepare_out(out: Path) -> Path:
    """Create the trace folder and prove it writable, before any engine starts."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_text("ok")
        probe.unlink()
        (out / "shards").mkdir(exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"trace folder {out} is not writable ({exc.strerror}); pass --out with a folder you can write to"
        ) from None
    for old in shard_paths(out / "shards"):
        old.unlink()
    return out


def make_boot(out: Path) -> Path:
    """out/_boot: what the engine's interpreter needs from atlas, without installing atlas there."""
    boot = out / "_boot"
    shutil.rmtree(boot, ignore_errors=True)
    shutil.copytree(PROBES, boot / "probes", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(DRIVERS, boot / "drivers", ignore=shutil.ignore_patterns("__pycache__"))
    dist = boot / "atlas_probes-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: atlas-probes\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text(ENTRY_POINTS)
    return boot


def engine_env(spec_path: Path, out: Path, boot: Path, probes_on: bool = True) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(boot), env.get("PYTHONPATH", "")) if p)
    env.update(
        {
            "ATLAS_TRACE_DIR": str(out),
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "VLLM_NO_USAGE_STATS": "1",
            "DO_NOT_TRACK": "1",
            "PYTHONUNBUFFERED": "1",
            "TOKENIZERS_PARALLELISM": "false",
        }
    )
    if probes_on:
        env["ATLAS_PROBES"] = str(spec_path)
    else:
        env.pop("ATLAS_PROBES", None)
    return env


def engine_python(flag: str | None) -> str:
    python = flag or env.engine_python() or sys.executable
    if not Path(python).is_file():
        raise ConfigError(
            f"engine interpreter {python} does not exist; pass --python or set ATLAS_ENGINE_PYTHON "
            "(bash scripts/setup_cpu_engine.sh creates one for vLLM on the CPU)"
        )
    return python


def engine_version(python: str, framework: str) -> str:
    """The installed engine's version, read from package metadata (no engine import); '' when not installed."""
    code = (
        "import importlib.metadata as m, sys\n"
        f"names = m.packages_distributions().get({framework!r}, [])\n"
        "print(m.version(names[0]) if names else '')"
    )
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    return done.stdout.strip()


def run_driver(
    python: str,
    framework: str,
    config: dict,
    out: Path,
    boot: Path,
    env: dict,
    timeout_s: float,
    log_name: str = "engine.log",
) -> tuple[int, Path]:
    """Run the framework's driver with `config`; (exit status, log path). Never raises for an engine failure."""
    config_path = out / f"{log_name.rsplit('.', 1)[0]}.config.json"
    config_path.write_text(json.dumps(config), encoding="utf-8")
    log = out / log_name
    with open(log, "w", encoding="utf-8") as f:
        try:
            done = subprocess.run(
                [python, str(boot / "drivers" / f"{framework}_driver.py"), str(config_path)],
                env=env,
                stdout=f,
                stderr=subprocess.STDOUT,
                timeout=timeout_s,
                preexec_fn=lifetime.tie_to_parent,
            )
            return done.returncode, log
        except subprocess.TimeoutExpired:
            return 124, log
