"""Aggregated hooks (the hot per-request ones): one row per hook and engine step holding that step's calls, opened
by the step's first call and closed by the next step's leader (or at exit); rows marshalled on the engine thread
when the control file asks (pack=1)."""

from __future__ import annotations

from marshal import dumps
from typing import TYPE_CHECKING

from probes.hooks import AGG_MAX_CALLS, Hook
from probes.records import AGG, CALL
from probes.schema import MARSHAL_VERSION

if TYPE_CHECKING:
    from probes.runtime import Probe


def add(probe: Probe, hook: Hook, t0: int, t1: int, values: object) -> None:
    """One call of an aggregated hook into its step's row (the general wrapper's path: hooks with befores)."""
    calls = hook.agg_calls
    if calls is None or hook.agg_step != probe.step or len(calls) >= AGG_MAX_CALLS:
        calls = open_row(probe, hook)
    calls.append((t0, t1 - t0, values))


def open_row(probe: Probe, hook: Hook) -> list:
    """A new row for an aggregated hook's calls in this step; the hook's previous row goes to the shard."""
    if hook.agg_calls:
        _close(probe, hook)
    else:
        probe.open_aggregates.append(hook)
    hook.agg_calls, hook.agg_step = [], probe.step
    return hook.agg_calls


def close_rows(probe: Probe) -> None:
    """Every open aggregated row to the shard (at a new step, and at exit)."""
    hooks, probe.open_aggregates = probe.open_aggregates, []
    shard, is_packing = probe.shard, probe.is_packing
    for hook in hooks:
        calls = hook.agg_calls
        if calls:  # _close, inline: the step leader runs this every step an aggregated hook fired
            hook.num_calls += len(calls)
            row = (AGG, hook.index, hook.agg_step, calls)
            shard.add(pack(probe, row) if is_packing else row)
        hook.agg_calls, hook.agg_step = None, -1


def _close(probe: Probe, hook: Hook) -> None:
    calls = hook.agg_calls or []
    hook.num_calls += len(calls)
    row = (AGG, hook.index, hook.agg_step, calls)
    probe.shard.add(pack(probe, row) if probe.is_packing else row)


def pack(probe: Probe, row: tuple) -> object:
    """A row as marshal bytes, made on the engine thread (control option pack=1): nothing of the engine's stays
    referenced, and the garbage collector has no container to scan until the flusher writes it. A row marshal
    cannot take stays a row (the flusher converts it)."""
    if row[0] == CALL:
        probe.packed_files.add(row[7])
    try:
        return dumps(row, MARSHAL_VERSION)
    except ValueError:
        return row
