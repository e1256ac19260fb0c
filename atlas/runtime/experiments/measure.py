"""Figures of one engine job, from what its driver measured (per-request token times, engine counters, the log)
and what the probes saw in the same rounds. Every figure is kept per probe state: rounds with probes recording
("on") and rounds with the engine's own code ("absent"); the median of each is reported side by side."""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

# The variant names the report uses where a scenario names the engine's default differently.
REPORT_VARIANT = {
    ("chunked-prefill", "vllm", "graph"): "budget8192",
    ("chunked-prefill", "sglang", "graph"): "chunk8192",
    ("spec-ngram", "vllm", "graph"): "baseline",
    ("spec-ngram", "sglang", "graph"): "baseline",
    ("overlap", "vllm", "graph"): "async",
    ("overlap", "sglang", "graph"): "overlap",
}


@dataclass(frozen=True, slots=True)
class Request:
    id: str
    submit: float  # seconds from the round's start
    times: tuple[float, ...]  # when each chunk of tokens arrived
    counts: tuple[int, ...]
    meta: dict

    @property
    def num_tokens(self) -> int:
        return sum(self.counts)

    @property
    def ttft_ms(self) -> float | None:
        return (self.times[0] - self.submit) * 1e3 if self.times else None

    @property
    def e2e_ms(self) -> float | None:
        return (self.times[-1] - self.submit) * 1e3 if self.times else None

    @property
    def tpot_ms(self) -> float | None:
        return (self.times[-1] - self.times[0]) * 1e3 / (self.num_tokens - 1) if self.num_tokens > 1 else None

    @property
    def gaps_ms(self) -> list[float]:
        return [(b - a) * 1e3 for a, b in zip(self.times, self.times[1:])]


def requests_of(row: dict) -> dict[str, Request]:
    """The round's requests by their workload id (the driver prefixes ids with phase and round)."""
    prefix = f"{row['phase']}-r{row['round']}-"
    out = {}
    for rid, t in (row.get("requests") or {}).items():
        chunks = t.get("tokens") or []
        out[rid[len(prefix) :] if rid.startswith(prefix) else rid] = Request(
            rid,
            t["submit"],
            tuple(c[0] for c in chunks),
            tuple(c[1] for c in chunks),
            {k: v for k, v in t.items() if k not in ("submit", "tokens")},
        )
    return out


def mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.fmean(values) if values else None


def p99(values) -> float | None:
    values = sorted(v for v in values if v is not None)
    return values[min(len(values) - 1, int(round(0.99 * (len(values) - 1))))] if values else None


def round_events(events: list[dict], row: dict, marks: list[dict]) -> list[dict]:
    """The probe events of one round: between its round_begin and round_end marks."""

    def at(name):
        return next(
            (
                m["mono_ns"]
                for m in marks
                if m["name"] == name
                and m.get("values", {}).get("phase") == row["phase"]
                and m.get("values", {}).get("round") == row["round"]
            ),
            None,
        )

    begin, end = at("round_begin"), at("round_end")
    if begin is None or end is None:
        return []
    return [e for e in events if begin <= e["mono_ns"] <= end]


# ---- per-round figures: (label, metric, unit) -> value ----


