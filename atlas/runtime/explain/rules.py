"""The eight rows of the article's section 11 table as rules: each computes its next evidence from a trace and decides
whether the first hypothesis holds. The thresholds are written beside each rule; a rule without the figures it needs
says "no data" rather than guess (the article: never read an implementation from one aggregate)."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from atlas.runtime.explain import Evidence, Row, Symptom, Trace, Verdict
from atlas.runtime.explain.facts import GRAPH_RUNS, Facts, median, ms, quantile, ratio
from atlas.runtime.series import MISSING
from atlas.runtime.wording import counts_text

GPU_BUSY_LOW = 0.6  # a decode step whose GPU works less than this share of it is launch / CPU bound
LONG_PREFILL = 1024  # tokens of a long prefill step
SHORT_PREFILL = 256
HIT_SHARE = 0.5  # a request whose prefix hit covers this share of its prompt is a hit
STALL_SHARE = 0.5  # chunk steps that stall decodes, for "no interleaving"
WAIT_STEPS = 0.1  # share of steps with requests waiting, for "requests were held back"
KV_FULL = 0.9  # KV usage at which waiting is a capacity limit, not a conservative one
SATURATED_BATCH = 8  # a verify batch this large already fills the GPU (the article: spec pays at small batch)
TAIL = 3.0  # p99 ITL this many times the median is an abnormal tail
EXPLAINED = 0.5  # share of tail gaps a named cause must cover


class _Out:
    """Evidence collected by a rule, with its sources."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.items: list[Evidence] = []
        self.s = trace.series

    def source(self, kind: str) -> str:
        s = self.s.sources.get(kind) if self.s is not None else None
        if s is None:
            return "not recorded"
        return f"{s.symbol.rsplit('.', 2)[-2]}.{s.symbol.rsplit('.', 1)[-1]} ({s.where})"

    def hook(self, *suffixes: str) -> str:
        """A summary figure's source: the hook that recorded it, at its line."""
        for symbol, h in (self.trace.summary.get("hooks") or {}).items():
            if symbol.endswith(suffixes) and h.get("fired"):
                return f"{'.'.join(symbol.rsplit('.', 2)[-2:])} ({h.get('path')}:{h.get('line')}), summary"
        return "summary"

    def add(self, metric: str, value: Any, source: str) -> Any:
        self.items.append(Evidence(metric, value, source))
        return value


def judge(symptom: Symptom, trace: Trace) -> Row:
    out = _Out(trace)
    facts = Facts(trace.series) if trace.series is not None and len(trace.series.steps) else None
    verdict, reason = RULES[symptom.key](out, facts)
    return Row(symptom, tuple(out.items), verdict, reason)


def _graph_short_decode(o: _Out, f: Facts | None) -> tuple[Verdict, str]:
    summary = o.trace.summary
    if f is None:
        graphs = summary.get("cuda_graph") or {}
        o.add("steps by CUDA-graph mode", counts_text(graphs), o.hook("dispatch", "padding", "run_batch"))
        return Verdict.NO_DATA, "the trace has no per-step series: GPU time per decode step is not there to read"
    rows = f.rows("DECODE")
    known = [i for i in rows if f.graph[i]]
    share = o.add(
        "decode steps replayed as a CUDA graph",
        ratio(sum(f.graph[i] in GRAPH_RUNS for i in known), len(known)),
        o.source("graph"),
    )
    step = o.add("median decode step (ms)", ms(median(f.step_us(rows))), o.source("plan"))
    o.add("median scheduler plan time (ms)", ms(median(f.s.steps.plan_us[i] for i in rows)), o.source("plan"))
    gpu = [(f.s.steps.gpu_us[i], f.dt[i]) for i in rows if f.s.steps.gpu_us[i] != MISSING and f.dt[i] != MISSING]
    busy = o.add("GPU busy share of a decode step", ratio(median(g / d for g, d in gpu), 1.0), o.source("execute"))
    if busy is None:
        why = "no GPU time was measured" if summary.get("device") != "cpu" else "a CPU trace has no GPU time"
        return Verdict.NO_DATA, f"{why}: launch overhead cannot be told from compute"
    if busy < GPU_BUSY_LOW:
        graphs = f" ({share:.0%} of them replayed)" if share is not None else ""
        return Verdict.SUPPORTED, f"the GPU is busy {busy:.0%} of a {step} ms decode step{graphs}: the rest is host"
    return Verdict.NOT_SUPPORTED, f"the GPU is busy {busy:.0%} of a decode step: compute, not launches, dominates"


