"""One request's life in time order, from a trace's series: arrival, the prefix-cache lookup, every step that
scheduled it (with its tokens and the KV units it held against those its committed tokens fill), preemptions, the
tokens each commit gave it, its first token and its end; each event with the probe and line it came from."""

from __future__ import annotations

from dataclasses import dataclass

from atlas.errors import ConfigError
from atlas.runtime.series import MISSING, Series


@dataclass(frozen=True, slots=True)
class Event:
    t_ms: float
    event: str  # arrival, prefix-hit, schedule, preempt, tokens, first-token, finish
    step: int  # the engine step (-1: none)
    source: str  # path:line at the pin
    tokens: int = 0  # tokens scheduled (schedule) or emitted (tokens), prefix tokens found (prefix-hit)
    kind: str = ""  # schedule: prefill or decode
    kv_held: int = -1  # KV units the request held after this plan
    kv_committed: int = -1  # units its committed tokens fill


def find(series: Series, wanted: str) -> int:
    """The request whose id is `wanted`, or the one id that contains it."""
    ids = series.requests.id
    if wanted in ids:
        return ids.index(wanted)
    found = [i for i, rid in enumerate(ids) if wanted in rid]
    if len(found) == 1:
        return found[0]
    sample = ", ".join(ids[:3])
    if not found:
        raise ConfigError(f"no request {wanted!r} in this trace; its {len(ids)} requests have ids like {sample}")
    raise ConfigError(f"{len(found)} requests match {wanted!r}; give more of the id (e.g. {ids[found[0]]})")


def lifecycle(series: Series, request: int) -> list[Event]:
    s, st, r = series, series.steps, series.requests
    src = {k: v.where for k, v in s.sources.items()}

    def t(us: int) -> float:
        return round(us / 1000, 3)

    events: list[tuple[int, int, Event]] = []  # (time, order within a step, event)
    if r.arrival_us[request] != MISSING:
        a = r.arrival_us[request]
        events.append((a, 0, Event(t(a), "arrival", -1, src.get("arrival", ""), r.prompt_tokens[request])))
    if r.first_row[request] != MISSING and r.prefix_hit[request] > 0:
        at = st.t_us[r.first_row[request]]
        step = st.step[r.first_row[request]]
        events.append((at, 1, Event(t(at), "prefix-hit", step, src.get("prefix", ""), r.prefix_hit[request])))
    held = {row: value for row, value in _rows(s, "blocks", request)}
    computed = max(r.prefix_hit[request], 0)
    kv_held = computed if s.kv_unit == "tokens" else 0  # vLLM's first plan hands over the cached blocks too
    for row, value, kind in _schedule_rows(s, request):
        kv_held += held.get(row, 0) if s.kv_unit == "blocks" else value
        computed += value
        committed = -(-computed // s.block_size) if s.block_size else -1
        events.append(
            (
                st.t_us[row],
                2,
                Event(
                    t(st.t_us[row]),
                    "schedule",
                    st.step[row],
                    src.get("plan", ""),
                    value,
                    "prefill" if kind else "decode",
                    kv_held if s.block_size or s.kv_unit == "tokens" else -1,
                    committed,
                ),
            )
        )
    for row, _ in _rows(s, "preemptions", request):
        computed, kv_held = 0, 0
        events.append((st.t_us[row], 3, Event(t(st.t_us[row]), "preempt", st.step[row], src.get("preempt", ""))))
    for row, value in _rows(s, "emits", request):
        at = st.commit_us[row]
        events.append((at, 4, Event(t(at), "tokens", st.step[row], src.get("commit", ""), value)))
    if r.first_token_us[request] != MISSING:
        at = r.first_token_us[request]
        events.append((at, 5, Event(t(at), "first-token", -1, src.get("commit", ""))))
    if r.finish_us[request] != MISSING:
        at = r.finish_us[request]
        events.append((at, 6, Event(t(at), "finish", -1, src.get("commit", ""), r.output_tokens[request])))
    return [e for _, _, e in sorted(events, key=lambda x: (x[0], x[1]))]


def _rows(s: Series, table: str, request: int) -> list[tuple[int, int]]:
    runs = getattr(s, table)
    return [(row + k, value) for row, count, value, _ in runs.of(request) for k in range(count)]


def _schedule_rows(s: Series, request: int) -> list[tuple[int, int, int]]:
    return [(row + k, value, kind) for row, count, value, kind in s.schedules.of(request) for k in range(count)]
