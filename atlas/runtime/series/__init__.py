"""Per-step and per-request series of a trace (`series.json` in the trace folder): the engine's scheduler steps and
each request's life as columns of numbers, built from the merged probe events at collect time (`build.py`) and read
by `atlas explain` and the site. Columnar so that a long trace stays small: one list per column, categorical
columns as indexes into a name list, -1 where a value was not recorded. The format is documented field by field
in docs/architecture.md ("Trace series"); SERIES_VERSION changes when a column changes meaning."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from atlas.errors import ConfigError

SERIES_VERSION = 1
FILE = "series.json"
MISSING = -1  # a value the probes did not record (an older probe, a hook not installed, an unmatched step)


@dataclass(frozen=True, slots=True)
class Source:
    """Where a kind of value came from: the hooked symbol and its line at the pin."""

    symbol: str
    path: str
    line: int

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(slots=True)
class Steps:
    """One row per scheduler step (plan), in time order. Times are microseconds from the series' origin."""

    step: list[int] = field(default_factory=list)  # the probe's step number in the scheduler process
    t_us: list[int] = field(default_factory=list)  # the plan's start
    plan_us: list[int] = field(default_factory=list)  # the plan's own duration
    mode: list[int] = field(default_factory=list)  # index into Series.modes (EXTEND, DECODE, MIXED, ...)
    batch: list[int] = field(default_factory=list)  # requests scheduled
    running: list[int] = field(default_factory=list)  # requests running after the plan
    waiting: list[int] = field(default_factory=list)  # requests waiting after the plan
    prefill_tokens: list[int] = field(default_factory=list)  # tokens scheduled for requests still prefilling
    decode_tokens: list[int] = field(default_factory=list)  # tokens scheduled for decoding requests (drafts too)
    kv_new: list[int] = field(default_factory=list)  # KV units handed to requests by this plan
    kv_used: list[int] = field(default_factory=list)  # KV units held by requests after the plan
    kv_committed: list[int] = field(default_factory=list)  # units holding the step's requests' committed tokens
    kv_cached: list[int] = field(default_factory=list)  # units with a prefix-cache identity
    kv_free: list[int] = field(default_factory=list)  # units free (evictable cached ones included, for vLLM)
    prefix_hit: list[int] = field(default_factory=list)  # prompt tokens found in the prefix cache this step
    preempted: list[int] = field(default_factory=list)  # requests preempted (vLLM) or retracted (SGLang)
    graph: list[int] = field(default_factory=list)  # index into Series.graphs (FULL/PIECEWISE/NONE, REPLAY/EAGER)
    bucket: list[int] = field(default_factory=list)  # tokens of the batch as run (the captured graph's size)
    exec_us: list[int] = field(default_factory=list)  # the execute hook's duration (host side)
    gpu_us: list[int] = field(default_factory=list)  # CUDA-event time of the execute call, on sampled steps
    drafted: list[int] = field(default_factory=list)  # draft tokens verified
    accepted: list[int] = field(default_factory=list)  # draft tokens accepted at the commit
    commit_us: list[int] = field(default_factory=list)  # the commit's end: when the step's tokens exist
    ratio_milli: list[int] = field(default_factory=list)  # SGLang's new_token_ratio x 1000 after the plan

    def __len__(self) -> int:
        return len(self.step)


@dataclass(slots=True)
class Requests:
    """One row per request, in arrival order (requests seen only by later events follow)."""

    id: list[str] = field(default_factory=list)
    arrival_us: list[int] = field(default_factory=list)
    prompt_tokens: list[int] = field(default_factory=list)
    prefix_hit: list[int] = field(default_factory=list)  # tokens the prefix-cache lookup found at its first plan
    first_row: list[int] = field(default_factory=list)  # step row of its first schedule
    first_token_us: list[int] = field(default_factory=list)
    finish_us: list[int] = field(default_factory=list)
    output_tokens: list[int] = field(default_factory=list)
    num_chunks: list[int] = field(default_factory=list)  # plans that gave it prefill tokens
    num_preempted: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.id)


