"""`atlas explain TRACE_DIR`: the article's section 11 table applied to a trace (atlas.runtime.explain), or with
`--request ID` one request's life in time order. Thin body: load, judge, print."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path

from atlas.cli import output, verb
from atlas.env import Settings
from atlas.errors import ConfigError
from atlas.runtime.explain import Diagnosis, diagnose, load_trace, to_json
from atlas.runtime.explain.lifecycle import Event, find, lifecycle


def register(sub: argparse._SubParsersAction) -> None:
    p = verb(
        sub,
        "explain",
        "read a trace the way the article's section 11 reads results: symptom, hypothesis, evidence, verdict",
        "Apply the article's section 11 table to a trace folder (or a summary file such as "
        "results/gpu-vllm-summary.json): per symptom the next evidence computed from the trace, each figure with the "
        "probe and line it came from, and a verdict on the first hypothesis (supported / not supported / no data). "
        "--request prints one request's life in time order instead (needs the trace's series.json).",
        ("atlas explain trace-out", "atlas explain trace-out --request 3 --format json"),
    )
    p.add_argument(
        "trace", type=Path, metavar="TRACE_DIR", help="a trace folder, or a summary file (results/gpu-*.json)"
    )
    p.add_argument("--request", metavar="ID", help="print this request's life in time order instead (an id or part)")
    p.set_defaults(func=explain)


def explain(args: argparse.Namespace, settings: Settings) -> int:
    output.require(args)
    trace = load_trace(args.trace)
    if args.request:
        if trace.series is None:
            raise ConfigError(
                f"{args.trace} has no series.json (recorded before per-request series existed); rebuild it with "
                f"`atlas trace --collect-only --out {args.trace}` when its shards are there"
            )
        request = find(trace.series, args.request)
        events = lifecycle(trace.series, request)
        rid = trace.series.requests.id[request]
        if args.format == "json":
            output.data({"request": rid, "events": [asdict(e) for e in events]})
        else:
            output.text(f"request {rid}")
            for line in lifecycle_lines(events):
                output.text(line)
        return 0
    diagnosis = diagnose(trace)
    if args.format == "json":
        output.data(to_json(diagnosis))
    else:
        for line in table_lines(diagnosis):
            output.text(line)
    return 0


def table_lines(d: Diagnosis) -> list[str]:
    summary = d.trace.summary
    head = f"{summary.get('engine') or summary.get('framework')} trace {d.trace.title}"
    out = [head + ("" if d.trace.series is not None else " (no per-step series: aggregates only)")]
    for r in d.rows:
        out += ["", f"[{r.verdict.value}] {r.symptom.symptom} (article line {r.symptom.line})"]
        out.append(f"  hypothesis: {r.symptom.hypothesis}; {r.reason}")
        for e in r.evidence:
            value = "-" if e.value is None else e.value
            out.append(f"  {e.metric}: {value}  [{e.source}]")
    return out


def lifecycle_lines(events: list[Event]) -> list[str]:
    """One line per event; a run of decode steps (a one-token schedule, then its commit) is one line."""
    out: list[str] = []
    i = 0
    while i < len(events):
        j = i
        while _decode_pair(events, j) and (j == i or events[j].tokens == events[i].tokens):
            j += 2
        if j - i >= 4:  # two decode steps or more
            out.append(_line(events[i], events[i:j:2]))
            i = j
        else:
            out.append(_line(events[i], [events[i]]))
            i += 1
    return out


def _decode_pair(events: list[Event], at: int) -> bool:
    pair = events[at : at + 2]
    return len(pair) == 2 and pair[0].event == "schedule" and pair[0].kind == "decode" and pair[1].event == "tokens"


def _line(e: Event, span: list[Event]) -> str:
    where = f"  [{e.source}]" if e.source else ""
    step = f" step {e.step}" if e.step >= 0 else ""
    if len(span) > 1:
        last = span[-1]
        kv = f", KV held {last.kv_held} / committed {last.kv_committed}" if last.kv_held >= 0 else ""
        return (
            f"{e.t_ms:>10.3f} ms  {len(span)} decode steps of {e.tokens} token(s), each committed,{step} to "
            f"{last.step} (until {last.t_ms:.3f} ms){kv}{where}"
        )
    detail = {
        "arrival": f"arrival, {e.tokens} prompt tokens",
        "prefix-hit": f"prefix cache found {e.tokens} tokens",
        "schedule": f"scheduled {e.tokens} {e.kind} token(s)",
        "preempt": "preempted (its KV freed, to recompute)",
        "tokens": f"committed {e.tokens} token(s)",
        "first-token": "first token",
        "finish": f"finished, {e.tokens} output tokens",
    }[e.event]
    kv = f", KV held {e.kv_held} / committed {e.kv_committed}" if e.event == "schedule" and e.kv_held >= 0 else ""
    return f"{e.t_ms:>10.3f} ms  {detail}{step}{kv}{where}"
