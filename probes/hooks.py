"""The wrapper put on each hooked method: times the call, notes the call site, runs the captures, and hands one
compact row of plain data to the probe (the flusher writes it as is; atlas expands it). A capture that raises
disables its hook (counted); the engine's call is never affected."""

from __future__ import annotations

import functools
import sys
import threading
import time

from probes.records import CALL

monotonic_ns = time.monotonic_ns
time_ns = time.time_ns
get_ident = threading.get_ident
get_native_id = threading.get_native_id
_getframe = sys._getframe


class Call:
    """What a capture sees: the hooked call's receiver, arguments, result and the values taken before the call."""

    __slots__ = ("self", "args", "kwargs", "result", "before")

    def __init__(self, args, kwargs, result, before):
        self.self = args[0] if args else None
        self.args = args
        self.kwargs = kwargs
        self.result = result
        self.before = before

    def arg(self, index: int, name: str):
        """A positional-or-keyword argument (index counts `self` as 0)."""
        return arg(self.args, self.kwargs, index, name)


def arg(args: tuple, kwargs: dict, index: int, name: str):
    """A positional-or-keyword argument of a hooked call (index counts `self` as 0)."""
    if name in kwargs:
        return kwargs[name]
    return args[index] if len(args) > index else None


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
        self.captures = captures  # name -> fn(Call); a row's values are theirs, in this order
        self.befores = befores  # name -> fn(Call) run before the call; its value lands in Call.before
        self.later = None  # (names kept, raw(args, kwargs, result, before), values(raw)): values made offline
        self.take = None  # (args, kwargs, result, before) -> the row's values (make_hook); None without captures
        self.agg_calls: list | None = None  # aggregated hooks: (mono_ns, dur_ns, values) of this step's calls
        self.agg_step = -1  # the step agg_calls belong to
        self.is_idle = is_idle or _is_none  # skip_none: which results are idle polls (no record)
        self.at_pin = False
        self.run_line = 0
        self.run_path = ""
        self.is_installed = False
        self.is_disabled = False  # a capture raised: passing through for the rest of the run
        self.is_passing = False  # passing through: disabled, or left out by the control file (skip=)
        self.num_errors = 0
        self.last_error = ""
        self.num_calls = 0
        self.own_ns = 0  # the wrapper's own time over its recorded calls (less the engine's call)
        self.num_stale_calls = 0  # calls that reached the wrapper while it was detached (a kept reference)
        self.owner = None  # where the wrapper sits (class or module), the attribute, the original object there
        self.attr = ""
        self.original = None
        self.wrapper = None


def make_hook(entry: dict, captures: dict, befores: dict, is_idle, later, index: int) -> Hook:
    """A Hook with its `take`: the captures' values in order, then the LATER raw bundle; the bundle alone when the
    hook has no other captures (schema.CALL_ROW), with no Call object made: the per-step hot path."""
    hook = Hook(entry, captures, befores, is_idle, index)
    hook.later = later
    fns = tuple(captures.values())
    raw = later[1] if later else None
    if raw is not None and not fns:
        hook.take = raw
    elif fns:
        def take(args, kwargs, result, before):
            call = Call(args, kwargs, result, before)
            values = [f(call) for f in fns]
            if raw is not None:
                values.append(raw(args, kwargs, result, before))
            return values

        hook.take = take
    return hook


AGG_MAX_CALLS = 4096  # an aggregated row closes after this many calls even within a step: memory stays bounded


def wrap(probe, hook: Hook, fn):
    """A wrapper with the signature of `fn` that records each call through `probe`."""
    if hook.is_aggregate and not (hook.is_step or hook.befores or hook.has_gpu_time or hook.has_nvtx
                                  or hook.skip_none):
        wrapper = _aggregate_wrapper(probe, hook, fn)
    else:
        wrapper = _call_wrapper(probe, hook, fn)
    wrapper.__atlas_probe__ = hook
    return wrapper


