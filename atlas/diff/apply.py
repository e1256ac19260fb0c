"""`atlas diff --apply-suggestions`: rewrite the `symbol:` of each drifted annotation in its YAML file, touching
only that value on that line, so comments, quoting and layout stay exactly as written."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from atlas import yamlio
from atlas.diff.annotations import AnnotationStatus, Status
from atlas.errors import ConfigError


def apply_suggestions(root: Path, statuses: list[AnnotationStatus]) -> list[AnnotationStatus]:
    """Rewrite drifted anchors in place; returns the ones applied."""
    by_file: dict[str, list[AnnotationStatus]] = defaultdict(list)
    for status in statuses:
        if status.status is Status.DRIFTED and status.proposed:
            by_file[status.file].append(status)
    applied = []
    for rel, group in sorted(by_file.items()):
        path = root / rel
        data = yamlio.load(path)
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        entries = {e.get("id"): e for e in (data.get("annotations") or []) if hasattr(e, "get")}
        for status in group:
            entry = entries.get(status.annotation)
            if entry is None or "symbol" not in entry:
                raise ConfigError(f"{path}: annotation {status.annotation} not found; run atlas diff again")
            line = entry.lc.value("symbol")[0]
            if status.symbol not in lines[line]:
                raise ConfigError(f"{path}:{line + 1}: expected {status.symbol} on this line; fix it by hand")
            lines[line] = lines[line].replace(status.symbol, status.proposed, 1)
            applied.append(status)
        yamlio.write_atomic(path, "".join(lines))
    return applied