def _graph_long_prefill(o: _Out, f: Facts | None) -> tuple[Verdict, str]:
    if f is None:
        return Verdict.NO_DATA, "the trace has no per-step series: prefill step times are not there to read"
    st = f.s.steps
    timed = [(st.prefill_tokens[i], st.exec_us[i], st.gpu_us[i]) for i in range(f.n) if st.exec_us[i] != MISSING]
    long = [t for t in timed if t[0] >= LONG_PREFILL]
    short = [t for t in timed if 0 < t[0] <= SHORT_PREFILL]
    o.add("largest prefill step (tokens)", max((t[0] for t in timed), default=0), o.source("plan"))
    o.add(f"prefill steps of {LONG_PREFILL}+ tokens", len(long), o.source("plan"))
    long_us = o.add("median execute time, long prefill (ms)", ms(median(t[1] for t in long)), o.source("execute"))
    short_us = o.add(
        f"median execute time, prefill up to {SHORT_PREFILL} tokens (ms)",
        ms(median(t[1] for t in short)),
        o.source("execute"),
    )
    busy = o.add(
        "GPU busy share of a long prefill's execute",
        ratio(median(t[2] / t[1] for t in long if t[2] != MISSING and t[1]), 1.0),
        o.source("execute"),
    )
    if not long:
        return Verdict.NO_DATA, f"no prefill step of {LONG_PREFILL} tokens or more"
    if busy is not None:
        held = busy >= 0.8
        return (Verdict.SUPPORTED if held else Verdict.NOT_SUPPORTED), f"the GPU is busy {busy:.0%} of a long prefill"
    if long_us is None or short_us is None:
        return Verdict.NO_DATA, "no short prefill to compare the long ones with"
    grows = long_us >= 2 * short_us
    return (
        (Verdict.SUPPORTED if grows else Verdict.NOT_SUPPORTED),
        f"a long prefill takes {ratio(long_us, short_us)}x a short one: time "
        + ("grows with the tokens (compute)" if grows else "barely grows (fixed costs)"),
    )


def _prefix_hit_ttft(o: _Out, f: Facts | None) -> tuple[Verdict, str]:
    summary = o.trace.summary
    if f is None:
        o.add("prefix-hit tokens (all requests)", summary.get("prefix_hit_tokens"), o.hook(*_LOOKUPS))
        return Verdict.NO_DATA, "the trace has no per-request series: hits cannot be set against each TTFT"
    r = f.s.requests
    share = [
        r.prefix_hit[i] / r.prompt_tokens[i] if r.prompt_tokens[i] > 0 and r.prefix_hit[i] >= 0 else 0.0
        for i in range(len(r))
    ]
    hits = [i for i in range(len(r)) if share[i] >= HIT_SHARE]
    misses = [i for i in range(len(r)) if share[i] < HIT_SHARE]
    o.add("requests with a prefix hit", len(hits), o.source("prefix"))
    hit_share = o.add(
        "median share of the prompt found cached (hits)", ratio(median(share[i] for i in hits), 1.0), o.source("prefix")
    )
    o.add(
        "median tail tokens computed (hits)",
        median(r.prompt_tokens[i] - r.prefix_hit[i] for i in hits),
        o.source("plan"),
    )
    hit_ttft = o.add("median TTFT, hits (ms)", ms(median(f.ttft_us(hits))), o.source("commit"))
    miss_ttft = o.add("median TTFT, misses (ms)", ms(median(f.ttft_us(misses))), o.source("commit"))
    if f.s.block_size > 1 and hits:
        o.add(
            "hits ending on a block boundary",
            ratio(sum(r.prefix_hit[i] % f.s.block_size == 0 for i in hits), len(hits)),
            o.source("prefix"),
        )
    if not hits or hit_ttft is None or miss_ttft is None or hit_share is None:
        return Verdict.NO_DATA, "no request found most of its prompt cached, or none missed to compare with"
    expected = miss_ttft * (1 - hit_share)
    if hit_ttft >= 2 * expected and hit_ttft >= 0.5 * miss_ttft:
        return (
            Verdict.SUPPORTED,
            f"{hit_share:.0%} of the prompt was cached yet TTFT is {ratio(hit_ttft, miss_ttft)}x a miss's",
        )
    return Verdict.NOT_SUPPORTED, f"TTFT fell with the hits ({hit_ttft} vs {miss_ttft} ms)"


