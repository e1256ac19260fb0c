"""What the probes cost, seen from inside the engine: per timed round, how the diagnostics the probe samples at each
flush (spec `diagnostics`: process CPU, the busiest hooked thread's time on a CPU and waiting for one, the flusher's
CPU, garbage collections and their pauses) moved over the round, per second of it. Set beside the round's
throughput they tell apart more work on the engine thread, waiting for a CPU, and GC."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from atlas.runtime.merge import read_shard, shard_paths

RATES = (
    "cpu_ms_s",
    "engine_run_ms_s",
    "engine_wait_ms_s",
    "engine_slices_s",
    "flusher_ms_s",
    "gc0_s",
    "gc1_s",
    "gc2_s",
    "gc_ms_s",
    "load",
)


@dataclass(frozen=True, slots=True)
class Round:
    """One timed round, from the driver's round_begin / round_end marks."""

    phase: str
    index: int
    state: str  # the control text the round ran under
    begin_ns: int
    end_ns: int
    seconds: float
    out_tokens: int


@dataclass(frozen=True, slots=True)
class Records:
    """What the cost figures read from a trace folder's shards, in one pass: the rounds, each process's diag
    samples by time (spec `diagnostics`), duty-cycle windows (`duty=N`) and profiler counts (spec `sample_hz`)."""

    rounds: list[Round] = field(default_factory=list)
    diags: dict[int, list] = field(default_factory=dict)
    windows: list[dict] = field(default_factory=list)
    samples: list[dict] = field(default_factory=list)


def load(shard_dir: Path) -> Records:
    """Read every shard of a trace folder once for all the cost figures."""
    records, marks = Records(), []
    for path in shard_paths(shard_dir):
        for r in read_shard(path)[0]:
            kind = r.get("kind")
            if kind == "stats" and r.get("diag"):
                records.diags.setdefault(r["pid"], []).append(r["diag"])
            elif kind == "window":
                records.windows.append(r)
            elif kind == "samples":
                records.samples.append(r)
            elif kind == "mark" and r.get("name") in ("round_begin", "round_end"):
                marks.append(r)
    for diags in records.diags.values():
        diags.sort(key=lambda d: d["mono_ns"])
    begins = {
        (m["values"].get("phase"), m["values"].get("round")): m["mono_ns"] for m in marks if m["name"] == "round_begin"
    }
    for end in sorted((m for m in marks if m["name"] == "round_end"), key=lambda m: m["mono_ns"]):
        v = end["values"]
        if (v.get("phase"), v.get("round")) in begins:
            records.rounds.append(
                Round(
                    v.get("phase"),
                    v.get("round"),
                    v.get("probes"),
                    begins[(v.get("phase"), v.get("round"))],
                    end["mono_ns"],
                    v.get("seconds") or 0.0,
                    v.get("out_tokens") or 0,
                )
            )
    return records


def rates(first: dict, last: dict, seconds: float) -> dict:
    """What moved between two diag samples of one process, per second of the round they bracket (the engine idles
    between rounds); the engine thread is the hooked thread that ran most in between, the flusher excluded."""
    ms = lambda a, b: (b - a) / 1e6 / seconds  # noqa: E731
    flusher = str(last.get("flusher_tid"))
    threads = {tid: (last["threads"][tid], first["threads"].get(tid)) for tid in last["threads"] if tid != flusher}
    busiest = max(((ms(b[0], a[0]), tid) for tid, (a, b) in threads.items() if b is not None and b[0]), default=None)
    row = {
        "cpu_ms_s": ms(first["cpu_ns"], last["cpu_ns"]),
        "flusher_ms_s": ms(first["flusher_cpu_ns"], last["flusher_cpu_ns"]),
        "gc_ms_s": ms(sum(first["gc_ns"]), sum(last["gc_ns"])),
        "load": last.get("load", 0.0),
    }
    for gen in range(3):
        row[f"gc{gen}_s"] = (last["gc"][gen] - first["gc"][gen]) / seconds
    if busiest is not None:
        now, then = threads[busiest[1]]
        row.update(
            engine_run_ms_s=ms(then[0], now[0]),
            engine_wait_ms_s=ms(then[1], now[1]),
            engine_slices_s=(now[2] - then[2]) / seconds,
            engine_cpu=now[3],
        )
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in row.items()}


