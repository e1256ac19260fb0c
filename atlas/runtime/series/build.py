"""The series of a trace from its merged events: each plan event is a step row; the execute and commit events that
answer it are joined to it first in, first out, checked by what both saw (batch size and tokens, request ids), so
that pipelined engines (vLLM's async scheduling, SGLang's overlap) and steps a process did not record (duty-cycled
rounds) still join right; requests' lives are collected from the same rows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from atlas.runtime.merge import Merged
from atlas.runtime.series import MISSING, Requests, Round, Runs, Series, Source, Steps

Event = dict[str, Any]
ARRIVALS = ("Scheduler.add_request", "Scheduler.handle_generate_request")
EXECUTES = ("GPUModelRunner.execute_model", "Scheduler.run_batch")
LOOKUPS = ("KVCacheManager.get_computed_blocks", "RadixCache.match_prefix")
LOOKAHEAD = 8  # events past the first candidate a step's answer may be found at (others are unmatched)


class _RunBuilder:
    """Runs built row by row: a request's row continues its last run when it is the next row with the same value."""

    def __init__(self) -> None:
        self.runs = Runs()
        self._last: dict[int, int] = {}

    def add(self, request: int, row: int, value: int, kind: int = 0) -> None:
        r, at = self.runs, self._last.get(request)
        if at is not None and r.row[at] + r.count[at] == row and r.value[at] == value and r.kind[at] == kind:
            r.count[at] += 1
            return
        self._last[request] = len(r.request)
        r.request.append(request)
        r.row.append(row)
        r.count.append(1)
        r.value.append(value)
        r.kind.append(kind)


def pair(
    plans: Sequence[Event], others: Sequence[Event], fits: Callable[[Event, Event], bool], reach: int
) -> list[int]:
    """For each plan (in time order) the index of the event of `others` (in time order) that answers it, or -1: the
    first one from the plan's start that fits it, within LOOKAHEAD, starting before the plan `reach` places later
    ends (an execute runs before the next plan is done: reach 1; a pipelined commit comes after the next plan,
    before the one after: reach 2); each answers one plan at most."""
    out, j = [], 0
    for i, p in enumerate(plans):
        while j < len(others) and others[j]["mono_ns"] < p["mono_ns"]:
            j += 1
        later = plans[i + reach] if i + reach < len(plans) else None
        bound = later["mono_ns"] + (later["dur_ns"] if reach == 1 else 0) if later is not None else None
        found = -1
        for k in range(j, min(j + LOOKAHEAD, len(others))):
            if bound is not None and others[k]["mono_ns"] >= bound:
                break
            if fits(p, others[k]):
                found, j = k, k + 1
                break
        out.append(found)
    return out


def _total(value: Any) -> int:
    return sum(value.values()) if isinstance(value, dict) else int(value or 0)


def _executes(p: Event, e: Event) -> bool:
    """The execute call runs this plan's batch: same size, and the same tokens or mode where it says them."""
    pv, ev = p["values"], e["values"]
    if ev.get("batch_size", pv.get("batch_size")) != pv.get("batch_size"):
        return False
    if isinstance(ev.get("num_scheduled_tokens"), int) and ev["num_scheduled_tokens"] != _total(
        pv.get("num_scheduled_tokens")
    ):
        return False
    return "batch_mode" not in ev or ev["batch_mode"] == pv.get("batch_mode")


def _commits(p: Event, c: Event) -> bool:
    """The commit answers this plan: every request it commits was scheduled by it."""
    ids = c.get("request_ids") or c["values"].get("request_ids") or ()
    return set(ids) <= set(p["values"].get("num_scheduled_tokens") or p.get("request_ids") or ())


def _ends(symbol: str, names: tuple[str, ...]) -> bool:
    return symbol.endswith(names)


