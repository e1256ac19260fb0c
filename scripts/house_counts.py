"""Print the house-keeping counts of issue 32 for one or more git refs, each read with `git archive` (not from the
working tree): long lines, unannotated functions per package, history references in code, and dead names.

    .venv/bin/python scripts/house_counts.py [REF ...] [--list] [--repo .]     (default refs: c69028a HEAD)

The rules, per ref:
- long lines: lines over 120 characters (newline excluded) in the .py files under atlas/, probes/, tests/,
  benchmarks/ and scripts/.
- unannotated: per package (each top-level subpackage of atlas/, the modules directly in atlas/ as `atlas (top)`,
  and probes/), the share of functions and methods (nested ones included, lambdas not) that have at least one
  parameter without an annotation. Every parameter counts (positional-only, keyword-only, *args and **kwargs)
  except a first parameter named `self` or `cls`; a function with no other parameter counts as annotated.
- history references: comments and string literals (docstrings included) in atlas/ and probes/ matching
  `issue N`, `(issue`, `session N` or `this session`, case-insensitive; counted once per line.
- dead names: module-level names of atlas/ and probes/ (assignments, functions and classes at the top of a module
  or inside a top-level if/try) whose identifier occurs in no other .py file of the ref and only once in its own
  module (the definition), by whole-word text search. Dunder names, names in an `__all__`, the entry points of
  pyproject.toml and names that occur in the non-Python files under atlas/ (YAML, JSON, templates) or site/
  (templates, JS) are never dead.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import subprocess
import sys
import tarfile
import tempfile
import tokenize
import tomllib
from collections import Counter
from pathlib import Path

LONG_DIRS = ("atlas", "probes", "tests", "benchmarks", "scripts")
CODE_DIRS = ("atlas", "probes")
LIMIT = 120
HISTORY = re.compile(r"\bissues? #?\d+|\(issue\b|\bsessions? #?\d+|\bthis session\b", re.IGNORECASE)
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SIDE_EXTS = {".yaml", ".yml", ".json", ".j2", ".html", ".md", ".js", ".toml", ".txt"}


def extract(repo: Path, ref: str, into: Path) -> None:
    """Write the ref's files under the directories this script reads (and pyproject.toml) into `into`."""
    wanted = {*LONG_DIRS, "site", "pyproject.toml"}
    listed = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "--name-only", ref], check=True, capture_output=True, text=True
    ).stdout.split()
    paths = sorted(wanted & set(listed))
    data = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", ref, "--", *paths], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        members = [m for m in tar.getmembers() if "node_modules" not in m.name]
        tar.extractall(into, members=members, filter="data")


def py_files(root: Path, dirs: tuple[str, ...]) -> list[Path]:
    return sorted(p for d in dirs if (root / d).is_dir() for p in (root / d).rglob("*.py"))


def long_lines(root: Path) -> list[str]:
    out = []
    for path in py_files(root, LONG_DIRS):
        for num, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if len(line) > LIMIT:
                out.append(f"{path.relative_to(root)}:{num}: {len(line)} chars")
    return out


def package_of(rel: Path) -> str:
    if rel.parts[0] == "probes":
        return "probes"
    return f"atlas/{rel.parts[1]}" if len(rel.parts) > 2 else "atlas (top)"


def has_unannotated(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    a = node.args
    positional = [*a.posonlyargs, *a.args]
    if positional and positional[0].arg in ("self", "cls"):
        positional = positional[1:]
    params = [*positional, *a.kwonlyargs, *(p for p in (a.vararg, a.kwarg) if p is not None)]
    return any(p.annotation is None for p in params)


def unannotated(root: Path, trees: dict[Path, ast.Module]) -> dict[str, tuple[int, int, list[str]]]:
    """package -> (functions with an unannotated parameter, all functions, their `path:line name`)."""
    out: dict[str, tuple[int, int, list[str]]] = {}
    for rel, tree in trees.items():
        bad, total, items = out.get(package_of(rel), (0, 0, []))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                total += 1
                if has_unannotated(node):
                    bad += 1
                    items.append(f"{rel}:{node.lineno} {node.name}")
        out[package_of(rel)] = (bad, total, items)
    return dict(sorted(out.items()))


def history_refs(root: Path, texts: dict[Path, str]) -> list[str]:
    out = []
    for rel, text in texts.items():
        lines: set[int] = set()
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
        except (tokenize.TokenError, SyntaxError):
            continue
        for tok in tokens:
            if tok.type in (tokenize.COMMENT, tokenize.STRING):
                for match in HISTORY.finditer(tok.string):
                    lines.add(tok.start[0] + tok.string.count("\n", 0, match.start()))
        source = text.splitlines()
        out.extend(f"{rel}:{n}: {source[n - 1].strip()[:100]}" for n in sorted(lines))
    return out


def module_names(tree: ast.Module) -> list[tuple[str, int]]:
    """(name, line) for each name a module's top level binds by assignment, def or class."""
    out: list[tuple[str, int]] = []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                out.append((node.name, node.lineno))
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    out.extend((n.id, n.lineno) for n in ast.walk(target) if isinstance(n, ast.Name))
            elif isinstance(node, ast.If):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                visit(node.orelse)
                visit(node.finalbody)
                for handler in node.handlers:
                    visit(handler.body)

    visit(tree.body)
    return out


def all_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value is not None:
                names.update(c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant))
    return {n for n in names if isinstance(n, str)}


