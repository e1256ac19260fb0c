"""Compile atlas's hot modules (atlas.parse.python.compiled.MODULES: the parser's walker and the call resolver) with
mypyc, in place: the extension modules land next to their .py files (git-ignored) and the editable install picks
them up. Optional: without them, or when they are older than their sources, atlas runs the sources.

Usage: python scripts/compile.py [--clean | --force]
Needs mypy (`pip install -e '.[compile]'`) and a C compiler; exits 1 with a one-line message when compiling fails
(the sources are used then)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load_compiled_module():
    """atlas/parse/python/compiled.py of this checkout, loaded by path: importing its package would load the
    modules this script compiles (and atlas's dependencies)."""
    spec = importlib.util.spec_from_file_location("atlas_compiled_list", ROOT / "atlas/parse/python/compiled.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compiled = _load_compiled_module()


def clean() -> int:
    files = compiled.compiled_files() + sorted(compiled.GROUP_LIB.parent.glob(f"{compiled.GROUP_LIB.name}*"))
    for f in files:
        f.unlink()
    compiled.STAMP.unlink(missing_ok=True)
    print(f"removed {len(files)} compiled files", file=sys.stderr)
    return 0


def is_current() -> bool:
    """Whether the compiled modules are there and were built from the sources as they are."""
    return (len(compiled.compiled_files()) == len(compiled.MODULES) and compiled.STAMP.exists()
            and compiled.STAMP.read_text().strip() == compiled.source_hash())


def build(force: bool = False) -> int:
    if not force and is_current():
        print("compiled modules are up to date", file=sys.stderr)
        return 0
    try:
        from mypyc.build import mypycify
        from setuptools import setup
    except ImportError as exc:
        print(f"not compiled ({exc.name} is missing: pip install -e '.[compile]'); atlas runs its sources",
              file=sys.stderr)
        return 1
    clean()
    start = time.perf_counter()
    paths = [str(compiled.source_path(m).relative_to(ROOT)) for m in compiled.MODULES]
    with tempfile.TemporaryDirectory(prefix="atlas-mypyc-") as tmp:
        lib = Path(tmp, "lib")
        os.chdir(ROOT)
        try:
            extensions = mypycify(["--follow-imports=silent", "--ignore-missing-imports", *paths],
                                  opt_level=os.environ.get("ATLAS_MYPYC_OPT", "3"), target_dir=str(Path(tmp, "c")),
                                  group_name=compiled.GROUP)
            os.chdir(tmp)  # away from pyproject.toml: setup() would read it
            setup(name="atlas-native", ext_modules=extensions,
                  script_args=["-q", "build_ext", "--build-temp", str(Path(tmp, "o")), "--build-lib", str(lib)])
            for built in lib.rglob("*.so"):
                shutil.copyfile(built, ROOT / built.relative_to(lib))
        except (SystemExit, Exception) as exc:  # noqa: BLE001 - any failure leaves the sources in use
            clean()
            print(f"not compiled ({type(exc).__name__}: {str(exc).strip()[:200]}); atlas runs its sources",
                  file=sys.stderr)
            return 1
        finally:
            os.chdir(ROOT)
    compiled.STAMP.write_text(compiled.source_hash() + "\n")
    print(f"compiled {len(paths)} modules with mypyc in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clean", action="store_true", help="remove the compiled modules (atlas then runs its sources)")
    ap.add_argument("--force", action="store_true", help="compile even when the compiled modules are up to date")
    args = ap.parse_args()
    return clean() if args.clean else build(args.force)


if __name__ == "__main__":
    sys.exit(main())
