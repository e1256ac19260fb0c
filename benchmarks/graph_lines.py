"""Issue 18's size target: the graph code (the parse walker, the call resolver, the build) in lines, at two commits,
native code included, with what each part holds. Lines are counted as `wc -l` does, from git (no checkout needed).

Usage: python benchmarks/graph_lines.py [BEFORE [AFTER]]   (defaults: 4b7e6ee, the last commit with the C walker
and the C++ resolver, and HEAD)"""

from __future__ import annotations

import subprocess
import sys

PARTS = {  # part -> path prefixes
    "walker (Python)": ("atlas/parse/python/",),
    "resolver (Python)": ("atlas/graph/resolve/",),
    "build (Python)": (
        "atlas/graph/build.py",
        "atlas/graph/store.py",
        "atlas/graph/parsing.py",
        "atlas/graph/packs.py",
        "atlas/graph/processes.py",
        "atlas/graph/schedule.py",
        "atlas/graph/background.py",
        "atlas/graph/mro.py",
        "scripts/compile.py",
        "setup.py",
    ),
}
NATIVE = (".c", ".h", ".cpp", ".hpp", ".cc")


def files(ref: str) -> list[str]:
    out = subprocess.run(["git", "ls-tree", "-r", "--name-only", ref], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def lines(ref: str, path: str) -> int:
    blob = subprocess.run(["git", "show", f"{ref}:{path}"], capture_output=True, check=True).stdout
    return blob.count(b"\n")


def count(ref: str) -> dict[str, int]:
    table: dict[str, int] = {}
    for path in files(ref):
        for part, prefixes in PARTS.items():
            if path.startswith(prefixes) and (path.endswith(".py") or path.endswith(NATIVE)):
                key = part.replace("(Python)", "(native)") if path.endswith(NATIVE) else part
                table[key] = table.get(key, 0) + lines(ref, path)
    return table


def main() -> int:
    before, after = (sys.argv[1:] + ["4b7e6ee", "HEAD"])[:2] if len(sys.argv) > 1 else ("4b7e6ee", "HEAD")
    a, b = count(before), count(after)
    print(f"{'part':24} {before:>10} {after:>10}")
    for key in sorted(set(a) | set(b)):
        print(f"{key:24} {a.get(key, 0):10} {b.get(key, 0):10}")
    print(
        f"{'total':24} {sum(a.values()):10} {sum(b.values()):10}   "
        f"({'smaller' if sum(b.values()) < sum(a.values()) else 'NOT smaller'}: target met when smaller)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