def entry_points(root: Path) -> set[str]:
    path = root / "pyproject.toml"
    if not path.exists():
        return set()
    project = tomllib.loads(path.read_text()).get("project", {})
    groups = [project.get("scripts", {}), *project.get("entry-points", {}).values()]
    return {value.split(":")[-1].split(".")[0].strip() for group in groups for value in group.values()}


def dead_names(root: Path, trees: dict[Path, ast.Module]) -> list[str]:
    words: dict[Path, Counter[str]] = {}
    for path in root.rglob("*.py"):
        words[path.relative_to(root)] = Counter(WORD.findall(path.read_text(encoding="utf-8", errors="replace")))
    everywhere: Counter[str] = Counter()  # name -> number of .py files it occurs in
    for counts in words.values():
        everywhere.update(counts.keys())
    kept = entry_points(root)
    for tree in trees.values():
        kept |= all_names(tree)
    side = [root / "atlas", root / "site"]
    for base in side:
        for path in base.rglob("*") if base.is_dir() else ():
            if path.suffix in SIDE_EXTS and path.is_file():
                kept.update(WORD.findall(path.read_text(encoding="utf-8", errors="replace")))
    out = []
    for rel, tree in trees.items():
        for name, line in module_names(tree):
            if name.startswith("__") and name.endswith("__") or name in kept:
                continue
            if everywhere[name] == 1 and words[rel][name] == 1:
                out.append(f"{rel}:{line} {name}")
    return out


def measure(repo: Path, ref: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        extract(repo, ref, root)
        texts = {
            p.relative_to(root): p.read_text(encoding="utf-8", errors="replace") for p in py_files(root, CODE_DIRS)
        }
        trees = {}
        for rel, text in texts.items():
            try:
                trees[rel] = ast.parse(text, filename=str(rel))
            except SyntaxError:
                print(f"{ref}: {rel} does not parse; skipped", file=sys.stderr)
        return {
            "long": long_lines(root),
            "unannotated": unannotated(root, trees),
            "history": history_refs(root, texts),
            "dead": dead_names(root, trees),
        }


def report(ref: str, label: str, counts: dict, listing: bool) -> None:
    print(f"== {ref} ({label})")
    print(f"  long lines (> {LIMIT} chars, .py in {', '.join(LONG_DIRS)}): {len(counts['long'])}")
    print("  functions with an unannotated parameter, per package:")
    all_bad = all_total = 0
    for package, (bad, total, _) in counts["unannotated"].items():
        all_bad, all_total = all_bad + bad, all_total + total
        print(f"    {package:<16} {bad:>5} / {total:<5} {100 * bad / max(total, 1):5.1f}%")
    print(f"    {'all':<16} {all_bad:>5} / {all_total:<5} {100 * all_bad / max(all_total, 1):5.1f}%")
    print(f"  history references (atlas/, probes/ comments and strings): {len(counts['history'])}")
    print(f"  dead module-level names (atlas/, probes/): {len(counts['dead'])}")
    if listing:
        for title, items in (("long lines", counts["long"]), ("history", counts["history"]), ("dead", counts["dead"])):
            print(f"  -- {title}")
            for item in items:
                print(f"    {item}")
        print("  -- unannotated")
        for _package, (_, _, items) in counts["unannotated"].items():
            for item in items:
                print(f"    {item}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("refs", nargs="*", default=["c69028a", "HEAD"], help="git refs (default: c69028a HEAD)")
    parser.add_argument("--list", action="store_true", help="list the offending items, not only their counts")
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1], help="the git checkout")
    args = parser.parse_args(argv)
    for ref in args.refs:
        label = subprocess.run(
            ["git", "-C", str(args.repo), "log", "-1", "--format=%h %cs", ref],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        report(ref, label, measure(args.repo, ref), args.list)
    return 0


if __name__ == "__main__":
    sys.exit(main())
