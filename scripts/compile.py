"""Build atlas's native parts in place (atlas.parse.python.compiled): the hot modules compiled with mypyc (the
parser's walker and the call resolver), and the walker in C (atlas/parse/python/walk.c -> atlas.parse.python._walk),
built with the tree-sitter runtime and py-tree-sitter's object layouts from the sdist of the installed tree-sitter
(`pip download`). The extension modules land next to their sources (git-ignored) and the editable install picks them
up. Optional: without them, or when they are older than their sources, atlas runs the Python sources.

Usage: python scripts/compile.py [--clean | --force]
Needs mypy (`pip install -e '.[compile]'`), a C compiler and, for the C walker, PyPI (or pip's cache); exits 1 with a
one-line message per part that failed (the sources are used then)."""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
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


def mypyc_files() -> list[Path]:
    return compiled.compiled_files() + sorted(compiled.GROUP_LIB.parent.glob(f"{compiled.GROUP_LIB.name}*"))


def remove(files: list[Path]) -> int:
    for f in files:
        f.unlink()
    compiled.STAMP.unlink(missing_ok=True)
    return len(files)


def clean() -> int:
    print(f"removed {remove(mypyc_files() + compiled.walker_files())} compiled files", file=sys.stderr)
    return 0


def is_current() -> bool:
    """Whether the mypyc-compiled modules are there and were built from the sources as they are."""
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
    remove(mypyc_files())
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
            remove(mypyc_files())
            print(f"not compiled ({type(exc).__name__}: {str(exc).strip()[:200]}); atlas runs its sources",
                  file=sys.stderr)
            return 1
        finally:
            os.chdir(ROOT)
    compiled.STAMP.write_text(compiled.source_hash() + "\n")
    print(f"compiled {len(paths)} modules with mypyc in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 0


def walker_is_current(version: str) -> bool:
    """Whether the C walker is there and was built from walk.c as it is, for tree-sitter `version`."""
    for path in compiled.walker_files():
        spec = importlib.util.spec_from_file_location(compiled.WALKER, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.SOURCE_HASH == compiled.walker_hash() and module.TREE_SITTER_VERSION == version
    return False


def tree_sitter_sources(version: str, into: Path) -> Path:
    """The `tree_sitter` folder of tree-sitter `version`'s sdist (its runtime in core/lib, py-tree-sitter's binding),
    downloaded with pip and unpacked under `into`."""
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                    f"tree-sitter=={version}", "-d", str(into)], check=True, capture_output=True, text=True)
    (archive,) = into.glob("tree_sitter-*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    (folder,) = into.glob("tree_sitter-*/tree_sitter")
    return folder


def build_walker(force: bool = False) -> int:
    """The C walker, against the tree-sitter installed (its runtime compiled in, py-tree-sitter's Tree layout read
    from the same version's sources)."""
    version = importlib.metadata.version("tree-sitter")
    if not force and walker_is_current(version):
        print("C walker is up to date", file=sys.stderr)
        return 0
    for f in compiled.walker_files():
        f.unlink()  # (not remove(): that takes the mypyc stamp too)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="atlas-walk-") as tmp:
        try:
            from setuptools import Extension, setup

            ts = tree_sitter_sources(version, Path(tmp))
            extension = Extension(
                compiled.WALKER, sources=[str(compiled.WALKER_SOURCE), str(ts / "core/lib/src/lib.c")],
                include_dirs=[str(ts / "binding"), str(ts / "core/lib/include"), str(ts / "core/lib/src")],
                define_macros=[("_DEFAULT_SOURCE", None), ("ATLAS_TS_VERSION", version),
                               ("ATLAS_SOURCE_HASH", compiled.walker_hash())],
                extra_compile_args=["-std=c11", "-O2", "-fvisibility=hidden", "-Wno-unused-parameter"])
            os.chdir(tmp)  # away from pyproject.toml: setup() would read it
            lib = Path(tmp, "lib")
            setup(name="atlas-walk", ext_modules=[extension],
                  script_args=["-q", "build_ext", "--build-temp", str(Path(tmp, "o")), "--build-lib", str(lib)])
            for built in lib.rglob("_walk*.so"):
                shutil.copyfile(built, compiled.WALKER_SOURCE.with_name(built.name))
        except (SystemExit, Exception) as exc:  # noqa: BLE001 - any failure leaves the Python walker in use
            for f in compiled.walker_files():
                f.unlink()
            detail = getattr(exc, "stderr", "") or str(exc)
            print(f"C walker not built ({type(exc).__name__}: {detail.strip()[:300]}); atlas runs the Python walker",
                  file=sys.stderr)
            return 1
        finally:
            os.chdir(ROOT)
    print(f"built the C walker for tree-sitter {version} in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clean", action="store_true", help="remove the compiled modules (atlas then runs its sources)")
    ap.add_argument("--force", action="store_true", help="compile even when the compiled modules are up to date")
    args = ap.parse_args()
    if args.clean:
        return clean()
    return max(build(args.force), build_walker(args.force))


if __name__ == "__main__":
    sys.exit(main())
