"""The wrappers put on hooked methods. Each hook gets its own, generated from one template: only the lines its flags
need (step, CUDA timing, idle polls, capture, aggregate) and, for a plain function whose captures are LATER raws,
its own signature, so that a call with keywords is not packed into a dict and out again (~2 us a call when the CPU
caches are cold, as they are between two hooked calls of an engine step). Hooks with befores or NVTX ranges take
the general closure (`general_wrapper`); both record through the same Probe and shard."""

from __future__ import annotations

import functools
import inspect
import linecache
import types

from probes.hooks import (
    AGG_MAX_CALLS,
    NO_SITE,
    Hook,
    _getframe,
    call_site,
    get_ident,
    monotonic_ns,
    new_tid,
    thread_ids,
)
from probes.records import CALL

# The call wrapper, line by line. A line tagged `#: a b` is kept only where every tag holds for the hook (`!a`:
# where a does not): step (it counts engine steps: Probe.begin_step, inline for the step leader; with a duty cycle
# the off half counts them in Probe.duty_tick, and the call that turns a window on or off is the new window's
# first step), gpu (CUDA-event timing on every Nth call), idle (skip_none: idle polls leave no record), take (it
# has captures), agg (one row per step: its calls go to the step's list, opened by the step's first call and
# closed by the next step's leader, Probe.close_aggregates), pre (step or gpu: work before the call, counted in
# its own time). Everything it reads is a parameter of the factory or a name of NAMESPACE: closure cells and
# cached globals.
TEMPLATE = """\
def factory(probe, hook, fn, take, is_idle, shard, buffer, capacity, index{defaults}):
    last_site = NO_SITE

    def wrapper({params}):
        nonlocal last_site  #: !agg
        if hook.is_passing or not probe.is_active:
            if not probe.is_attached:
                hook.num_stale_calls += 1
            elif probe.duty_steps and not hook.is_passing and probe.step_leader in (hook, None) \\  #: step
                    and not probe.duty_tick(hook):  #: step
                result = fn({call})  #: step
                if is_idle(result):  #: step idle
                    probe.duty_untick(hook)  #: step idle
                return result  #: step
            if hook.is_passing or not probe.is_active:  #: step
                return fn({call})  #: step
            return fn({call})  #: !step
        e0 = monotonic_ns()  #: pre
        if probe.step_leader is hook:  #: step
            if probe.duty_steps:  #: step
                probe.duty_count += 1  #: step
                if probe.duty_count > probe.duty_steps:  #: step
                    probe.end_duty_window()  #: step
                    probe.duty_count = 1  #: step
                    return fn({call})  #: step
            probe.step += 1  #: step
            if probe.open_aggregates:  #: step
                probe.close_aggregates()  #: step
        elif probe.step_leader is None and probe.begin_step(hook):  #: step
            return fn({call})  #: step
        timer = None  #: gpu
        probe.gpu_calls = n = probe.gpu_calls + 1  #: gpu
        if probe.gpu_every and not n % probe.gpu_every:  #: gpu
            timer = probe.gpu_start(hook)  #: gpu
        t0 = monotonic_ns()
        result = fn({call})
        t1 = monotonic_ns()
        if is_idle(result):  #: idle
            probe.undo_step(hook)  #: idle step
            return result  #: idle
        values = None
        try:  #: take
            values = take({args}, {kwargs}, result, None)  #: take
        except Exception as exc:  #: take
            probe.fail(hook, exc)  #: take
            return result  #: take
        calls = hook.agg_calls  #: agg
        if calls is None:  #: agg
            calls = hook.agg_calls = []  #: agg
            hook.agg_step = probe.step  #: agg
            probe.open_aggregates.append(hook)  #: agg
        elif hook.agg_step != probe.step or len(calls) >= AGG_MAX_CALLS:  #: agg
            calls = probe.open_aggregate(hook)  #: agg
        calls.append((t0, t1 - t0, values))  #: agg
        hook.num_calls += 1  #: !agg
        probe.seq = seq = probe.seq + 1  #: !agg
        if timer is not None:  #: gpu
            probe.cuda.stop(seq, timer)  #: gpu
        size = len(buffer)  #: !agg
        if size < capacity:  #: !agg
            caller = _getframe(1)  #: !agg
            site = last_site  #: !agg
            if caller.f_code is not site[0] or caller.f_lasti != site[1]:  #: !agg
                site = last_site = call_site(caller)  #: !agg
            row = (CALL, index, seq, thread_ids.get(get_ident()) or new_tid(), t0, t1 - t0, probe.step,  #: !agg
                   site[2], site[3], values)  #: !agg
            buffer.append(probe.pack(row) if probe.is_packing else row)  #: !agg
            if size == shard.flush_rows:  #: !agg
                shard.wake.set()  #: !agg
        else:  #: !agg
            shard.num_dropped += 1  #: !agg
        hook.own_ns += monotonic_ns() - e0 - (t1 - t0)  #: pre
        hook.own_ns += monotonic_ns() - t1  #: !pre
        return result

    return wrapper
"""

