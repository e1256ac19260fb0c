"""Capture functions per framework (probes/captures/<framework>.py), reading the engine's objects defensively.

- CAPTURES: qualname -> {name -> fn(Call)}, one value each, on the engine thread: for hooks that fire now and then.
- BEFORES: the same, run before the call; the values land in Call.before.
- LATER: qualname -> (names, raw(args, kwargs, result, before) -> plain data, values(raw) -> {name: value}): the form
  for the hooks that fire every step or once per request in a step. raw is one call on the engine thread, with no
  Call object, taking plain data (counts, copies, references to objects the engine no longer changes) and
  reading each argument by position, else by name (the wrapper may hand keywords over by position: it can take
  the hooked function's own signature); values runs offline in atlas.runtime.merge and says what the record holds.
- IDLE: qualname -> fn(result): which results of a skip_none hook are idle polls (no record).
`GENERIC` holds captures every hook accepts."""

from __future__ import annotations

import importlib

from probes.schema import CAPTURES as NAMED


def fail(call):
    """Fault injection for tests: a capture that always raises (the probe must disable the hook, not the engine)."""
    raise RuntimeError("atlas probe fault injection: capture 'fail' raises by design")


GENERIC = {"fail": fail}


def tables(framework: str):
    """The capture module of a framework; None for an engine atlas has no captures for (generic captures only)."""
    try:
        return importlib.import_module(f"probes.captures.{framework}")
    except ModuleNotFoundError:
        return None


def for_hook(module, entry: dict) -> tuple[dict, dict, object, tuple | None]:
    """(captures, befores, is_idle or None, later) of one spec entry, from a framework's capture module."""
    if module is None:
        return _pick({}, entry), {}, None, None
    qualname = entry["qualname"]
    return (
        _pick(module.CAPTURES, entry),
        _pick(module.BEFORES, entry),
        getattr(module, "IDLE", {}).get(qualname),
        _pick_later(getattr(module, "LATER", {}), entry),
    )


def later_values(framework: str, qualname: str):
    """The offline half of a LATER capture: values(raw) -> dict (atlas.runtime.merge calls it)."""
    return tables(framework).LATER[qualname][2]


def _pick(table: dict, entry: dict) -> dict:
    """The captures a spec entry asks for, plus the hook's own extras (names outside schema.CAPTURES, such as the
    commit's `new_tokens`), which the summary needs whatever the spec says."""
    wanted = set(entry.get("capture", ()))
    found = {**GENERIC, **table.get(entry["qualname"], {})}
    return {name: fn for name, fn in found.items() if name in wanted or (name not in NAMED and name not in GENERIC)}


def _pick_later(table: dict, entry: dict):
    """(names kept, raw, values) where the hook wants any of the names (extras outside schema.CAPTURES are always
    kept, as in _pick); None otherwise."""
    found = table.get(entry["qualname"])
    if found is None:
        return None
    names, raw, values = found
    wanted = set(entry.get("capture", ()))
    keep = frozenset(n for n in names if n in wanted or n not in NAMED)
    return (keep, raw, values) if keep & wanted else None
