"""`atlas explain`: the article's section 11 ("如何从实验结果反推瓶颈", how to work back from results to the bottleneck)
applied to one trace: one row per symptom of its table, the figures of the next evidence computed from the trace,
each with the probe and source line it came from, and a verdict on the first hypothesis. A trace with series
(`series.json`) is judged step by step; one recorded before them (a summary alone) gives what its aggregates hold.
Pure over the loaded trace; `load_trace` is the IO edge."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from atlas.errors import ConfigError
from atlas.runtime import series as series_io
from atlas.runtime.kernels.capture import load_view
from atlas.runtime.kernels.view import KernelView
from atlas.runtime.series import Series


class Verdict(Enum):
    SUPPORTED = "supported"
    NOT_SUPPORTED = "not supported"
    NO_DATA = "no data"


@dataclass(frozen=True, slots=True)
class Symptom:
    """One row of the article's table (section 11), as the article words it and in English."""

    key: str
    line: int  # the article's line
    symptom_zh: str
    symptom: str
    hypothesis: str
    next_evidence: str


@dataclass(frozen=True, slots=True)
class Evidence:
    metric: str
    value: float | int | str | None
    source: str  # the probe's symbol and its line at the pin, or the summary figure it comes from


@dataclass(frozen=True, slots=True)
class Row:
    symptom: Symptom
    evidence: tuple[Evidence, ...]
    verdict: Verdict
    reason: str  # one line: why this verdict


@dataclass(frozen=True, slots=True)
class Trace:
    """What a trace holds for the diagnosis: its summary (a dict from JSON: the committed summaries predate any
    type), its series, when it was recorded with them, and its GPU kernels per step kind, when recorded with
    `--kernels`."""

    title: str
    summary: dict[str, Any]
    series: Series | None
    kernels: KernelView | None = None


@dataclass(frozen=True, slots=True)
class Diagnosis:
    trace: Trace
    rows: tuple[Row, ...]


TABLE = (
    Symptom(
        "graph-short-decode",
        511,
        "graph 对短 decode 提升巨大",
        "CUDA graphs speed up short decode enormously",
        "launch / CPU overhead dominates",
        "Nsight kernel gaps, CPU submit, graph hit / fallback",
    ),
    Symptom(
        "graph-long-prefill",
        512,
        "graph 对长 prefill无提升",
        "CUDA graphs do nothing for long prefill",
        "attention / GEMM compute dominates",
        "SM / Tensor Core occupancy, HBM, a length sweep",
    ),
    Symptom(
        "prefix-hit-ttft",
        513,
        "prefix hit 高但 TTFT 变化小",
        "prefix hit rate is high but TTFT barely changes",
        "the fixed tail forward, IPC or sampling dominates",
        "server phase timers, tail token / block alignment",
    ),
    Symptom(
        "concurrency",
        514,
        "并发升高 tok/s 涨、TTFT/ITL 涨",
        "more concurrency raises tok/s and also TTFT / ITL",
        "batch efficiency is traded for queueing and step time",
        "queue time, batch size, per-step duration",
    ),
    Symptom(
        "chunk-p99",
        515,
        "chunk 变小 p99 反而涨",
        "a smaller chunk makes p99 worse",
        "no interleaving, or too many launches",
        "batch mode per step, decode progress, the mixed flag",
    ),
    Symptom(
        "retraction-zero-ttft",
        516,
        "retraction 为 0 但 TTFT 高",
        "zero retractions but high TTFT",
        "conservative admission",
        "running / waiting, future reservation, KV usage",
    ),
    Symptom(
        "spec-no-speedup",
        517,
        "spec accept rate 高但没加速",
        "high speculative accept rate but no speed-up",
        "verify / draft / commit cost, or the baseline batch is already saturated",
        "accept length, phase time, verify width, batch size",
    ),
    Symptom(
        "p99-itl",
        518,
        "p99 ITL 异常但 mean TPOT正常",
        "p99 ITL is abnormal while mean TPOT is normal",
        "prefill interference, retraction, GC / IPC or graph fallback",
        "the timeline and per-request histograms, not only the averages",
    ),
)


def diagnose(trace: Trace) -> Diagnosis:
    from atlas.runtime.explain import rules

    return Diagnosis(trace, tuple(rules.judge(symptom, trace) for symptom in TABLE))


def load_trace(path: Path) -> Trace:
    """A trace folder (summary.json, and series.json when recorded with series) or a summary file."""
    folder, file = (path, path / "summary.json") if path.is_dir() else (path.parent, path)
    if not file.is_file():
        raise ConfigError(
            f"{path} holds no summary.json; give a trace folder `atlas trace` wrote, or a summary file such as "
            "results/gpu-vllm-summary.json"
        )
    try:
        summary = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{file}:{exc.lineno}: not JSON ({exc.msg}); rewrite it with `atlas trace --collect-only`"
        ) from None
    if not isinstance(summary, dict) or "framework" not in summary:
        raise ConfigError(f"{file} is not a trace summary (no framework); give the summary.json `atlas trace` wrote")
    series = series_io.load(folder) if path.is_dir() else None
    return Trace(str(path), summary, series, load_view(path if path.is_dir() else None, summary))


def to_json(d: Diagnosis) -> dict[str, Any]:
    return {
        "trace": d.trace.title,
        "framework": d.trace.summary.get("framework"),
        "has_series": d.trace.series is not None,
        "rows": [
            {
                "symptom": r.symptom.symptom,
                "symptom_zh": r.symptom.symptom_zh,
                "article_line": r.symptom.line,
                "hypothesis": r.symptom.hypothesis,
                "next_evidence": r.symptom.next_evidence,
                "evidence": [{"metric": e.metric, "value": e.value, "source": e.source} for e in r.evidence],
                "verdict": r.verdict.value,
                "reason": r.reason,
            }
            for r in d.rows
        ],
    }
