"""Here, where the pinned trees are: what the GPU machine (no network) needs to run `atlas trace` itself. atlas's
wheel (`pip wheel --no-deps .`, pure Python: ATLAS_MYPYC=0, the device's Python is 3.12), the wheels of the
packages `atlas trace` imports (this venv's versions, for CPython 3.12 manylinux x86_64), and the bundle: one spec
per engine with the built-in hooks resolved at the default pins and the pins' kernel nodes (atlas trace --bundle),
since the device has no checkout. Writes a carried folder for gpu/trace_on_device.py.
usage: python gpu/pack_atlas.py [--out .carry_atlas] [--dry-run]"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# What `atlas trace` imports beyond the standard library and what the GPU image has (torch brings jinja2,
# markupsafe, networkx; transformers brings pyyaml): atlas's dependencies and theirs.
DEPENDENCIES = (
    "gitpython",
    "gitdb",
    "smmap",
    "tree-sitter",
    "tree-sitter-python",
    "tree-sitter-cpp",
    "ruamel.yaml",
    "jsonschema",
    "jsonschema-specifications",
    "referencing",
    "rpds-py",
    "attrs",
    "rich",
    "markdown-it-py",
    "mdurl",
    "pygments",
)
PLATFORM = ("--only-binary=:all:", "--python-version", "3.12", "--implementation", "cp") + tuple(
    arg
    for tag in ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")
    for arg in ("--platform", tag)
)


def commands(out: Path, python: str = sys.executable) -> list[list[str]]:
    """The two pip runs: atlas's own wheel (built in isolation, as scripts/install.sh installs it: the build needs
    setuptools >= 77, newer than a venv may hold), then its dependencies' wheels at this venv's versions."""
    pinned = [f"{name}=={importlib.metadata.version(name)}" for name in DEPENDENCIES]
    wheels = str(out / "wheels")
    return [
        [python, "-m", "pip", "wheel", "--no-deps", "-w", wheels, str(ROOT)],
        [python, "-m", "pip", "download", "--no-deps", *PLATFORM, "-d", wheels, *pinned],
    ]


def write_bundle(out: Path) -> None:
    """bundle/<framework>.spec.json for both engines (default pins, device cuda, built-in hooks, kernel nodes), and
    the pins (bundle/pinned_sources/: the bundle is the project root atlas runs in there, ATLAS_ROOT); the device
    script beside it (the checkout that travels to the device may hold another version of gpu/)."""
    sys.path.insert(0, str(ROOT))  # this checkout's atlas, not another one installed in the venv
    from atlas.env import settings as load_settings
    from atlas.runtime.kernels import capture
    from atlas.runtime.spec import build_spec, write_spec

    settings = load_settings()
    for framework in ("vllm", "sglang"):
        extra = capture.spec_extra(settings, framework, "default")
        spec = build_spec(framework, "default", "cuda", Path("/tmp/trace"), settings, "builtin", extra)
        write_spec(spec, out / "bundle" / capture.BUNDLE_SPEC.format(framework=framework))
        print(f"{framework}: {len(spec['hooks'])} hooks, {len(spec['kernel_nodes'])} kernel nodes")
    shutil.copytree(ROOT / "pinned_sources", out / "bundle" / "pinned_sources", dirs_exist_ok=True)
    shutil.copy2(ROOT / "gpu" / "trace_on_device.py", out / "trace_on_device.py")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=ROOT / ".carry_atlas")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    a = ap.parse_args()
    for command in commands(a.out):
        print(shlex.join(command))
        if not a.dry_run:
            subprocess.run(command, check=True, env={**os.environ, "ATLAS_MYPYC": "0", "PIP_CONSTRAINT": ""})
    if a.dry_run:
        print(f"then: the specs of both engines into {a.out / 'bundle'}")
        return
    write_bundle(a.out)
    size = sum(p.stat().st_size for p in a.out.rglob("*") if p.is_file())
    print(json.dumps({"folder": str(a.out), "bytes": size}))


if __name__ == "__main__":
    main()