def _concurrency(o: _Out, f: Facts | None) -> tuple[Verdict, str]:
    summary = o.trace.summary
    phases = ((summary.get("throughput") or {}).get("phases")) or {}
    levels = sorted((int(p[1:]), p) for p in phases if p[:1] == "c" and p[1:].isdigit())
    if f is None:
        if len(levels) < 2:
            return Verdict.NO_DATA, "one concurrency level and no per-step series"
        (lo, low), (hi, high) = levels[0], levels[-1]
        tok = [(phases[p].get("median_on") or phases[p].get("median_absent")) for p in (low, high)]
        ttft = [
            median(
                r["ttft_ms"]
                for k, r in (summary.get("requests") or {}).items()
                if k.startswith(f"{p}-r") and r.get("ttft_ms") is not None
            )
            for p in (low, high)
        ]
        itl = [
            median(
                r["itl_ms"]["p50"]
                for k, r in (summary.get("requests") or {}).items()
                if k.startswith(f"{p}-r") and r.get("itl_ms")
            )
            for p in (low, high)
        ]
        src = o.hook("update_from_output", "process_batch_result")
        o.add(f"output tok/s, c{hi} over c{lo}", ratio(tok[1], tok[0]), "driver rounds, summary")
        o.add(f"median TTFT c{lo} / c{hi} (ms)", f"{_num(ttft[0])} / {_num(ttft[1])}", src)
        o.add(f"median ITL c{lo} / c{hi} (ms)", f"{_num(itl[0])} / {_num(itl[1])}", src)
        (t0, t1), (f0, f1), (i0, i1) = tok, ttft, itl
        if t0 is None or t1 is None or f0 is None or f1 is None or i0 is None or i1 is None:
            return Verdict.NO_DATA, "a concurrency level lacks throughput or request times"
        if t1 > t0 and f1 > f0 and i1 > i0:
            return (
                Verdict.SUPPORTED,
                f"c{hi} gives {ratio(tok[1], tok[0])}x the tok/s at {ratio(ttft[1], ttft[0])}x the TTFT and "
                f"{ratio(itl[1], itl[0])}x the ITL (no per-step series to split queue from step time)",
            )
        return (
            Verdict.NOT_SUPPORTED,
            f"from c{lo} to c{hi}: tok/s x{ratio(t1, t0)}, TTFT {_num(f0)} -> {_num(f1)} ms, ITL {_num(i0)} -> "
            f"{_num(i1)} ms: latency did not rise on both counts",
        )
    st = f.s.steps
    decode = f.rows("DECODE")
    sizes = sorted(st.batch[i] for i in decode)
    queue, ttfts = f.queue_us(), f.ttft_us()
    o.add("median queue time, arrival to first plan (ms)", ms(median(queue)), o.source("arrival"))
    o.add("median TTFT (ms)", ms(median(ttfts)), o.source("commit"))
    o.add("median batch size (decode steps)", median(sizes), o.source("plan"))
    lo_cut, hi_cut = quantile(sizes, 0.25), quantile(sizes, 0.75)
    if lo_cut is None or hi_cut is None or lo_cut == hi_cut:
        return Verdict.NO_DATA, "the batch size did not vary: one level of concurrency, nothing to compare"
    small = median(f.step_us(i for i in decode if st.batch[i] <= lo_cut))
    big = median(f.step_us(i for i in decode if st.batch[i] >= hi_cut))
    o.add(
        f"median decode step, batch <= {lo_cut} / >= {hi_cut} (ms)",
        f"{_num(ms(small))} / {_num(ms(big))}",
        o.source("plan"),
    )
    queued = ratio(median(queue), median(ttfts))
    o.add("queue time share of TTFT", queued, o.source("arrival"))
    grows = small is not None and big is not None and big >= 1.1 * small
    if grows or (queued or 0) >= 0.2:
        return (
            Verdict.SUPPORTED,
            f"steps of {hi_cut}+ requests take {ratio(big, small)}x those of {lo_cut} or fewer; queueing is "
            f"{queued} of TTFT",
        )
    return Verdict.NOT_SUPPORTED, "step time stays flat with the batch and requests hardly queue"