def round_costs(records: Records) -> list[dict]:
    """One row per timed round and engine process: phase, round, probe state and the rates over the samples that
    bracket the round (the last before it begins, the first after it ends)."""
    rows = []
    for rnd in records.rounds:
        if not rnd.seconds:
            continue
        for pid, diags in records.diags.items():
            before = [d for d in diags if d["mono_ns"] <= rnd.begin_ns]
            after = [d for d in diags if d["mono_ns"] >= rnd.end_ns]
            if before and after:
                rows.append(
                    {
                        "phase": rnd.phase,
                        "round": rnd.index,
                        "probes": rnd.state,
                        "pid": pid,
                        "tok_s": round(rnd.out_tokens / rnd.seconds, 1),
                        "bracket_s": round((after[0]["mono_ns"] - before[-1]["mono_ns"]) / 1e9, 3),
                        **rates(before[-1], after[0], rnd.seconds),
                    }
                )
    return rows


def by_state(rows: list[dict]) -> dict:
    """phase -> probe state -> the median of each rate over that state's rounds (the busiest process only)."""
    busiest = max(
        {r["pid"] for r in rows},
        key=lambda pid: sum(r.get("cpu_ms_s", 0) for r in rows if r["pid"] == pid),
        default=None,
    )
    table: dict = {}
    for r in rows:
        if r["pid"] == busiest:
            table.setdefault(r["phase"], {}).setdefault(r["probes"], []).append(r)
    return {
        phase: {
            state: {
                "rounds": len(rs),
                "tok_s": statistics.median(r["tok_s"] for r in rs),
                **{k: round(statistics.median(r.get(k, 0) for r in rs), 2) for k in RATES},
            }
            for state, rs in states.items()
        }
        for phase, states in table.items()
    }


def duty_windows(records: Records) -> dict[str, list[list[dict]]]:
    """Duty-cycle windows (control option duty=N: the probe flips on and off every N engine steps and writes each
    window) that lie wholly inside a timed round: 'PHASE: STATE' -> per round and process, its windows in order."""
    runs: dict[str, list[list[dict]]] = {}
    for rnd in records.rounds:
        for pid in sorted({w["pid"] for w in records.windows}):
            inside = sorted(
                (
                    w
                    for w in records.windows
                    if w["pid"] == pid and rnd.begin_ns <= w["begin_ns"] and w["end_ns"] <= rnd.end_ns
                ),
                key=lambda w: w["begin_ns"],
            )
            if inside:
                runs.setdefault(f"{rnd.phase}: {inside[0]['state']}", []).append(inside)
    return runs


def duty_pairs(runs: list[list[dict]]) -> list[tuple[dict, float]]:
    """Per 'on' window with an 'off' window on both sides (of one round, within 5 s): the window and its
    neighbours' mean time per step. Both sides, because the engine's step time drifts over a round (the context
    grows): an on window against its earlier neighbour alone (a round's last) would be charged the drift."""
    pairs = []
    for seq in runs:
        for i, w in enumerate(seq):
            if not w["on"] or w["end_ns"] <= w["begin_ns"] or not 0 < i < len(seq) - 1:
                continue
            offs = [
                seq[j]
                for j in (i - 1, i + 1)
                if not seq[j]["on"]
                and seq[j]["end_ns"] > seq[j]["begin_ns"]
                and abs(seq[j]["begin_ns"] - w["begin_ns"]) < 5e9
            ]
            if len(offs) == 2:
                pairs.append((w, statistics.mean((o["end_ns"] - o["begin_ns"]) / o["steps"] for o in offs)))
    return pairs


def duty_ratios(runs: list[list[dict]]) -> list[float]:
    """Per pair of duty_pairs: the engine steps per second the on window ran at over those of its neighbours (on /
    off throughput, 1.0 = the probes cost nothing)."""
    return [_ratio(w, off_ns) for w, off_ns in duty_pairs(runs)]


def _ratio(on: dict, off_ns_per_step: float) -> float:
    return off_ns_per_step / ((on["end_ns"] - on["begin_ns"]) / on["steps"])


def _ns_per_step(windows: list[dict]) -> float:
    return sum(w["end_ns"] - w["begin_ns"] for w in windows) / max(sum(w["steps"] for w in windows), 1)


