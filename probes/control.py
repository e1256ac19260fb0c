"""The probe's control file (spec `control`): the state the probe runs in and the options for measuring what it
costs, as Probe.set_state reads them; `control_problems` is what `atlas trace` checks a control text against."""

from __future__ import annotations

from probes.hooks import Hook

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