def _chunk_p99(o: _Out, f: Facts | None) -> tuple[Verdict, str]:
    summary = o.trace.summary
    if f is None:
        o.add(
            "steps by batch mode",
            counts_text(summary.get("steps_by_batch_mode") or {}),
            o.hook("schedule", "get_next_batch_to_run"),
        )
        return Verdict.NO_DATA, "the trace has no per-step series: decode progress during chunks cannot be read"
    st, r = f.s.steps, f.s.requests
    chunked = [i for i in range(len(r)) if r.num_chunks[i] > 1]
    o.add("requests prefilled in more than one chunk", len(chunked), o.source("plan"))
    o.add("MIXED steps (prefill and decode in one batch)", sum(m == "MIXED" for m in f.mode), o.source("plan"))
    chunked_set = set(chunked)
    chunk_rows = sorted(
        {
            row + k
            for req, row, count, kind in zip(
                f.s.schedules.request, f.s.schedules.row, f.s.schedules.count, f.s.schedules.kind
            )
            if kind == 1 and req in chunked_set
            for k in range(count)
        }
    )
    decoders = f.decoders()
    waiting_decode = [i for i in chunk_rows if decoders[i] > 0]
    stalled = [i for i in waiting_decode if st.decode_tokens[i] == 0]
    share = o.add(
        "chunk steps that gave running decodes no token", ratio(len(stalled), len(waiting_decode)), o.source("plan")
    )
    o.add("longest run of chunk steps without decode", _longest(stalled), o.source("plan"))
    if not chunked or share is None:
        return Verdict.NO_DATA, "no chunked prefill ran beside decoding requests"
    if share >= STALL_SHARE:
        return (
            Verdict.SUPPORTED,
            f"{share:.0%} of chunk steps left the running decodes waiting: chunks do not interleave",
        )
    return Verdict.NOT_SUPPORTED, f"decodes progressed in {1 - share:.0%} of chunk steps: chunks interleave"


