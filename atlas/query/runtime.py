"""Runtime evidence for a symbol: what the probes' traces (results/gpu-*-summary.json, the trace excerpts beside
them, the last local `atlas trace`) say of its hook (how often it fired, how long the hooked calls took, one
example event with the line it came from), and the calls the recordings of the running engine (results/edges/)
saw into and out of it. Only traces and recordings of the same commit as the pin count."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from atlas.graph import Index
from atlas.query.session import Atlas, PinRef

if TYPE_CHECKING:  # atlas.runtime (the engine launcher with it) loads only when runtime evidence is asked for
    from atlas.runtime.recording import Recording


@dataclass(frozen=True, slots=True)
class Evidence:
    source: str  # the results file, in words
    fired: int  # how often the hook fired over the run
    role: str
    num_timed: int  # events with a duration (timeline and trace excerpt)
    median_us: float
    max_us: float
    example: dict  # one event: its values and where it was called from
    example_where: str  # path:line of the example's call site (or the hooked line)


def _events(summary: dict, excerpt: dict | None, symbol: str) -> list[tuple[float, dict, str]]:
    """(duration in us, values, where) of every recorded call of `symbol`."""
    out = []
    for event in summary.get("timeline") or []:
        if event.get("symbol") == symbol and event.get("dur_ms") is not None:
            out.append((float(event["dur_ms"]) * 1000, event.get("values") or {}, event.get("where") or ""))
    for event in (excerpt or {}).get("traceEvents") or []:
        args = event.get("args") or {}
        if event.get("ph") == "X" and args.get("symbol") == symbol:
            values = {k: v for k, v in args.items() if k not in ("symbol", "step", "at_pin", "source", "call_site")}
            out.append((float(event.get("dur") or 0.0), values, args.get("call_site") or ""))
    return out


def evidence_for(framework: str, commit: str, symbol: str, traces: list, excerpts: dict) -> list[Evidence]:
    """What each committed trace of this framework at this commit says about `symbol`'s hook."""
    found = []
    for title, summary in traces:
        if summary.get("framework") != framework or summary.get("commit") != commit:
            continue
        hook = (summary.get("hooks") or {}).get(symbol)
        if not hook:
            continue
        events = _events(summary, excerpts.get(framework), symbol)
        durations = [d for d, _, _ in events]
        example = next(((values, where) for _, values, where in events if values), ({}, ""))
        found.append(
            Evidence(
                title,
                int(hook.get("fired", 0)),
                hook.get("role", ""),
                len(durations),
                round(statistics.median(durations), 1) if durations else 0.0,
                round(max(durations), 1) if durations else 0.0,
                example[0],
                example[1] or f"{hook.get('path', '')}:{hook.get('line', '')}",
            )
        )
    return found


@dataclass(frozen=True, slots=True)
class ObservedCall:
    """A call between two functions a recording saw in the running engine: its site and how often."""

    caller: str
    callee: str
    path: str
    line: int
    count: int


@dataclass(frozen=True, slots=True)
class RuntimeView:
    """Everything the runtime says of one symbol at one pin."""

    pin: PinRef
    symbol: str
    hooks: tuple[Evidence, ...]  # one per trace with a probe on the symbol
    recordings: tuple[str, ...]  # the recordings of this commit that were read
    called_by: tuple[ObservedCall, ...]  # most calls first
    calls: tuple[ObservedCall, ...]

    @property
    def is_empty(self) -> bool:
        return not self.hooks and not self.called_by and not self.calls


def traces(atlas: Atlas) -> tuple[list[tuple[str, dict]], dict[str, dict]]:
    """(title, summary) of every trace there is (the last local `atlas trace`, the committed H200 runs) and
    framework -> the committed Perfetto excerpt; read once per Atlas."""
    cached = atlas.cached("traces")
    if cached is not None:
        return cached
    found: list[tuple[str, dict]] = []
    local = atlas.settings.build / "runtime" / "summary.json"
    if local.is_file():
        found.append(("latest `atlas trace` on this machine", json.loads(local.read_text(encoding="utf-8"))))
    results = Path(atlas.settings.root, "results")
    for path in sorted(results.glob("gpu-*-summary.json")):
        found.append((f"H200 run, committed in results/{path.name}", json.loads(path.read_text(encoding="utf-8"))))
    excerpts = {
        path.name.split("-")[1]: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(results.glob("gpu-*-trace-excerpt.json"))
    }
    return atlas.keep("traces", (found, excerpts))


def recordings(atlas: Atlas, commit: str) -> list[tuple[str, Recording]]:
    """(file name, recording) of the committed call-edge recordings made at `commit`."""
    from atlas.runtime.recording import load as load_recording

    out = []
    for path in sorted(Path(atlas.settings.root, "results", "edges").glob("*.edges.json")):
        head = path.read_text(encoding="utf-8")[:2000]  # the pin keys come first, the edges after
        if commit in head:
            out.append((path.name, atlas.cached(path.name) or atlas.keep(path.name, load_recording(path))))
    return out


def _observed(recording: Recording, index: Index, package_root: str, symbol: str) -> tuple[list, list]:
    """The recorded calls into and out of `symbol`, by the static ids of their ends."""
    from atlas.runtime.verify import callee_id, caller_id, repo_path

    name = symbol.rsplit(".", 1)[-1]
    into, out = [], []
    for edge in recording.edges:
        if not (edge.callee.endswith(name) or name in edge.caller):
            continue
        path = repo_path(edge.caller_path, package_root)
        callee = callee_id(index, edge, repo_path(edge.callee_path, package_root))
        caller = caller_id(index, edge, path)
        if callee == symbol:
            into.append(ObservedCall(caller, callee, path, edge.line, edge.count))
        elif caller == symbol:
            out.append(ObservedCall(caller, callee, path, edge.line, edge.count))
    return into, out


def runtime_of(atlas: Atlas, framework: str, pin_set: str, symbol: str) -> RuntimeView:
    """What the traces and recordings of the pin's commit saw of `symbol`."""
    index = atlas.index(framework, pin_set)
    found, excerpts = traces(atlas)
    hooks = evidence_for(framework, index.pin.commit, symbol, found, excerpts)
    read, into, out = [], [], []
    package_root = atlas.manifest(framework).package_root
    for name, recording in recordings(atlas, index.pin.commit):
        read.append(name)
        a, b = _observed(recording, index, package_root, symbol)
        into += a
        out += b

    def order(c: ObservedCall) -> tuple:
        return (-c.count, c.path, c.line, c.caller, c.callee)

    return RuntimeView(
        PinRef.of(index.pin, pin_set),
        symbol,
        tuple(hooks),
        tuple(read),
        tuple(sorted(into, key=order)),
        tuple(sorted(out, key=order)),
    )
