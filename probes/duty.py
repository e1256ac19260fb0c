"""Duty cycling (control option duty=N): the probe on and off in turns of N engine steps within one run, so that on
and off are compared over neighbouring fractions of a second, under the same load and machine speed. The wrappers
read the probe's `duty_steps` and `duty_count` on the hot path; the window's bookkeeping lives here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from probes.hooks import Hook, monotonic_ns
from probes.records import record

if TYPE_CHECKING:
    from probes.runtime import Probe


class DutyWindow:
    """The window now running: when it began, the control text it belongs to, the probe's own time at its start."""

    __slots__ = ("begin_ns", "state", "own_ns")

    def __init__(self) -> None:
        self.begin_ns = 0
        self.state = ""
        self.own_ns = 0

    def restart(self, state: str, own_ns: int) -> None:
        self.begin_ns, self.state, self.own_ns = monotonic_ns(), state, own_ns


def tick(probe: Probe, hook: Hook) -> bool:
    """A step hook's call while the duty cycle is off: the step leader's calls count the window's steps, and every
    `duty_steps` steps the window ends (end_window). True when the window turned on with this call: it records, the
    on window's first step (Probe.begin_step counts it)."""
    if probe.step_leader is None:
        probe.step_leader = hook
    if hook is not probe.step_leader:
        return False
    probe.duty_count += 1
    if probe.duty_count <= probe.duty_steps:
        return False
    end_window(probe)
    return True


def end_window(probe: Probe) -> None:
    """Write the window that ended (its state, span, steps and the probe's own time in it) and flip; the call that
    ended it is the next window's first step, counted by the path it takes in that state."""
    window, now, own = probe.duty, monotonic_ns(), probe.own_ns
    probe.shard.add(
        record(
            "window",
            probe.pid,
            on=probe.is_active,
            begin_ns=window.begin_ns,
            end_ns=now,
            steps=probe.duty_steps,
            state=window.state,
            own_ns=own - window.own_ns,
        )
    )
    window.begin_ns, window.own_ns = now, own
    probe.duty_count = 0
    probe.is_active = not probe.is_active


def untick(probe: Probe, hook: Hook) -> None:
    """The step leader's call was an idle poll (skip_none): not a step."""
    if hook is probe.step_leader and probe.duty_count > 1:
        probe.duty_count -= 1
