"""Call edges recorded inside a running engine (probes.edges): the per-process files of a trace folder merged into one
recording, `edges.json`, with the pin the engine ran at; what `atlas graph verify` holds the static graph to."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from atlas import publish
from atlas.errors import ConfigError

RECORDING_SCHEMA = 1
FIELDS = ("caller_path", "caller", "line", "callee_path", "callee", "callee_line", "count")  # probes.edges's rows
PIN_KEYS = ("framework", "pin_set", "ref", "commit", "engine_version")


@dataclass(frozen=True, slots=True)
class RecordedEdge:
    """One call site seen calling one function: paths relative to the engine package's parent (`vllm/v1/...`),
    qualnames as the interpreter names code (`Scheduler.schedule`, `f.<locals>.g`), `callee_line` its first line
    (the first decorator's when decorated), `count` the calls seen."""

    caller_path: str
    caller: str
    line: int
    callee_path: str
    callee: str
    callee_line: int
    count: int


@dataclass(frozen=True, slots=True)
class Recording:
    framework: str
    pin_set: str
    ref: str
    commit: str
    engine_version: str
    edges: tuple[RecordedEdge, ...]
    num_processes: int
    generators: frozenset[tuple[str, str]]  # (path, qualname) of generator and coroutine code: a call resumes it


def merge(rows_per_process: list[list[list]]) -> list[list]:
    """Rows of several processes as one table: the same edge's counts added, sorted."""
    counts: dict[tuple, int] = {}
    for rows in rows_per_process:
        for *key, count in rows:
            counts[tuple(key)] = counts.get(tuple(key), 0) + count
    return [[*key, n] for key, n in sorted(counts.items())]


def collect(out: Path, spec: dict) -> dict | None:
    """Merge `out/edges/*.json` (one per engine process) into `out/edges.json`; its document, or None when no
    process recorded any."""
    files = sorted((out / "edges").glob("*.json"))
    if not files:
        return None
    docs = [json.loads(f.read_text(encoding="utf-8")) for f in files]
    doc = {
        "schema": RECORDING_SCHEMA,
        "kind": "edges",
        **{k: spec.get(k, "") for k in PIN_KEYS},
        "num_processes": len(docs),
        "fields": list(FIELDS),
        "edges": merge([d["edges"] for d in docs]),
        "generators": sorted({tuple(g) for d in docs for g in d.get("generators", ())}),
    }
    publish.write_text(out / "edges.json", dumps(doc))
    return doc


def dumps(doc: dict) -> str:
    """The recording as JSON with one edge a line: small, and a diff of two recordings reads edge by edge."""
    head = json.dumps({k: v for k, v in doc.items() if k != "edges"}, sort_keys=True)[:-1]
    rows = ",\n".join(json.dumps(row, separators=(",", ":")) for row in doc["edges"])
    return f'{head}, "edges": [\n{rows}\n]}}\n'


def load(path: Path) -> Recording:
    """A recording: an edges.json file, or a trace folder holding one (`atlas trace --edges` writes it)."""
    file = path / "edges.json" if path.is_dir() else path
    if not file.is_file():
        raise ConfigError(f"{path} is not a recording: give an edges.json or the folder `atlas trace --edges` wrote")
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{file} is not JSON ({exc}); give the edges.json `atlas trace --edges` wrote") from None
    if not isinstance(doc, dict) or doc.get("kind") != "edges" or doc.get("schema") != RECORDING_SCHEMA:
        raise ConfigError(
            f"{file} is not an edges recording of schema {RECORDING_SCHEMA}; record one again with "
            "`atlas trace --edges`"
        )
    if tuple(doc.get("fields", ())) != FIELDS:
        raise ConfigError(f"{file}: edge fields {doc.get('fields')} are not {list(FIELDS)}; record it again")
    return Recording(
        *(str(doc.get(k, "")) for k in PIN_KEYS),
        edges=tuple(RecordedEdge(*row) for row in doc["edges"]),
        num_processes=int(doc.get("num_processes", 0)),
        generators=frozenset(tuple(g) for g in doc.get("generators", ())),
    )