def figures(scenario: str, framework: str, row: dict, events: list[dict], variant: str = "") -> dict:
    reqs = requests_of(row)
    phase = row["phase"]
    f: dict = {}
    if scenario == "prefill-scaling":
        f[(phase.split("-")[1], "ttft_ms", "ms")] = mean(r.ttft_ms for r in reqs.values())
    elif scenario == "prefix-cache":
        for label in ("cold", "warm"):
            if label in reqs:
                f[(label, "ttft_ms", "ms")] = reqs[label].ttft_ms
        warm = reqs.get("warm")
        hit = warm.meta.get("cached_tokens") if warm else None
        f[("warm", "hit_tokens", "tokens")] = hit
    elif scenario == "beam-search":
        label = "beam" if phase == "beam-w4" else "plain"
        f[(label, "ms_per_token", "ms")] = row["seconds"] * 1e3 / row["out_tokens"] if row["out_tokens"] else None
        if events:
            f[(label, "engine_requests", "requests")] = sum(
                e.get("count", 1) for e in events if e["symbol"].endswith("Scheduler.add_request")
            )
            f[(label, "prefix_hit_tokens", "tokens")] = sum(
                e["values"].get("prefix_hit_tokens") or 0 for e in events if e["symbol"].endswith("get_computed_blocks")
            )
    elif scenario in ("continuous-batching", "cuda-graph", "overlap"):
        label = phase.split("-")[1]
        f[(label, "out_tok_s", "tok/s")] = row["out_tok_s"]
        f[(label, "ttft_ms_mean", "ms")] = mean(r.ttft_ms for r in reqs.values())
        f[(label, "tpot_ms_mean", "ms")] = mean(r.tpot_ms for r in reqs.values())
        f[(label, "itl_ms_p99", "ms")] = p99([g for r in reqs.values() for g in r.gaps_ms])
        if scenario == "overlap" and events:
            ahead, matched, total = plan_ahead(events)
            f[(label, "commits_after_next_plan", "share")] = ahead / total if total else None
            f[(label, "commits_matched_to_plan", "share")] = matched / total if total else None
    elif scenario == "chunked-prefill":
        stream, inject = reqs.get("stream"), reqs.get("inject")
        if stream and inject and inject.times:
            before = [b - a for a, b in zip(stream.times, stream.times[1:]) if b <= inject.submit]
            during = [
                b - a for a, b in zip(stream.times, stream.times[1:]) if b > inject.submit and a < inject.times[-1]
            ]
            f[("stream", "gap_ms_baseline", "ms")] = statistics.median(before) * 1e3 if before else None
            f[("stream", "gap_ms_max", "ms")] = max(during) * 1e3 if during else None
            f[("stream", "inject_latency_ms", "ms")] = inject.e2e_ms
    elif scenario == "spec-ngram":
        label = "repeat" if phase.endswith("repeat") else "prose"
        (req,) = reqs.values() if len(reqs) == 1 else (None,)
        if req:
            f[(label, "e2e_ms", "ms")] = req.e2e_ms
        if req and variant == "ngram":
            verify = req.meta.get("spec_verify_ct") or len(req.times)
            f[(label, "verify_count", "forwards")] = verify
            f[(label, "accept_length", "tokens")] = req.num_tokens / verify if verify else None
            rate = req.meta.get("spec_accept_rate")
            counters = row.get("counters") or {}
            if rate is None and counters.get("after"):
                drafted = _delta(counters, "vllm:spec_decode_num_draft_tokens")
                rate = _delta(counters, "vllm:spec_decode_num_accepted_tokens") / drafted if drafted else None
            f[(label, "accept_rate", "share")] = rate
    elif scenario == "preemption":
        label = KV_LABEL
        f[(label, "out_tok_s", "tok/s")] = row["out_tok_s"]
        f[(label, "ttft_ms_mean", "ms")] = mean(r.ttft_ms for r in reqs.values())
        f[(label, "ttft_ms_p99", "ms")] = p99([r.ttft_ms for r in reqs.values()])
        f[(label, "tpot_ms_mean", "ms")] = mean(r.tpot_ms for r in reqs.values())
        if framework == "vllm" and (row.get("counters") or {}).get("after"):
            f[(label, "preemptions", "requests")] = _delta(row["counters"], "vllm:num_preemptions")
        if framework == "vllm" and events:
            f[(label, "preemptions_probed", "requests")] = len(
                {r for e in events if e["role"] == "plan" for r in e["values"].get("preempted") or []}
            )
        if framework == "sglang" and events:
            f[(label, "retractions", "requests")] = len(
                {r for e in events if isinstance(e["values"].get("retracted"), list) for r in e["values"]["retracted"]}
            )
    return f


# Figures that are a mean over the round's requests: their per-request values are kept too, so that a figure from
# few rounds still gets an interval (atlas.runtime.experiments.spread, bootstrap over requests).
REQUEST_MEANS = {"ttft_ms_mean": "ttft_ms", "tpot_ms_mean": "tpot_ms"}