NO_KWARGS = types.MappingProxyType({})  # what a capture sees as kwargs where the wrapper has the hook's signature
NAMESPACE = {
    "AGG_MAX_CALLS": AGG_MAX_CALLS,
    "CALL": CALL,
    "NO_SITE": NO_SITE,
    "NO_KWARGS": NO_KWARGS,
    "call_site": call_site,
    "get_ident": get_ident,
    "monotonic_ns": monotonic_ns,
    "new_tid": new_tid,
    "thread_ids": thread_ids,
    "_getframe": _getframe,
}
STAR = ("*args, **kwargs", "*args, **kwargs", "args", "kwargs", [])


def wrap(probe, hook: Hook, fn):
    """A wrapper with the signature of `fn` that records each call through `probe`."""
    if hook.befores or hook.has_nvtx or (hook.is_aggregate and (hook.is_step or hook.has_gpu_time or hook.skip_none)):
        wrapper = general_wrapper(probe, hook, fn)
    else:
        wrapper = generated_wrapper(probe, hook, fn)
    wrapper.__atlas_probe__ = hook
    return wrapper


def generated_wrapper(probe, hook: Hook, fn):
    """The template's wrapper for this hook (flags and signature), compiled, with its source in linecache so that
    tracebacks through it read."""
    flags = {
        "step": hook.is_step,
        "gpu": hook.has_gpu_time,
        "idle": hook.skip_none,
        "take": hook.take is not None,
        "agg": hook.is_aggregate,
        "pre": hook.is_step or hook.has_gpu_time,
    }
    # Call captures see the arguments as the caller passed them (one may read a keyword from kwargs); LATER raws
    # read each by position, else by name, so their hooks can take the hooked function's own signature.
    params, call, args, kwargs, defaults = (None if hook.captures else signature_parts(fn)) or STAR
    source = wrapper_source(flags, params, call, args, kwargs, len(defaults))
    filename = f"<atlas-probes wrapper of {hook.symbol}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(NAMESPACE)
    exec(compile(source, filename, "exec"), namespace)
    shard = probe.shard
    wrapper = namespace["factory"](
        probe, hook, fn, hook.take, hook.is_idle, shard, shard.buffer, shard.capacity, hook.index, *defaults
    )
    return functools.wraps(fn)(wrapper)


def wrapper_source(flags: dict, params: str, call: str, args: str, kwargs: str, num_defaults: int) -> str:
    """TEMPLATE with the lines whose tags hold for `flags` and the signature filled in."""
    kept = []
    for line in TEMPLATE.splitlines():
        code, _, tags = line.partition("  #: ")
        if all(not flags[t[1:]] if t.startswith("!") else flags[t] for t in tags.split()):
            kept.append(code)
    defaults = "".join(f", _d{i}" for i in range(num_defaults))
    return "\n".join(kept).format(params=params, call=call, args=args, kwargs=kwargs, defaults=defaults) + "\n"


