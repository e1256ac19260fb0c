"""Build atlas's native parts in place (atlas.parse.python.compiled): the hot modules compiled with mypyc (the
parser's walker and the call resolver), the walker in C (atlas/parse/python/c -> atlas.parse.python._walk), built
with the tree-sitter runtime and py-tree-sitter's object layouts from the sdist of the installed tree-sitter
(`pip download`), and the call resolver in C++ (atlas/graph/resolve/cpp -> atlas.graph.resolve._solve). The
extension modules land next to their sources (git-ignored) and the editable install picks them
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
    sys.modules[spec.name] = module  # (its dataclasses look themselves up there)
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
    built = mypyc_files() + compiled.WALKER.files() + compiled.SOLVER.files()
    print(f"removed {remove(built)} compiled files", file=sys.stderr)
    return 0


def build_in_place(extensions: list, tmp: Path) -> None:
    """Build `extensions` with setuptools in `tmp` and copy them next to their sources."""
    from setuptools import setup

    os.chdir(tmp)  # away from pyproject.toml: setup() would read it
    lib = tmp / "lib"
    setup(name="atlas-native", ext_modules=extensions,
          script_args=["-q", "build_ext", "--build-temp", str(tmp / "o"), "--build-lib", str(lib)])
    for built in lib.rglob("*.so"):
        shutil.copyfile(built, ROOT / built.relative_to(lib))


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
        import setuptools  # noqa: F401 - build_in_place's
    except ImportError as exc:
        print(f"not compiled ({exc.name} is missing: pip install -e '.[compile]'); atlas runs its sources",
              file=sys.stderr)
        return 1
    remove(mypyc_files())
    start = time.perf_counter()
    paths = [str(compiled.source_path(m).relative_to(ROOT)) for m in compiled.MODULES]
    with tempfile.TemporaryDirectory(prefix="atlas-mypyc-") as tmp:
        os.chdir(ROOT)
        try:
            extensions = mypycify(["--follow-imports=silent", "--ignore-missing-imports", *paths],
                                  opt_level=os.environ.get("ATLAS_MYPYC_OPT", "3"), target_dir=str(Path(tmp, "c")),
                                  group_name=compiled.GROUP)
            build_in_place(extensions, Path(tmp))
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


def is_built(native, expect: dict[str, str]) -> bool:
    """Whether a C/C++ extension is there and was built from its sources as they are (and with `expect`)."""
    for path in native.files():
        spec = importlib.util.spec_from_file_location(native.module, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        expect = {"SOURCE_HASH": native.source_hash(), **expect}
        return all(getattr(module, key, None) == value for key, value in expect.items())
    return False


def build_native(native, what: str, force: bool, extension_args: dict, expect: dict[str, str],
                 sources=lambda tmp: {}) -> int:
    """Build one C/C++ extension in place; `sources(tmp)` adds sources fetched into a temporary folder."""
    if not force and is_built(native, expect):
        print(f"{what} is up to date", file=sys.stderr)
        return 0
    for f in native.files():
        f.unlink()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="atlas-native-") as tmp:
        try:
            from setuptools import Extension

            extra, args = sources(Path(tmp)), dict(extension_args)
            # the headers are only hashed
            compiled_sources = [str(p) for p in native.source_files() if p.suffix in (".c", ".cpp")]
            extension = Extension(native.module, sources=[*compiled_sources, *extra.get("sources", ())],
                                  include_dirs=[*args.pop("include_dirs", ()), *extra.get("include_dirs", ())],
                                  define_macros=[("ATLAS_SOURCE_HASH", native.source_hash()),
                                                 *args.pop("define_macros", ()), *extra.get("define_macros", ())],
                                  **args)
            build_in_place([extension], Path(tmp))
        except (SystemExit, Exception) as exc:  # noqa: BLE001 - any failure leaves the Python code in use
            for f in native.files():
                f.unlink()
            detail = getattr(exc, "stderr", "") or str(exc)
            print(f"{what} not built ({type(exc).__name__}: {detail.strip()[:300]}); atlas runs its Python source",
                  file=sys.stderr)
            return 1
        finally:
            os.chdir(ROOT)
    print(f"built {what} in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 0


def tree_sitter_sources(version: str, into: Path) -> dict:
    """The tree-sitter runtime (core/lib) and py-tree-sitter's object layouts (binding/types.h) of tree-sitter
    `version`, from its sdist, downloaded with pip and unpacked under `into`."""
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                    f"tree-sitter=={version}", "-d", str(into)], check=True, capture_output=True, text=True)
    (archive,) = into.glob("tree_sitter-*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    (ts,) = into.glob("tree_sitter-*/tree_sitter")
    return {"sources": [str(ts / "core/lib/src/lib.c")],
            "include_dirs": [str(ts / "binding"), str(ts / "core/lib/include"), str(ts / "core/lib/src")],
            "define_macros": [("ATLAS_TS_VERSION", version)]}


def build_walker(force: bool = False) -> int:
    """The walker in C, against the tree-sitter installed (its runtime compiled in, py-tree-sitter's Tree layout read
    from the same version's sources)."""
    version = importlib.metadata.version("tree-sitter")
    return build_native(compiled.WALKER, "the C walker", force,
                        {"define_macros": [("_DEFAULT_SOURCE", None)],
                         "include_dirs": [str(compiled.WALKER.source_files()[0].parent)],
                         "extra_compile_args": ["-std=c11", "-O2", "-fvisibility=hidden", "-Wno-unused-parameter"]},
                        {"TREE_SITTER_VERSION": version}, lambda tmp: tree_sitter_sources(version, tmp))


def build_solver(force: bool = False) -> int:
    """The call resolver in C++."""
    return build_native(compiled.SOLVER, "the C++ call resolver", force,
                        {"language": "c++", "include_dirs": [str(compiled.SOLVER.source_files()[0].parent)],
                         "extra_compile_args": ["-std=c++17", "-O2", "-fvisibility=hidden"]}, {})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clean", action="store_true", help="remove the compiled modules (atlas then runs its sources)")
    ap.add_argument("--force", action="store_true", help="compile even when the compiled modules are up to date")
    args = ap.parse_args()
    if args.clean:
        return clean()
    return max(build(args.force), build_walker(args.force), build_solver(args.force))


if __name__ == "__main__":
    sys.exit(main())
