"""`atlas explain TRACE_DIR`: the article's section 11 table applied to a trace (atlas.runtime.explain), or with
`--request ID` one request's life in time order. Thin body: load, judge, print."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path

from atlas.cli import output, verb
from atlas.env import Settings
from atlas.errors import ConfigError
from atlas.query.jsonable import to_json as jsonable
from atlas.runtime.explain import Diagnosis, diagnose, load_trace, to_json
from atlas.runtime.explain.lifecycle import Event, find, lifecycle
from atlas.runtime.kernels.view import KernelView, StepKindKernels


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
        output.data({**to_json(diagnosis), "kernels": jsonable(trace.kernels)})
    else:
        for line in [*table_lines(diagnosis), "", *kernel_lines(trace.kernels)]:
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


def kernel_lines(k: KernelView | None) -> list[str]:
    """The kernels part: per step kind and launch the GPU time per step, the tree / library / unknown split, the top
    kernels with their node's file:line or library, the names left unknown; the graphs and the capture's cost."""
    if k is None:
        return ["kernels: none recorded (run atlas trace --kernels)"]
    out = [
        f"kernels ({'joined again from the kernel records' if k.source != 'summary' else 'as the summary kept them'}): "
        f"{k.gpu_ms} ms GPU, {k.num_kernels} kernels in {k.num_windows} windows over {k.num_steps_profiled} steps; "
        f"attributed {_pct(k.attributed)}"
    ]
    for s in k.kinds:
        out += _kind_lines(s)
    if k.source == "summary":
        out.append("  per-step GPU time and top kernels: not in a summary (explain the trace folder, with its shards)")
    out += [
        f"  unattributed: {u.name[:90]} {u.gpu_us} us" + (f" (now joined: {u.joined_now})" if u.joined_now else "")
        for u in k.unattributed[:5]
    ]
    if k.graphs:
        graphs = ", ".join(
            f"{g.graph} {g.num_nodes} nodes ({g.num_attributed} attributed) x{g.num_replays}" for g in k.graphs
        )
        out.append(f"  CUDA graphs (nodes, replays): {graphs}")
    c = k.cost
    out.append(
        f"  capture cost per step: execute {_us(c.execute_us_added_per_step, sign=True)} (median "
        f"{_us(c.execute_us_in_windows)} in windows vs {_us(c.execute_us_outside)} outside); reading the windows "
        f"{_us(c.read_us_per_profiled_step)} per profiled step (flusher thread)"
    )
    return out


def _kind_lines(s: StepKindKernels) -> list[str]:
    modes = f" ({', '.join(s.batch_modes)})" if s.batch_modes else ""
    timed = f"{s.num_steps} steps, median {_us(s.gpu_us_per_step)} GPU per step, " if s.num_steps else ""
    total = f"{s.gpu_ms} ms; " if s.gpu_ms is not None else ""
    out = [
        f"  {s.kind} {s.launch}{modes}: {timed}{total}tree {_pct(s.tree)}, library {_pct(s.library)}, unknown "
        f"{_pct(s.unknown)}"
    ]
    for r in s.top:
        what = f"{r.label}  {r.where}" if r.where else r.label
        out.append(f"    {100 * r.share:5.1f}%  {r.gpu_ms:>9.3f} ms  {r.name[:60]}  [{what}]")
    out += [f"    unattributed: {u.name[:90]} {u.gpu_us} us" for u in s.unattributed[:5]]
    return out


def _pct(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.2f}%"


def _us(value: float | None, sign: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+} us" if sign else f"{value} us"


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