def _rank0(merged: Merged) -> set[int] | None:
    """Processes of tensor/pipeline rank 0 (None: no rank records, every process counts)."""
    ranks = merged.ranks or {}
    if not ranks:
        return None
    return {pid for pid, r in ranks.items() if r.get("tp_rank", 0) == 0 and r.get("pp_rank", 0) == 0}


def _source(events: Sequence[Event]) -> Source | None:
    return Source(events[0]["symbol"], events[0].get("path") or "", int(events[0].get("line") or 0)) if events else None


def build(merged: Merged, spec: dict[str, Any]) -> Series:
    """The series of one trace (empty tables when it has no plan events)."""
    events = merged.events
    plans = [e for e in events if e["role"] == "plan" and "batch_mode" in e["values"]]
    arrivals = [e for e in events if _ends(e["symbol"], ARRIVALS) and e.get("request_ids")]
    rank0 = _rank0(merged)
    execs = [e for e in events if _ends(e["symbol"], EXECUTES) and (rank0 is None or e["pid"] in rank0)]
    commits = [e for e in events if e["role"] == "commit"]
    graphs = {(e["pid"], e["step"]): e["values"] for e in events if "cuda_graph" in e["values"]}
    retracts: dict[tuple[int, int], list[Event]] = {}
    for e in events:
        if isinstance(e["values"].get("retracted"), list):
            retracts.setdefault((e["pid"], e["step"]), []).append(e)
    origin = min([e["mono_ns"] for e in events[:1]] + [m["mono_ns"] for m in merged.marks[:1]], default=0)
    framework = spec.get("framework", "")
    sources = {
        name: s
        for name, s in (
            ("plan", _source(plans)),
            ("arrival", _source(arrivals)),
            ("execute", _source(execs)),
            ("graph", _source([e for e in events if "cuda_graph" in e["values"]])),
            ("commit", _source(commits)),
            ("prefix", _source([e for e in events if _ends(e["symbol"], LOOKUPS)]) or _source(plans)),
            ("preempt", _source([e for r in retracts.values() for e in r]) or _source(plans)),
            ("blocks", _source(plans)),
        )
        if s is not None
    }
    base = f"{spec.get('url', '').rstrip('/')}/blob/{spec.get('permalink_ref') or spec.get('commit', '')}/"
    series = Series(
        framework=framework,
        kv_unit="tokens" if framework == "sglang" else "blocks",
        block_size=0,
        kv_total=0,
        origin_ns=origin,
        url=base if spec.get("url") else "",
        sources=sources,
        modes=[],
        graphs=[],
        steps=Steps(),
        requests=Requests(),
        schedules=Runs(),
        emits=Runs(),
        blocks=Runs(),
        preemptions=Runs(),
        rounds=_rounds(merged.marks, origin),
    )
    _Filler(series, origin).fill(plans, arrivals, execs, commits, graphs, retracts)
    return series


def _rounds(marks: list[dict[str, Any]], origin: int) -> list[Round]:
    begins: dict[tuple[str, int], dict[str, Any]] = {}
    out = []
    for m in marks:
        v = m.get("values") or {}
        key = (str(v.get("phase", "")), int(v.get("round", 0) or 0))
        if m["name"] == "round_begin":
            begins[key] = m
        elif m["name"] == "round_end" and key in begins:
            begin = begins.pop(key)
            out.append(
                Round(
                    key[0],
                    key[1],
                    str((begin.get("values") or {}).get("probes", "")),
                    (begin["mono_ns"] - origin) // 1000,
                    (m["mono_ns"] - origin) // 1000,
                )
            )
    return out


