"""One results file per scenario (results/experiments/NAME.json) from the engine jobs that served it: the figures
per probe state (median of the rounds), derived ratios, the engine-log figures, and the probe evidence that
explains them, each line pointing at the pinned source."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from atlas.publish import write_text
from atlas.runtime.experiments import measure, spread
from atlas.runtime.experiments.scenarios import SCENARIOS, Job
from atlas.runtime.wording import counts_text, values_text


@dataclass(frozen=True, slots=True)
class JobRun:
    """What one engine job brought back."""

    job: Job
    driver: dict | None  # the driver's result.json (None: the engine never finished)
    events: list
    marks: list
    spec: dict
    log: str


def scenario_results(name: str, runs: list[JobRun], context: dict) -> dict:
    scenario = SCENARIOS[name]
    phases = {p.name for p in scenario.phases}
    values: dict = {}
    evidence, errors, notes = [], [], []
    engines = {}
    for run in runs:
        if name not in run.job.scenarios:
            continue
        fw = run.job.framework
        variant = measure.REPORT_VARIANT.get((name, fw, run.job.variant), run.job.variant)
        engines[fw] = {
            "version": (run.driver or {}).get("version"),
            "pin": run.spec.get("ref"),
            "commit": run.spec.get("commit"),
        }
        if run.driver is None:
            errors.append(f"{run.job.name}: the engine did not finish (see its engine.log)")
            continue
        on_events = []
        for row in run.driver["rounds"]:
            if row.get("phase") not in phases:
                continue
            if "error" in row:
                errors.append(f"{run.job.name} {row['phase']} round {row['round']}: {row['error']}")
                continue
            events = measure.round_events(run.events, row, run.marks) if row["probes"] == "on" else []
            on_events += events
            found = measure.figures(name, fw, row, events, run.job.variant)
            samples = measure.request_values(found, row)
            for (label, metric, unit), value in found.items():
                slot = values.setdefault((fw, variant, label, metric, unit), {"on": [], "absent": [], "off": []})
                if value is not None:
                    slot[row["probes"]].append(value)
                    kept = slot.setdefault("requests", {"on": [], "absent": [], "off": []})
                    kept[row["probes"]] += samples.get((label, metric, unit), [])
        evidence += explain(name, fw, variant, on_events, run.spec)
        for (label, metric), value in measure.log_figures(fw, run.log).items():
            if (name == "cuda-graph") == label.startswith("capture") and (name == "preemption") == (
                label == measure.KV_LABEL
            ):
                values[(fw, variant, label, metric, "")] = {"on": [], "absent": [], "off": [], "value": value}
    rows = [_row(key, slot) for key, slot in values.items()]
    rows += derived(name, rows)
    return {
        "scenario": name,
        "section": scenario.section,
        "title": scenario.title,
        **context,
        "engines": engines,
        "rows": rows,
        "evidence": evidence,
        "notes": notes,
        "errors": errors,
    }


def _median(values: list) -> float | None:
    return round(statistics.median(values), 4) if values else None


def _row(key: tuple, slot: dict) -> dict:
    fw, variant, label, metric, unit = key
    row = {
        "engine": fw,
        "variant": variant,
        "label": label,
        "metric": metric,
        "unit": unit,
        "absent": _median(slot["absent"]),
        "on": _median(slot["on"]),
        "rounds": {k: [round(v, 4) for v in slot[k]] for k in ("absent", "on") if slot[k]},
    }
    kept = slot.get("requests") or {}
    requests = {k: [round(v, 4) for v in kept[k]] for k in ("absent", "on") if kept.get(k)}
    if requests:
        row["requests"] = requests
    if unit in spread.LATENCY_UNITS:
        row["ci95"] = {k: i.to_json() if i else None for k, i in spread.row_intervals(row).items()}
    if "value" in slot:
        row.update(absent=slot["value"], note="from the engine log of this start (warm-up and every round)")
    return row


def derived(name: str, rows: list[dict]) -> list[dict]:
    """Ratios the article reports: graphs over eager (cuda-graph), baseline over NGRAM time (spec-ngram)."""

    def find(fw, variant, label, metric):
        return next(
            (r for r in rows if (r["engine"], r["variant"], r["label"], r["metric"]) == (fw, variant, label, metric)),
            None,
        )

    out = []
    pairs = {
        "cuda-graph": [("graph", "eager", "c1", "out_tok_s", "graph", "graph_speedup")],
        "spec-ngram": [("baseline", "ngram", lbl, "e2e_ms", "ngram", "speedup") for lbl in ("repeat", "prose")],
    }
    for num_v, den_v, label, metric, at, out_metric in pairs.get(name, ()):
        for fw in ("vllm", "sglang"):
            num, den = find(fw, num_v, label, metric), find(fw, den_v, label, metric)
            if num and den:
                ratio = {s: round(num[s] / den[s], 3) if num[s] and den[s] else None for s in ("absent", "on")}
                out.append({"engine": fw, "variant": at, "label": label, "metric": out_metric, "unit": "x", **ratio})
    return out


def explain(name: str, fw: str, variant: str, events: list[dict], spec: dict) -> list[dict]:
    """Evidence lines from the probes-on rounds: what the hooked functions saw, each with its line at the pin."""
    base = f"{spec.get('url', '').rstrip('/')}/blob/{spec.get('permalink_ref', spec.get('commit', ''))}/"

    def line(symbol_end: str, text: str) -> dict | None:
        e = next((e for e in events if e["symbol"].endswith(symbol_end)), None)
        if e is None:
            return None
        where = f"{e.get('path')}:{e.get('line')}"
        return {
            "engine": fw,
            "variant": variant,
            "symbol": e["symbol"],
            "where": where,
            "url": f"{base}{e.get('path')}#L{e.get('line')}",
            "text": text,
        }

    def graph_line(text: str) -> dict | None:
        """At the hook that says how a step ran: vLLM's V1 runner, else its V2 CudaGraphManager; SGLang's run_batch."""
        if fw == "sglang":
            return line("Scheduler.run_batch", text)
        return line("_determine_batch_execution_and_padding", text) or line("CudaGraphManager.dispatch", text)

    plans = [e for e in events if e["role"] == "plan" and "batch_mode" in e["values"]]
    modes = Counter(e["values"]["batch_mode"] for e in plans)
    graphs = Counter(e["values"]["cuda_graph"] for e in events if "cuda_graph" in e["values"])
    plan_symbol = "Scheduler.schedule" if fw == "vllm" else "Scheduler.get_next_batch_to_run"
    out = []
    if name in ("prefill-scaling", "cuda-graph", "continuous-batching"):
        biggest = max((_total(e["values"].get("num_scheduled_tokens")) for e in plans), default=0)
        out.append(
            line(plan_symbol, f"steps by batch mode {counts_text(modes)}; largest step {biggest} scheduled tokens")
        )
        if graphs:
            out.append(graph_line(f"CUDA graph use per executed step: {counts_text(graphs)}"))
    if name in ("prefix-cache", "beam-search"):
        hook = "KVCacheManager.get_computed_blocks" if fw == "vllm" else "RadixCache.match_prefix"
        hits = [e["values"].get("prefix_hit_tokens") for e in events if e["symbol"].endswith(hook)]
        out.append(line(hook, f"prefix-hit tokens per lookup (per step when aggregated): {values_text(hits[:12])}"))
    if name == "prefix-cache" and graphs:
        steps = [f"{new} new on {cached} cached: {graph}" for new, cached, graph in extend_graphs(events)]
        out.append(graph_line("prefill steps and how they ran: " + "; ".join(steps[:4])))
    if name == "chunked-prefill":
        seq = [e["values"]["batch_mode"][0] for e in plans]
        runs = _runs(seq)
        out.append(line(plan_symbol, f"batch modes in step order (E=EXTEND, D=DECODE, M=MIXED): {runs}"))
    if name == "spec-ngram":
        drafts = sum(e["values"].get("draft_tokens") or 0 for e in plans)
        accepted = sum(e["values"].get("accepted_tokens") or 0 for e in events if e["role"] == "commit")
        commit = "Scheduler.update_from_output" if fw == "vllm" else "Scheduler.process_batch_result"
        out.append(
            line(commit, f"draft tokens planned {drafts}, accepted at commit {accepted}; modes {counts_text(modes)}")
        )
    if name == "preemption":
        if fw == "vllm":
            n = len(
                {r for e in plans if isinstance(e["values"].get("preempted"), list) for r in e["values"]["preempted"]}
            )
            out.append(line("Scheduler.schedule", f"requests preempted (recompute) seen in plans: {n}"))
        else:
            retracts = [
                e for e in events if isinstance(e["values"].get("retracted"), list) and e["values"]["retracted"]
            ]
            ratios = [round(e["values"]["new_token_ratio"], 4) for e in retracts if "new_token_ratio" in e["values"]]
            out.append(
                line(
                    "ScheduleBatch.retract_decode",
                    f"{len(retracts)} retract_decode calls retracted "
                    f"{sum(len(e['values']['retracted']) for e in retracts)} requests; the new_token_ratio "
                    f"they returned: {values_text(ratios)}",
                )
                or line(
                    plan_symbol,
                    f"no retraction; steps by mode {counts_text(modes)}, max batch "
                    f"{max((e['values'].get('batch_size') or 0 for e in plans), default=0)}",
                )
            )
    if name == "overlap":
        ahead, matched, total = measure.plan_ahead(events)
        commit = "Scheduler.update_from_output" if fw == "vllm" else "Scheduler.process_batch_result"
        out.append(line(plan_symbol, f"{ahead} of {total} commits came after the next step's plan had begun"))
        out.append(line(commit, f"{matched} of {total} commits carry only requests of the plan they answer"))
    return [e for e in out if e]


def extend_graphs(events: list[dict]) -> list[tuple[int, int, str]]:
    """(new tokens, cached tokens, CUDA-graph mode) of each prefill step: its plan, then the next execute event that
    says how the step ran (REPLAY / EAGER for SGLang, FULL / PIECEWISE / NONE for vLLM)."""
    out = []
    for i, e in enumerate(events):
        if e["role"] != "plan" or e["values"].get("batch_mode") != "EXTEND":
            continue
        ran = next((x["values"]["cuda_graph"] for x in events[i + 1 :] if "cuda_graph" in x["values"]), None)
        new = _total(e["values"].get("num_scheduled_tokens"))
        cached = e["values"].get("prefix_hit_tokens") or _total(e["values"].get("num_computed_tokens"))
        out.append((new, cached, ran))
    return out


def _total(value) -> int:
    """A token count captured as a number or per request ({rid: n})."""
    return sum(value.values()) if isinstance(value, dict) else value or 0


def _runs(seq: list[str], limit: int = 40) -> str:
    """'EEEEDDM' -> 'E4 D2 M1' (at most `limit` runs)."""
    out, prev, n = [], None, 0
    for s in seq + [None]:
        if s == prev:
            n += 1
            continue
        if prev is not None:
            out.append(f"{prev}{n}")
        prev, n = s, 1
    return " ".join(out[:limit]) + (" ..." if len(out) > limit else "")


def write(results: dict, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{results['scenario']}.json"
    write_text(path, json.dumps(results, indent=1, sort_keys=True) + "\n")
    return path
