"""probes/ imports only the standard library and itself (the engine and torch are reached lazily through
sys.modules), and never atlas."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PROBES = Path(__file__).resolve().parents[2] / "probes"


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            roots |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_probes_import_only_the_standard_library():
    files = sorted(PROBES.rglob("*.py"))
    assert len(files) >= 10
    for f in files:
        extra = imported_roots(f) - set(sys.stdlib_module_names) - {"probes"}
        assert not extra, f"{f.relative_to(PROBES.parent)} imports {sorted(extra)}"