def request_values(figures_of_round: dict, row: dict) -> dict:
    """(label, metric, unit) -> the round's per-request values behind each mean-over-requests figure."""
    reqs = requests_of(row).values()
    out = {}
    for key in figures_of_round:
        attribute = REQUEST_MEANS.get(key[1])
        if attribute:
            out[key] = [v for v in (getattr(r, attribute) for r in reqs) if v is not None]
    return out


def _delta(counters: dict, name: str) -> float:
    return (counters["after"] or {}).get(name, 0) - (counters["before"] or {}).get(name, 0)


def plan_ahead(events: list[dict]) -> tuple[int, int, int]:
    """(commits that came after the next step's plan had begun, commits whose requests are among those of the plan
    they answer, commits): plans and commits of the scheduler process matched first in, first out."""
    ordered = sorted(events, key=lambda e: e["mono_ns"])
    plans = [e for e in ordered if e["role"] == "plan" and (e["values"].get("batch_size") or 0) > 0]
    commits = [e for e in ordered if e["role"] == "commit"]
    ahead = matched = 0
    for i, commit in enumerate(commits[: len(plans)]):
        if i + 1 < len(plans) and plans[i + 1]["mono_ns"] < commit["mono_ns"]:
            ahead += 1
        ids = set(commit.get("request_ids") or commit["values"].get("request_ids") or ())
        planned = set(plans[i].get("request_ids") or plans[i]["values"].get("request_ids") or ())
        matched += bool(ids) and ids <= planned
    return ahead, matched, min(len(commits), len(plans))


# ---- the engine log: CUDA-graph capture cost and KV capacity ----

KV_LABEL = "8x1024+512"  # the preemption scenario's one workload
LOG_PATTERNS = {
    "vllm": (
        ("capture", "compile_s", r"torch\.compile took ([\d.]+) s in total"),
        ("capture", "capture_s", r"Graph capturing finished in ([\d.]+) secs"),
        ("capture", "capture_gib", r"Graph capturing finished in [\d.]+ secs, took ([\d.]+) GiB"),
        ("capture", "kv_tokens", r"GPU KV cache size: ([\d,]+) tokens"),
    ),
    "sglang": (
        ("capture-prefill", "buckets", r"Capture target prefill CUDA graph begin\..*?num_tokens=\[([^\]]*)\]"),
        ("capture-prefill", "capture_s", r"Capture target prefill CUDA graph end\. elapsed=([\d.]+) s"),
        ("capture-prefill", "capture_gib", r"Capture target prefill CUDA graph end\..*?mem usage=([\d.]+) GB"),
        ("capture-decode", "buckets", r"Capture target decode CUDA graph begin\..*? bs=\[([^\]]*)\]"),
        ("capture-decode", "capture_s", r"Capture target decode CUDA graph end\. elapsed=([\d.]+) s"),
        ("capture-decode", "capture_gib", r"Capture target decode CUDA graph end\..*?mem usage=([\d.]+) GB"),
        ("capture", "kv_tokens", r"max_total_num_tokens=(\d+)"),
        (KV_LABEL, "retractions_logged", r"(KV cache pool is full\. Retract requests)"),
        (KV_LABEL, "new_token_ratio_before", r"#new_token_ratio: ([\d.]+) ->"),
        (KV_LABEL, "new_token_ratio_after", r"#new_token_ratio: [\d.]+ -> ([\d.]+)"),
    ),
}


def log_figures(framework: str, log: str) -> dict:
    """(label, metric) -> value from the engine's log of one start: the last match, a bucket list's length, or the
    number of matches for a counted event (retractions over the warm-up and every round of that start)."""
    out = {}
    for label, metric, pattern in LOG_PATTERNS[framework]:
        found = re.findall(pattern, log)
        if not found:
            continue
        if metric == "buckets":
            out[(label, metric)] = len([b for b in found[-1].split(",") if b.strip()])
        elif metric == "retractions_logged":
            out[(label, metric)] = len(found)
        elif metric == "new_token_ratio_before":
            out[(label, metric)] = float(found[0])
        else:
            out[(label, metric)] = float(found[-1].replace(",", ""))
    return out
