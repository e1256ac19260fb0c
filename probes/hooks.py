"""The wrapper put on each hooked method: times the call, notes the call site, runs the captures, and hands one
compact tuple to the probe (the flusher thread turns it into JSON). A capture that raises disables its hook
(counted); the engine's call is never affected."""

from __future__ import annotations

import functools
import sys
import time

monotonic_ns = time.monotonic_ns
time_ns = time.time_ns
_getframe = sys._getframe


class Call:
    """What a capture sees: the hooked call's receiver, arguments, result and the values taken before the call."""

    __slots__ = ("self", "args", "kwargs", "result", "before", "memo")

    def __init__(self, args, kwargs, result, before):
        self.self = args[0] if args else None
        self.args = args
        self.kwargs = kwargs
        self.result = result
        self.before = before
        self.memo = None  # shared work between the captures of one call, made on first use

    def once(self, key, fn):
        """fn(self), computed once per call however many captures need it."""
        memo = self.memo
        if memo is None:
            memo = self.memo = {}
        if key not in memo:
            memo[key] = fn(self)
        return memo[key]

    def arg(self, index: int, name: str):
        """A positional-or-keyword argument (index counts `self` as 0)."""
        if name in self.kwargs:
            return self.kwargs[name]
        return self.args[index] if len(self.args) > index else None


class Hook:
    """One spec entry as installed in this process."""

    def __init__(self, entry: dict, captures: dict, befores: dict, is_idle=None, index: int = 0):
        self.entry = entry
        self.index = index  # position in the spec: compact call records name their hook by it
        self.symbol = entry["symbol"]
        self.role = entry["role"]
        self.path = entry.get("path", "")
        self.line = int(entry.get("line") or 0)
        self.end_line = int(entry.get("end_line") or 0)
        self.is_aggregate = bool(entry.get("aggregate"))
        self.is_step = bool(entry.get("step"))
        self.skip_none = bool(entry.get("skip_none"))
        self.has_gpu_time = "gpu_time" in entry.get("capture", ())
        self.has_nvtx = bool(entry.get("nvtx"))
        self.captures = captures  # name -> fn(Call)
        self.befores = befores  # name -> fn(Call) run before the call; its value lands in Call.before
        self.later = None  # (names, snapshot, values): captures the flusher computes (runtime._pick_later)
        self.is_idle = is_idle or _is_none  # skip_none: which results are idle polls (no record)
        self.at_pin = False
        self.run_line = 0
        self.run_path = ""
        self.is_installed = False
        self.is_disabled = False
        self.is_announced = False  # its "hook" record (static fields) is in this process's shard
        self.num_errors = 0
        self.last_error = ""
        self.num_calls = 0
        self.num_stale_calls = 0  # calls that reached the wrapper while it was detached (a kept reference)
        self.owner = None  # where the wrapper sits (class or module), the attribute, the original object there
        self.attr = ""
        self.original = None
        self.wrapper = None


def wrap(probe, hook: Hook, fn):
    """A wrapper with the signature of `fn` that records each call through `probe`. The hot path keeps to two
    clock reads, a frame pointer and one tuple; everything else happens in the flusher."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not probe.is_active or hook.is_disabled:
            if not probe.is_attached:
                hook.num_stale_calls += 1
            return fn(*args, **kwargs)
        caller = None if hook.is_aggregate else _getframe(1)  # aggregates keep no call site: cheaper
        if hook.is_step:
            probe.begin_step(hook)
        before = probe.take_before(hook, args, kwargs) if hook.befores else None
        timer = probe.gpu_start(hook) if hook.has_gpu_time else None
        if hook.has_nvtx and probe.nvtx_push(hook):
            try:
                t0 = monotonic_ns()
                result = fn(*args, **kwargs)
                t1 = monotonic_ns()
            finally:
                probe.nvtx_pop()
        else:
            t0 = monotonic_ns()
            result = fn(*args, **kwargs)
            t1 = monotonic_ns()
        if hook.skip_none and hook.is_idle(result):
            if hook.is_step:
                probe.undo_step(hook)
            return result
        probe.record(hook, args, kwargs, result, before, t0, t1, caller, timer)
        return result

    wrapper.__atlas_probe__ = hook
    return wrapper


def _is_none(result) -> bool:
    return result is None