@dataclass(slots=True)
class Runs:
    """Run-length rows: request `request` got `value` in each of `count` consecutive step rows from `row`."""

    request: list[int] = field(default_factory=list)
    row: list[int] = field(default_factory=list)
    count: list[int] = field(default_factory=list)
    value: list[int] = field(default_factory=list)
    kind: list[int] = field(default_factory=list)  # schedules: 1 prefill, 0 decode; other tables: 0

    def of(self, request: int) -> list[tuple[int, int, int, int]]:
        """(row, count, value, kind) of one request's runs."""
        return [
            (self.row[i], self.count[i], self.value[i], self.kind[i])
            for i in range(len(self.request))
            if self.request[i] == request
        ]


@dataclass(frozen=True, slots=True)
class Round:
    phase: str
    round: int
    probes: str  # the probe state of the round (on, off, absent, or on with options)
    begin_us: int
    end_us: int


@dataclass(slots=True)
class Series:
    framework: str
    kv_unit: str  # "blocks" (vLLM) or "tokens" (SGLang's token slots)
    block_size: int  # tokens per KV unit (1 for token slots), 0 when not recorded
    kv_total: int  # usable KV units, 0 when not recorded
    origin_ns: int  # monotonic time of t_us = 0
    url: str  # the pin's permalink base: url/blob/ref/
    sources: dict[str, Source]  # value kind (plan, execute, graph, commit, arrival, prefix, preempt, blocks) -> hook
    modes: list[str]
    graphs: list[str]
    steps: Steps
    requests: Requests
    schedules: Runs  # tokens scheduled per step (kind 1: prefill tokens)
    emits: Runs  # tokens emitted at each step's commit
    blocks: Runs  # KV units handed to the request by the step's plan
    preemptions: Runs  # steps that preempted or retracted the request
    rounds: list[Round] = field(default_factory=list)
    version: int = SERIES_VERSION

    def link(self, source: Source) -> str:
        return f"{self.url}{source.path}#L{source.line}" if self.url else ""


_TABLES = {"steps": Steps, "requests": Requests, "schedules": Runs, "emits": Runs, "blocks": Runs, "preemptions": Runs}


def to_json(series: Series) -> dict[str, Any]:
    """The series as the JSON the trace folder holds (columns as lists)."""
    out: dict[str, Any] = {}
    for f in fields(series):
        value = getattr(series, f.name)
        if f.name in _TABLES:
            out[f.name] = {c.name: getattr(value, c.name) for c in fields(value)}
        elif f.name == "sources":
            out[f.name] = {k: {"symbol": s.symbol, "path": s.path, "line": s.line} for k, s in value.items()}
        elif f.name == "rounds":
            out[f.name] = [{g.name: getattr(r, g.name) for g in fields(r)} for r in value]
        else:
            out[f.name] = value
    return out


def from_json(data: dict[str, Any]) -> Series:
    if data.get("version") != SERIES_VERSION:
        raise ConfigError(
            f"series version {data.get('version')} is not {SERIES_VERSION}; rebuild it with "
            "`atlas trace --collect-only --out TRACE_DIR`"
        )
    kwargs: dict[str, Any] = {}
    for f in fields(Series):
        value = data.get(f.name)
        if f.name in _TABLES:
            table = _TABLES[f.name]
            kwargs[f.name] = table(**{c.name: list((value or {}).get(c.name, [])) for c in fields(table)})
        elif f.name == "sources":
            kwargs[f.name] = {k: Source(s["symbol"], s["path"], int(s["line"])) for k, s in (value or {}).items()}
        elif f.name == "rounds":
            kwargs[f.name] = [Round(**r) for r in value or []]
        elif value is not None:
            kwargs[f.name] = value
    return Series(**kwargs)


def write(series: Series, path: Path) -> Path:
    from atlas.publish import write_text

    write_text(path, json.dumps(to_json(series), separators=(",", ":"), sort_keys=True) + "\n")
    return path


def load(folder: Path) -> Series | None:
    """The series of a trace folder; None for a trace recorded before series existed."""
    return load_file(folder / FILE)


def load_file(path: Path) -> Series | None:
    if not path.is_file():
        return None
    try:
        return from_json(json.loads(path.read_text(encoding="utf-8")))
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ConfigError(
            f"{path} cannot be read ({exc}); rebuild it with `atlas trace --collect-only --out TRACE_DIR`"
        ) from None
