"""A hook as installed (Hook), what its captures see (Call), and what every wrapper shares: the call-site and
thread-id caches. The wrappers themselves (probes.wrappers) time the call, note the call site, run the captures
and hand one compact row of plain data to the probe (the flusher writes it as is; atlas expands it). A capture
that raises disables its hook (counted); the engine's call is never affected."""

from __future__ import annotations

import sys
import threading
import time

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


thread_ids: dict = {}  # threading ident -> native thread id (threading.get_native_id is a system call each time)

# (id of the caller's code object, instruction offset) -> (code, offset, file, line) of a call site. A frame's
# f_lineno walks the code's line table from its start (CPython 3.11+): ~5 us for a call 300 lines into a function;
# the hooks are called from a handful of places, each looked up once (and each wrapper keeps its last one). Keyed
# by id, as a code object hashes its contents; each entry holds its code object, so that id is not reused while
# the entry lives.
_sites: dict = {}
NO_SITE = (None, -1, "", 0)


def call_site(frame) -> tuple:
    """(code, offset, file, line) of where `frame` is now."""
    code, offset = frame.f_code, frame.f_lasti
    site = _sites.get((id(code), offset))
    if site is None:
        site = _sites[id(code), offset] = (code, offset, code.co_filename, frame.f_lineno)
    return site


def new_tid() -> int:
    """This thread's native id, remembered."""
    tid = thread_ids[get_ident()] = get_native_id()
    return tid


def hook_threads() -> dict:
    """threading ident -> native id of the threads that have recorded a call."""
    return dict(thread_ids)


def forget_threads() -> None:
    """After a fork: the child's threads have new native ids."""
    thread_ids.clear()


def _is_none(result) -> bool:
    return result is None