def _retraction_zero_ttft(o: _Out, f: Facts | None) -> tuple[Verdict, str]:
    summary = o.trace.summary
    lost = int(summary.get("preempted") or 0) + int(summary.get("retracted") or 0)
    o.add("preemptions and retractions", lost, o.hook("schedule", "retract_decode"))
    if f is None or not f.has(f.s.steps.waiting):
        o.add("median TTFT (ms)", summary.get("ttft_ms_median"), o.hook("update_from_output", "process_batch_result"))
        return Verdict.NO_DATA, "running / waiting and KV usage were not recorded in this trace"
    st = f.s.steps
    waited = [i for i in range(f.n) if st.waiting[i] > 0]
    share = o.add("steps with requests waiting", ratio(len(waited), f.n), o.source("plan"))
    o.add(
        "median requests running / waiting",
        f"{_num(median(st.running))} / {_num(median(st.waiting))}",
        o.source("plan"),
    )
    usage = [st.kv_used[i] / f.s.kv_total for i in waited if st.kv_used[i] != MISSING and f.s.kv_total]
    peak = o.add(
        "peak KV usage while requests waited", ratio(max(usage, default=None), 1.0) if usage else None, o.source("plan")
    )
    o.add("median queue time (ms)", ms(median(f.queue_us())), o.source("arrival"))
    ratios = [v / 1000 for v in st.ratio_milli if v != MISSING]
    if ratios:
        o.add(
            "new_token_ratio (future reservation), min / max",
            f"{min(ratios):.3f} / {max(ratios):.3f}",
            o.source("plan"),
        )
    if lost:
        return (
            Verdict.NOT_SUPPORTED,
            f"{lost} preemptions or retractions: the capacity ran out, admission was not held back",
        )
    if not share or share < WAIT_STEPS:
        return Verdict.NOT_SUPPORTED, "requests were admitted as they came: no queue to explain"
    if peak is not None and peak >= KV_FULL:
        return Verdict.NOT_SUPPORTED, f"requests waited with the KV cache {peak:.0%} full: a capacity limit"
    held = f"{peak:.0%}" if peak is not None else "an unrecorded share"
    return Verdict.SUPPORTED, f"requests waited on {share:.0%} of steps while the KV cache was at most {held} used"


def _spec_no_speedup(o: _Out, f: Facts | None) -> tuple[Verdict, str]:
    summary = o.trace.summary
    if f is None:
        drafted, accepted = summary.get("draft_tokens") or 0, summary.get("accepted_tokens") or 0
        o.add("draft tokens / accepted", f"{drafted} / {accepted}", o.hook("schedule", "get_next_batch_to_run"))
        return Verdict.NO_DATA, "no speculative decoding in this trace" if not drafted else "no per-step series"
    st = f.s.steps
    verify = [i for i in range(f.n) if st.drafted[i] > 0]
    drafted = sum(st.drafted[i] for i in verify)
    accepted = sum(st.accepted[i] for i in verify if st.accepted[i] != MISSING)
    o.add("verify steps", len(verify), o.source("plan"))
    o.add("accept rate", ratio(accepted, drafted), o.source("commit"))
    width = o.add(
        "verify width (draft tokens a request per step)",
        ratio(drafted, sum(st.batch[i] for i in verify)),
        o.source("plan"),
    )
    length = o.add(
        "accept length (tokens a request per step)",
        ratio(accepted + sum(st.batch[i] for i in verify), sum(st.batch[i] for i in verify)),
        o.source("commit"),
    )
    batch = o.add("median batch size of verify steps", median(st.batch[i] for i in verify), o.source("plan"))
    verify_us = median(f.step_us(verify))
    plain_us = median(f.step_us(i for i in f.rows("DECODE") if st.drafted[i] == 0))
    o.add(
        "median verify step / plain decode step (ms)", f"{_num(ms(verify_us))} / {_num(ms(plain_us))}", o.source("plan")
    )
    if not verify:
        return Verdict.NO_DATA, "no speculative decoding in this trace"
    if batch is not None and batch >= SATURATED_BATCH:
        return Verdict.SUPPORTED, f"verify batches of {batch} requests: the baseline batch already fills the GPU"
    if verify_us and plain_us and length and verify_us >= length * plain_us:
        return Verdict.SUPPORTED, f"a verify step costs {ratio(verify_us, plain_us)}x a decode step for {length} tokens"
    return Verdict.NOT_SUPPORTED, f"verify width {width}, accept length {length}: each verify step pays for itself"


