"""The probe's control file (spec `control`): the state the probe runs in and the options for measuring what it
costs (parse_control), polled by the flusher and applied to the probe (ControlFile, apply); `control_problems` is
what `atlas trace` checks a control text against."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from probes.hooks import Hook

if TYPE_CHECKING:
    from probes.runtime import Probe

STATES = ("on", "off", "absent")  # control file: probes recording / wrappers passing through / wrappers removed

# The control file's options and the values each takes (None: any text, such as skip's list of hooks; "N": a
# whole number). parse_control ignores anything else; atlas refuses it up front (control_problems).
CONTROL_OPTIONS = {
    "skip": None,
    "gpu": ("0", "1"),
    "write": ("0", "1"),
    "pack": ("0", "1"),
    "wake": ("0", "1"),
    "duty": "N",
}


def control_problems(text: str) -> list[str]:
    """The words of a control text that parse_control would ignore or misread: an unknown state or option, an
    option without a value or with a value it does not take."""
    state, *words = text.split() or [""]
    problems = [] if state in STATES else [state or "(no state)"]
    for word in words:
        name, has_value, value = word.partition("=")
        allowed = CONTROL_OPTIONS.get(name, ())
        if (
            not has_value
            or allowed == ()
            or (allowed == "N" and not value.isdigit())
            or (isinstance(allowed, tuple) and value not in allowed)
        ):
            problems.append(word)
    return problems


def parse_control(text: str) -> tuple[str, frozenset, bool, bool, bool, bool, int]:
    """(state, hooks to leave absent, CUDA timing on, writing on, rows packed on the hot path, the hot path waking
    the flusher, duty-cycle steps) from the control file's text, e.g. `on skip=Scheduler.update_from_output gpu=0
    write=0 pack=1 wake=0 duty=100`. Unknown words are ignored (a probe never fails on its control file); an
    unknown state reads as 'on'."""
    words = text.split()
    state = words[0] if words and words[0] in STATES else "on"
    options = dict(w.split("=", 1) for w in words[1:] if "=" in w)
    skip = frozenset(filter(None, options.get("skip", "").split(",")))
    duty = options.get("duty", "0")
    return (
        state,
        skip,
        options.get("gpu", "1") != "0",
        options.get("write", "1") != "0",
        options.get("pack", "0") == "1",
        options.get("wake", "1") != "0",
        int(duty) if duty.isdigit() else 0,
    )


def names_hook(names: frozenset, hook: Hook) -> bool:
    """Whether `names` names the hook: its qualname or its full symbol."""
    return bool(names) and (hook.entry.get("qualname") in names or hook.symbol in names)


class ControlFile:
    """The control file the flusher polls (spec `control`): its path, when it last changed, and its last text (the
    probe state the sampler's counts belong to)."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.mtime = 0.0
        self.text = text

    def poll(self, probe: Probe) -> None:
        if not self.path:
            return
        try:
            mtime = os.stat(self.path).st_mtime
            if mtime != self.mtime:
                self.mtime = mtime
                with open(self.path, encoding="utf-8") as f:
                    apply(probe, f.read().strip())
        except OSError:
            pass


def apply(probe: Probe, text: str) -> None:
    """'on' records; 'off' leaves the wrappers passing straight through; 'absent' puts the engine's own functions
    back (no wrapper on any hooked path: the probe-free baseline, in the same process). After the state, options for
    measuring what the probe costs (parse_control): `skip=A,B` leaves those hooks absent, `gpu=0` stops CUDA-event
    timing, `write=0` keeps rows in memory instead of writing them, `pack=1` marshals rows on the engine thread,
    `wake=0` leaves the flusher to its interval, `duty=N` alternates on and off every N engine steps (probes.duty)."""
    from probes import patch

    probe.add_samples()  # samples taken so far belong to the state that ends here
    probe.control.text = text
    state, skip, gpu, write, pack, wake, duty = parse_control(text)
    attached = state != "absent"
    if not attached:
        probe.is_active = False
    for hook in probe.hooks:
        keep = attached and not names_hook(skip, hook)
        (patch.attach if keep else patch.detach)(hook)
        hook.is_passing = hook.is_disabled or not keep
    probe.is_attached = attached
    probe.gpu_every = probe.spec_gpu_every if gpu else 0
    shard = probe.shard
    shard.is_writing = write
    shard.flush_rows = shard.wake_rows if wake else -1
    probe.is_packing = pack
    if write:
        shard.wake.set()
    probe.is_active = state not in ("off", "absent")
    probe.duty_steps = duty if state == "on" else 0
    probe.duty_count = 0
    probe.duty.restart(text, probe.own_ns)