def duty_summary(records: Records, busiest_only: bool = True, seed: int = 0) -> dict:
    """'PHASE: STATE' -> on/off figures of the duty-cycled rounds (over duty_pairs): pairs, the median and geometric
    mean of the per-pair ratios, the pooled ratio (the on windows' steps at their neighbours' time per step, over
    the on windows' time), and a bootstrap 95% interval of the median (resampling the pairs)."""
    import random

    out = {}
    for state, runs in duty_windows(records).items():
        if busiest_only:  # the process whose windows are most: the engine loop (vLLM EngineCore, SGLang scheduler)
            counts: dict = {}
            for seq in runs:
                counts[seq[0]["pid"]] = counts.get(seq[0]["pid"], 0) + len(seq)
            top = max(counts, key=counts.get)
            runs = [seq for seq in runs if seq[0]["pid"] == top]
        pairs = duty_pairs(runs)
        if not pairs:
            continue
        ratios = [_ratio(w, off_ns) for w, off_ns in pairs]
        rng = random.Random(seed)
        medians = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(1000))
        on = [w for seq in runs for w in seq if w["on"]]
        off = [w for seq in runs for w in seq if not w["on"]]
        out[state] = {
            "pairs": len(ratios),
            "median": round(statistics.median(ratios), 4),
            "geomean": round(math.exp(statistics.mean(map(math.log, ratios))), 4),
            "pooled": round(
                sum(w["steps"] * off_ns for w, off_ns in pairs) / sum(w["end_ns"] - w["begin_ns"] for w, _ in pairs), 4
            ),
            "ci95": [round(medians[25], 4), round(medians[974], 4)],
            **(
                {
                    "own_us_per_step": round(statistics.median(w["own_ns"] / w["steps"] for w in on) / 1e3, 1),
                    "step_us": round(_ns_per_step(off) / 1e3, 1),
                }
                if on and "own_ns" in on[0]
                else {}
            ),
            "window_ms": round(statistics.median((w["end_ns"] - w["begin_ns"]) / 1e6 for seq in runs for w in seq), 1),
        }
    return out


def profiles(records: Records, slack_ns: int = 500_000_000) -> dict:
    """The sampling profiler's counts (spec `sample_hz`, probes/sampler.py) per process, phase and state:
    {pid: {(phase, state): {"n": samples, "self": Counter((thread, file, function, line)), "incl":
    Counter((thread, file, function))}}}, from the "samples" records written inside a timed round (or within
    `slack_ns` after it, the flush that carries its last samples)."""
    from collections import Counter

    out: dict = {}
    for r in records.samples:
        phase = next(
            (rnd.phase for rnd in records.rounds if rnd.begin_ns <= r["mono_ns"] <= rnd.end_ns + slack_ns), None
        )
        if phase is None:
            continue
        slot = out.setdefault(r["pid"], {}).setdefault(
            (phase, r["state"]), {"n": 0, "self": Counter(), "incl": Counter()}
        )
        slot["n"] += r["n"]
        for *key, n in r["self"]:
            slot["self"][tuple(key)] += n
        for *key, n in r["incl"]:
            slot["incl"][tuple(key)] += n
    return out


def profile_diff(slots: dict, a: str, b: str, phase: str, top: int = 15, kind: str = "incl") -> list[tuple]:
    """Functions (kind 'incl') or lines ('self') whose share of samples moved most from state `a` to state `b` in
    one process and phase, threads folded together: (where, share in a, share in b, b - a), largest moves first."""
    from collections import Counter

    shares = []
    for state in (a, b):
        slot = slots.get((phase, state))
        if not slot or not slot["n"]:
            return []
        folded: Counter = Counter()
        for key, n in slot[kind].items():
            folded[":".join(map(str, key[1:]))] += n
        shares.append({k: n / slot["n"] for k, n in folded.items()})
    keys = set(shares[0]) | set(shares[1])
    moves = [
        (
            k,
            round(shares[0].get(k, 0.0), 4),
            round(shares[1].get(k, 0.0), 4),
            round(shares[1].get(k, 0.0) - shares[0].get(k, 0.0), 4),
        )
        for k in keys
    ]
    return sorted(moves, key=lambda m: (-abs(m[3]), m[0]))[:top]


def profile_summary(records: Records, framework: str, top: int = 12) -> dict:
    """For the process that spent most samples in the engine's own code: per phase, the functions whose share of
    samples moved most between the probe-free rounds and the others ('absent' against each other state)."""
    slots_by_pid = profiles(records)
    if not slots_by_pid:
        return {}
    marker = f"/{framework}/"

    def engine_samples(slots: dict) -> int:
        return sum(n for slot in slots.values() for key, n in slot["self"].items() if marker in key[1])

    pid = max(slots_by_pid, key=lambda p: engine_samples(slots_by_pid[p]))
    slots = slots_by_pid[pid]
    out: dict = {"pid": pid, "phases": {}}
    for phase, state in sorted(slots):
        if state != "absent" and (phase, "absent") in slots:
            out["phases"].setdefault(phase, {})[f"{state} vs absent"] = {
                "samples": [slots[(phase, "absent")]["n"], slots[(phase, state)]["n"]],
                "functions": profile_diff(slots, "absent", state, phase, top, "incl"),
                "lines": profile_diff(slots, "absent", state, phase, top, "self"),
            }
    return out