def _p99_itl(o: _Out, f: Facts | None) -> tuple[Verdict, str]:
    summary = o.trace.summary
    if f is None:
        rows = [r for r in (summary.get("requests") or {}).values() if r.get("itl_ms")]
        o.add(
            "median of per-request ITL p50 (ms)",
            median(r["itl_ms"]["p50"] for r in rows),
            o.hook("update_from_output", "process_batch_result"),
        )
        o.add(
            "largest per-request ITL (ms)",
            max((r["itl_ms"]["max"] for r in rows), default=None),
            o.hook("update_from_output", "process_batch_result"),
        )
        o.add(
            "mean TPOT (ms)",
            _mean(r.get("tpot_ms") for r in (summary.get("requests") or {}).values()),
            o.hook("update_from_output", "process_batch_result"),
        )
        return (
            Verdict.NO_DATA,
            "without per-step series the tail gaps cannot be set against prefill, retraction or fallback",
        )
    gaps = f.gaps()
    p50, p99 = median(g[0] for g in gaps), quantile((g[0] for g in gaps), 0.99)
    o.add("ITL p50 / p99 (ms)", f"{_num(ms(p50))} / {_num(ms(p99))}", o.source("commit"))
    o.add("mean TPOT (ms)", ms(_mean(f.tpot_us())), o.source("commit"))
    if p50 is None or p99 is None:
        return Verdict.NO_DATA, "no request produced two tokens"
    if p99 < TAIL * p50:
        return Verdict.NOT_SUPPORTED, f"no abnormal tail: p99 ITL is {ratio(p99, p50)}x the median"
    tail = sorted(gaps, reverse=True)[: max(1, len(gaps) // 100)]  # the slowest 1%
    st = f.s.steps
    graphs_used = any(g in GRAPH_RUNS for g in f.graph)
    causes: dict[str, int] = {"prefill in the gap": 0, "preemption or retraction": 0, "eager step (graph fallback)": 0}
    for _, first, last in tail:
        span = range(first, last + 1)
        if any(st.prefill_tokens[i] for i in span):
            causes["prefill in the gap"] += 1
        elif any(st.preempted[i] for i in span):
            causes["preemption or retraction"] += 1
        elif graphs_used and any(f.graph[i] and f.graph[i] not in GRAPH_RUNS for i in span):
            causes["eager step (graph fallback)"] += 1
    for cause, n in causes.items():
        kind = "graph" if cause.startswith("eager") else "plan"
        o.add(f"slowest 1% of gaps with {cause}", ratio(n, len(tail)), o.source(kind))
    top = max(causes, key=lambda c: causes[c])
    if causes[top] >= EXPLAINED * len(tail):
        share = causes[top] / len(tail)
        return Verdict.SUPPORTED, f"p99 ITL is {ratio(p99, p50)}x the median; {share:.0%} of the slowest gaps had {top}"
    return (
        Verdict.NO_DATA,
        "the slowest gaps had no prefill, retraction or fallback in them; GC and IPC are not recorded",
    )


_LOOKUPS = ("get_computed_blocks", "match_prefix")


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _mean(values: Any) -> float | None:
    found = [v for v in values if v is not None]
    return round(statistics.fmean(found), 3) if found else None


def _longest(rows: list[int]) -> int:
    best = run = 0
    for a, b in zip([None, *rows], rows):
        run = run + 1 if a is not None and b == a + 1 else 1
        best = max(best, run)
    return best


RULES: dict[str, Callable[[_Out, Facts | None], tuple[Verdict, str]]] = {
    "graph-short-decode": _graph_short_decode,
    "graph-long-prefill": _graph_long_prefill,
    "prefix-hit-ttft": _prefix_hit_ttft,
    "concurrency": _concurrency,
    "chunk-p99": _chunk_p99,
    "retraction-zero-ttft": _retraction_zero_ttft,
    "spec-no-speedup": _spec_no_speedup,
    "p99-itl": _p99_itl,
}