def signature_parts(fn) -> tuple | None:
    """(parameters, call arguments, args tuple, kwargs mapping, default values) for the wrapper's source from a
    plain function's own signature; None (the *args, **kwargs form) for anything else: a builtin, a function that
    declares another signature (__signature__, or __wrapped__ by a decorator, which may take other arguments than
    what it wraps), or one with a parameter the template's names would shadow."""
    if not isinstance(fn, types.FunctionType) or hasattr(fn, "__signature__") or hasattr(fn, "__wrapped__"):
        return None
    sig = inspect.signature(fn, follow_wrapped=False)
    if any(name in _RESERVED or name.startswith("_d") for name in sig.parameters):
        return None
    params, call, positional, keywords, defaults = [], [], [], [], []
    star, var_kw, seen_kw_only = "", "", False
    kinds = inspect.Parameter
    for p in sig.parameters.values():
        text = p.name
        if p.default is not kinds.empty:
            text += f"=_d{len(defaults)}"
            defaults.append(p.default)
        if p.kind is kinds.POSITIONAL_ONLY or p.kind is kinds.POSITIONAL_OR_KEYWORD:
            call.append(p.name)
            positional.append(p.name)
        elif p.kind is kinds.VAR_POSITIONAL:
            text = star = f"*{p.name}"
            call.append(star)
        elif p.kind is kinds.KEYWORD_ONLY:
            if not star and not seen_kw_only:
                params.append("*")
            seen_kw_only = True
            call.append(f"{p.name}={p.name}")
            keywords.append(p.name)
        else:
            text = var_kw = f"**{p.name}"
            call.append(var_kw)
        params.append(text)
        if p.kind is kinds.POSITIONAL_ONLY and _last_positional_only(sig, p):
            params.append("/")
    args = "(" + "".join(f"{n}, " for n in positional) + (f"{star}, " if star else "") + ")"
    kw = ", ".join([f"{n!r}: {n}" for n in keywords] + ([var_kw] if var_kw else []))
    return ", ".join(params), ", ".join(call), args, "{" + kw + "}" if kw else "NO_KWARGS", defaults


def _last_positional_only(sig, param) -> bool:
    names = [p.name for p in sig.parameters.values() if p.kind is inspect.Parameter.POSITIONAL_ONLY]
    return names[-1] == param.name


def _template_names() -> frozenset:
    """Every name the template's code uses (locals, cells, globals, attributes), in both its call and aggregate
    forms: a hooked function's parameter of one of these names would shadow it."""
    names, todo = set(NAMESPACE), []
    for agg in (False, True):
        flags = {"step": not agg, "gpu": not agg, "idle": not agg, "take": True, "agg": agg, "pre": not agg}
        todo.append(compile(wrapper_source(flags, *STAR[:4], 0), "<template>", "exec"))
    while todo:
        code = todo.pop()
        names.update(code.co_varnames, code.co_cellvars, code.co_freevars, code.co_names)
        todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return frozenset(names - {"args", "kwargs"})


_RESERVED = _template_names()


def general_wrapper(probe, hook: Hook, fn):
    """Hooks with befores or NVTX ranges (and aggregated hooks with step, timing or idle polls): every branch,
    taken per call from the hook's settings (read once, here)."""
    shard = probe.shard
    buffer, capacity, index = shard.buffer, shard.capacity, hook.index
    is_step, has_befores, has_gpu_time, has_nvtx = hook.is_step, bool(hook.befores), hook.has_gpu_time, hook.has_nvtx
    skip_none, is_idle, take, is_aggregate = hook.skip_none, hook.is_idle, hook.take, hook.is_aggregate

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if hook.is_passing or not probe.is_active:
            if not probe.is_attached:
                hook.num_stale_calls += 1
            elif (
                is_step
                and probe.duty_steps
                and not hook.is_passing
                and probe.step_leader in (hook, None)
                and not probe.duty_tick(hook)
            ):
                result = fn(*args, **kwargs)  # duty cycling: the off half counts steps
                if skip_none and is_idle(result):
                    probe.duty_untick(hook)
                return result
            if hook.is_passing or not probe.is_active:  # (a window that turned on with this call records it)
                return fn(*args, **kwargs)
        if is_step and probe.begin_step(hook):  # a window that turned off with this call passes it through
            return fn(*args, **kwargs)
        e0 = monotonic_ns()
        t0 = t1 = 0
        try:
            before = probe.take_before(hook, args, kwargs) if has_befores else None
            timer = None
            if has_gpu_time:
                probe.gpu_calls = n = probe.gpu_calls + 1
                if probe.gpu_every and not n % probe.gpu_every:
                    timer = probe.gpu_start(hook)
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
                site = call_site(_getframe(1))
                row = (
                    CALL,
                    index,
                    seq,
                    thread_ids.get(get_ident()) or new_tid(),
                    t0,
                    t1 - t0,
                    probe.step,
                    site[2],
                    site[3],
                    values,
                )
                buffer.append(probe.pack(row) if probe.is_packing else row)
                if size == shard.flush_rows:
                    shard.wake.set()
            else:
                shard.num_dropped += 1
            return result
        finally:  # the probe's own time on this thread: the wrapper's less the engine's call (0 if that raised)
            if t1:
                hook.own_ns += monotonic_ns() - e0 - (t1 - t0)

    return wrapper
