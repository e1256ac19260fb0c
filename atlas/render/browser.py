"""The symbol browser's data: a list of the analysed files, one small data file per source file with its symbols
(loaded on demand), and name shards (by the first two characters) for finding any of the ~100k symbols by name."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping

from atlas.model import Symbol


def name_key(name: str) -> str:
    """The shard a name lives in: its first two characters, lower-cased (`_` for anything else)."""
    return "".join(c if c.isalnum() else "_" for c in name[:2].lower()).ljust(2, "_")


def browser_files(
    engine: str, symbols: Mapping[str, Symbol], page_of: Callable[[str], str], file_data: Callable[[str], str]
) -> dict[str, dict]:
    """Data key -> payload: `<engine>/files` (every file, its symbol count and data file), one payload per file,
    and `<engine>/names/<prefix>` shards of (name, id, file index)."""
    by_file: dict[str, list[Symbol]] = defaultdict(list)
    for symbol in symbols.values():
        if symbol.span is not None:
            by_file[symbol.span.path].append(symbol)
    paths = sorted(by_file)
    out: dict[str, dict] = {}
    out[f"{engine}/files"] = {"files": [[p, len(by_file[p]), file_data(p)] for p in paths]}
    shards: dict[str, list] = defaultdict(list)
    for number, path in enumerate(paths):
        rows = []
        for s in sorted(by_file[path], key=lambda s: (s.span.start, s.id)):
            rows.append(
                {
                    "id": s.id,
                    "kind": s.kind.value,
                    "start": s.span.start,
                    "end": s.span.end,
                    "signature": s.signature[:300],
                    "component": s.component,
                    "page": page_of(s.id),
                }
            )
            shards[name_key(s.name)].append([s.name, s.id, number])
        out[f"{engine}/file/{path}"] = {"path": path, "symbols": rows}
    for letter, rows in shards.items():
        out[f"{engine}/names/{letter}"] = {"names": sorted(rows)}
    return out