def _call_wrapper(probe, hook: Hook, fn):
    """The general wrapper. The hot path keeps to two clock reads, the captures and one row of plain data appended
    to the shard's buffer (schema.CALL_ROW); a full buffer drops the row and counts it. A hook's static settings
    are read once, here, not per call."""
    shard = probe.shard
    buffer, capacity, index = shard.buffer, shard.capacity, hook.index
    is_step, has_befores, has_gpu_time, has_nvtx = hook.is_step, bool(hook.befores), hook.has_gpu_time, hook.has_nvtx
    skip_none, is_idle, take, is_aggregate = hook.skip_none, hook.is_idle, hook.take, hook.is_aggregate

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not probe.is_active or hook.is_passing:
            if not probe.is_attached:
                hook.num_stale_calls += 1
            elif is_step and probe.duty_steps and not hook.is_passing:  # duty cycling: the off half counts steps
                probe.duty_tick(hook)
                result = fn(*args, **kwargs)
                if skip_none and is_idle(result):
                    probe.duty_untick(hook)
                return result
            return fn(*args, **kwargs)
        e0 = monotonic_ns()
        t0 = t1 = 0
        try:
            if is_step:
                probe.begin_step(hook)
            before = probe.take_before(hook, args, kwargs) if has_befores else None
            timer = probe.gpu_start(hook) if has_gpu_time else None
            if has_nvtx and probe.nvtx_push(hook):
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
            if skip_none and is_idle(result):
                if is_step:
                    probe.undo_step(hook)
                return result
            if hook.is_passing:  # a before-capture raised (or the control file left the hook out meanwhile)
                return result
            values = None
            if take is not None:
                try:
                    values = take(args, kwargs, result, before)
                except Exception as exc:
                    probe.fail(hook, exc)
                    return result
            if is_aggregate:
                probe.aggregate(hook, t0, t1, values)
                return result
            hook.num_calls += 1
            probe.seq = seq = probe.seq + 1
            if timer is not None:
                probe.cuda.stop(seq, timer)
            size = len(buffer)
            if size < capacity:
                caller = _getframe(1)
                site = _sites.get((id(caller.f_code), caller.f_lasti)) or _new_site(caller)
                row = (CALL, index, seq, _tids.get(get_ident()) or _new_tid(), t0, t1 - t0, probe.step, site[0],
                       site[1], values)
                buffer.append(probe.pack(row) if probe.is_packing else row)
                if size == shard.flush_rows:
                    shard.wake.set()
            else:
                shard.num_dropped += 1
            return result
        finally:  # the probe's own time on this thread: the wrapper's less the engine's call (0 if that raised)
            if t1:
                own = monotonic_ns() - e0 - (t1 - t0)
                probe.own_ns += own
                hook.own_ns += own

    return wrapper


def _aggregate_wrapper(probe, hook: Hook, fn):
    """Per-request hot paths: no call site, and each call only appends (start, duration, values) to its step's
    list; count, sums and concatenations are made offline."""
    take = hook.take

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not probe.is_active or hook.is_passing:
            if not probe.is_attached:
                hook.num_stale_calls += 1
            return fn(*args, **kwargs)
        t0 = monotonic_ns()
        result = fn(*args, **kwargs)
        t1 = monotonic_ns()
        if take is None:
            values = None
        else:
            try:
                values = take(args, kwargs, result, None)
            except Exception as exc:
                probe.fail(hook, exc)
                return result
        calls = hook.agg_calls
        if hook.agg_step != probe.step or len(calls) >= AGG_MAX_CALLS:
            calls = probe.open_aggregate(hook)
        calls.append((t0, t1 - t0, values))  # counted into hook.num_calls when the row closes
        own = monotonic_ns() - t1  # the probe's own time (entry: one clock read, left out)
        probe.own_ns += own
        hook.own_ns += own
        return result

    return wrapper


_tids: dict = {}  # threading ident -> native thread id (threading.get_native_id is a system call each time)

# (id of the caller's code object, instruction offset) -> (file, line, the code object) of a call site. A frame's
# f_lineno walks the code's line table from its start (CPython 3.11+): ~5 us for a call 300 lines into a function;
# the hooks are called from a handful of places, each looked up once. Keyed by id, as a code object hashes its
# contents; each entry holds its code object, so that id is not reused while the entry lives.
_sites: dict = {}


def _new_site(frame) -> tuple:
    code = frame.f_code
    site = _sites[id(code), frame.f_lasti] = (code.co_filename, frame.f_lineno, code)
    return site


def _new_tid() -> int:
    tid = _tids[get_ident()] = get_native_id()
    return tid


def hook_threads() -> dict:
    """threading ident -> native id of the threads that have recorded a call."""
    return dict(_tids)


def forget_threads() -> None:
    """After a fork: the child's threads have new native ids."""
    _tids.clear()


def _is_none(result) -> bool:
    return result is None