class _Filler:
    """Fills a series' tables, one step row at a time, keeping each request's tokens so far."""

    def __init__(self, series: Series, origin: int) -> None:
        self.s, self.origin = series, origin
        self.index: dict[str, int] = {}
        self.emitted: list[int] = []
        self.seen_output: dict[str, int] = {}  # SGLang: output tokens so far, as its commits count them
        self.schedules, self.emits, self.blocks, self.preemptions = (_RunBuilder() for _ in range(4))

    def us(self, mono_ns: int) -> int:
        return (mono_ns - self.origin) // 1000

    def request(self, rid: str) -> int:
        at = self.index.get(rid)
        if at is None:
            at = self.index[rid] = len(self.s.requests)
            r = self.s.requests
            r.id.append(rid)
            for column in (
                r.arrival_us,
                r.prompt_tokens,
                r.prefix_hit,
                r.first_row,
                r.first_token_us,
                r.finish_us,
            ):
                column.append(MISSING)
            for column in (r.output_tokens, r.num_chunks, r.num_preempted):
                column.append(0)
            self.emitted.append(0)
        return at

    def code(self, names: list[str], name: Any) -> int:
        if name is None:
            return MISSING
        if name not in names:
            names.append(str(name))
        return names.index(str(name))

    def fill(
        self,
        plans: list[Event],
        arrivals: list[Event],
        execs: list[Event],
        commits: list[Event],
        graphs: dict[tuple[int, int], dict[str, Any]],
        retracts: dict[tuple[int, int], list[Event]],
    ) -> None:
        r = self.s.requests
        for a in arrivals:
            i = self.request(a["request_ids"][0])
            if r.arrival_us[i] == MISSING:
                r.arrival_us[i] = self.us(a["mono_ns"])
                prompt = a["values"].get("num_computed_tokens")  # the prompt's length, as the arrival hooks take it
                r.prompt_tokens[i] = int(prompt) if isinstance(prompt, int) else MISSING
        by_exec, by_commit = pair(plans, execs, _executes, 1), pair(plans, commits, _commits, 2)
        for row, p in enumerate(plans):
            e = execs[by_exec[row]] if by_exec[row] >= 0 else None
            c = commits[by_commit[row]] if by_commit[row] >= 0 else None
            self.step(row, p, e, graphs.get((e["pid"], e["step"])) if e is not None else None, c)
            self.preempt(row, p, retracts.get((p["pid"], p["step"]), []))
            if c is not None:
                self.commit(row, p, c)
        self.s.schedules, self.s.emits = self.schedules.runs, self.emits.runs
        self.s.blocks, self.s.preemptions = self.blocks.runs, self.preemptions.runs

    def step(self, row: int, p: Event, e: Event | None, graph: dict[str, Any] | None, c: Event | None) -> None:
        s, st, r, v = self.s, self.s.steps, self.s.requests, p["values"]
        scheduled = v.get("num_scheduled_tokens") if isinstance(v.get("num_scheduled_tokens"), dict) else {}
        computed = v.get("num_computed_tokens") if isinstance(v.get("num_computed_tokens"), dict) else {}
        new_blocks = v.get("new_blocks") if isinstance(v.get("new_blocks"), dict) else None
        block_size = int(v.get("block_size") or 0) or (1 if s.kv_unit == "tokens" else s.block_size)
        if v.get("block_size"):
            s.block_size, s.kv_total = int(v["block_size"]), int(v.get("kv_total") or 0)
        after = (c["values"].get("num_computed_tokens") if c is not None else None) or {}
        prefill = decode = hits = committed = 0
        for rid, n in scheduled.items():
            i = self.request(rid)
            done = int(computed.get(rid, 0) or 0)
            pending = r.prompt_tokens[i] + self.emitted[i] - done if r.prompt_tokens[i] >= 0 else None
            is_decode = self.emitted[i] > 0 and (pending <= 1 if pending is not None else n == 1)
            if is_decode:
                decode += n
            else:
                prefill += n
                r.num_chunks[i] += 1
            if r.first_row[i] == MISSING:
                r.first_row[i], r.prefix_hit[i] = row, done
                hits += done
            self.schedules.add(i, row, n, 0 if is_decode else 1)
            got = new_blocks.get(rid, 0) if new_blocks is not None else (n if s.kv_unit == "tokens" else 0)
            if got:
                self.blocks.add(i, row, got)
            if block_size:
                committed += -(-int(after.get(rid, done + n)) // block_size)
        ran = graph or (e["values"] if e is not None and "cuda_graph" in e["values"] else None)
        kv_total, kv_free = v.get("kv_total"), v.get("kv_free")
        st.step.append(p["step"])
        st.t_us.append(self.us(p["mono_ns"]))
        st.plan_us.append(p["dur_ns"] // 1000)
        st.mode.append(self.code(s.modes, v.get("batch_mode")))
        st.batch.append(int(v.get("batch_size") or len(scheduled)))
        st.running.append(int(v["running"]) if "running" in v else MISSING)
        st.waiting.append(int(v["waiting"]) if "waiting" in v else MISSING)
        st.prefill_tokens.append(prefill)
        st.decode_tokens.append(decode)
        st.kv_new.append(int(v["kv_blocks"]) if isinstance(v.get("kv_blocks"), int) else prefill + decode)
        st.kv_used.append(int(kv_total) - int(kv_free) if kv_total is not None and kv_free is not None else MISSING)
        st.kv_committed.append(committed if block_size and (c is not None or s.kv_unit == "tokens") else MISSING)
        st.kv_cached.append(int(v["kv_cached"]) if "kv_cached" in v else MISSING)
        st.kv_free.append(int(kv_free) if kv_free is not None else MISSING)
        st.prefix_hit.append(int(v["prefix_hit_tokens"]) if isinstance(v.get("prefix_hit_tokens"), int) else hits)
        st.preempted.append(len(v.get("preempted") or ()))
        st.graph.append(self.code(s.graphs, ran.get("cuda_graph")) if ran else MISSING)
        st.bucket.append(int(ran.get("padded_tokens") or MISSING) if ran else MISSING)
        st.exec_us.append(e["dur_ns"] // 1000 if e is not None else MISSING)
        st.gpu_us.append(int(e["gpu_ns"]) // 1000 if e is not None and "gpu_ns" in e else MISSING)
        st.drafted.append(int(v.get("draft_tokens") or 0))
        st.accepted.append(int(c["values"].get("accepted_tokens") or 0) if c is not None else MISSING)
        st.commit_us.append(self.us(c["mono_ns"] + c["dur_ns"]) if c is not None else MISSING)
        ratio = v.get("new_token_ratio")
        st.ratio_milli.append(round(float(ratio) * 1000) if isinstance(ratio, (int, float)) else MISSING)
        for rid in v.get("preempted") or ():
            i = self.request(rid)
            r.num_preempted[i] += 1
            self.preemptions.add(i, row, 1)

    def preempt(self, row: int, p: Event, retracts: list[Event]) -> None:
        """SGLang's retractions inside this step's plan (the same process and step)."""
        st, r = self.s.steps, self.s.requests
        for e in retracts:
            for rid in e["values"]["retracted"]:
                i = self.request(rid)
                r.num_preempted[i] += 1
                self.preemptions.add(i, row, 1)
                st.preempted[row] += 1
            if isinstance(e["values"].get("new_token_ratio"), (int, float)):
                st.ratio_milli[row] = round(float(e["values"]["new_token_ratio"]) * 1000)

    def commit(self, row: int, p: Event, c: Event) -> None:
        r, v, end = self.s.requests, c["values"], self.us(c["mono_ns"] + c["dur_ns"])
        got = dict(v.get("new_tokens") or {})
        for rid, total in (v.get("output_tokens") or {}).items():
            if total > self.seen_output.get(rid, 0):
                got[rid] = total - self.seen_output.get(rid, 0)
                self.seen_output[rid] = total
        for rid, n in got.items():
            if not n:
                continue
            i = self.request(rid)
            if self.emitted[i] == 0:
                r.first_token_us[i] = end
            self.emitted[i] += n
            r.output_tokens[i] += n
            self.emits.add(i, row, n)
        for rid in v.get("finished") or ():
            r.finish_us[self.request(rid)] = end
