"""The call graph of any Python package folder in PyCG's JSON format ({caller: [callee, ...]}), so atlas can be
scored on PyCG's own micro-benchmark. Same parser and resolver as the pinned trees, in PyCG naming mode."""

from __future__ import annotations

from pathlib import Path

from atlas.errors import ConfigError
from atlas.graph.resolve import Solver
from atlas.parse.python import extract, module_name, parser


def package_base(folder: Path) -> Path:
    """The folder modules are named from: a package folder's parent (its `__init__.py` makes it `pkg`, not ''),
    else the folder itself."""
    folder = folder.resolve()
    return folder.parent if (folder / "__init__.py").is_file() else folder


def callgraph(folder: Path, entries: list[str] | None = None, base: Path | None = None) -> dict[str, list[str]]:
    """Every .py file under `folder` is analysed, its modules named from `base` (default: the folder itself, as
    PyCG names them; `package_base(folder)` names a package folder's modules `pkg.x`); `entries` (paths relative
    to the folder or absolute) pick the modules whose reachable functions are listed; default: every module and
    function (a library has no single entry point)."""
    folder = folder.resolve()
    if not folder.is_dir():
        raise ConfigError(f"{folder} is not a folder; give the package folder or the folder holding it")
    base = (base or folder).resolve()
    p = parser()
    facts = []
    for path in sorted(folder.rglob("*.py")):
        rel = path.relative_to(base).as_posix()
        module, is_package = module_name(rel)
        facts.append(extract(path.read_bytes(), rel, module, is_package, p))
    resolution = Solver(facts, pycg=True).solve()
    adjacency: dict[str, set[str]] = {}
    for caller, callee in resolution.edges:
        adjacency.setdefault(caller, set()).add(callee)
    starts = (
        [_entry_module(folder, base, e) for e in entries]
        if entries
        else sorted(s.id for f in facts for s in f.scopes if s.kind != "class")
    )  # a library: every module and function
    reached, todo = set(), list(starts)
    while todo:
        node = todo.pop()
        if node in reached:
            continue
        reached.add(node)
        todo.extend(adjacency.get(node, ()))
    return {n: sorted(adjacency.get(n, ())) for n in sorted(reached)}


def _entry_module(folder: Path, base: Path, entry: str) -> str:
    path = Path(entry)
    if not path.is_absolute():
        path = folder / path if (folder / path).exists() else path.resolve()
    try:
        return module_name(path.resolve().relative_to(base).as_posix())[0]
    except ValueError:
        raise ConfigError(f"entry point {entry} is not inside {folder}; give entries relative to the folder") from None
