"""Putting wrappers on the hooked symbols: now for modules already imported, else the moment the module's import
finishes (a meta-path finder), so a process patches only what it actually imports. `detach`/`attach` put the
original objects back and the wrappers on again (the 'absent' state: the engine's own code, no wrapper at all)."""

from __future__ import annotations

import importlib.abc
import inspect
import sys

from probes.hooks import Hook
from probes.wrappers import wrap


def resolve_owner(module, qualname: str):
    """(object holding the attribute, attribute name) for 'Class.method' or 'function'."""
    *outer, name = qualname.split(".")
    owner = module
    for part in outer:
        owner = getattr(owner, part)
    return owner, name


def patch(probe, module, hook: Hook) -> None:
    """Replace the hooked attribute by its wrapper; sets hook.is_installed, run_path/run_line, at_pin."""
    if hook.is_installed:
        return
    owner, name = resolve_owner(module, hook.entry["qualname"])
    raw = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
    kind = type(raw) if isinstance(raw, (staticmethod, classmethod)) else None
    fn = raw.__func__ if kind else raw
    code = getattr(inspect.unwrap(fn), "__code__", None)  # past decorators such as torch.inference_mode
    if code is not None:
        hook.run_path, hook.at_pin = probe.guard.locate(code.co_filename)
        hook.run_line = code.co_firstlineno
        hook.at_pin = hook.at_pin and hook.run_path == hook.path
    wrapper = wrap(probe, hook, fn)
    hook.owner, hook.attr, hook.original = owner, name, raw
    hook.wrapper = kind(wrapper) if kind else wrapper
    if probe.is_attached:
        setattr(owner, name, hook.wrapper)
    hook.is_installed = True


def detach(hook: Hook) -> None:
    """Put the engine's own object back (a no-op where something else has replaced the wrapper since)."""
    if hook.is_installed and _current(hook) is hook.wrapper:
        setattr(hook.owner, hook.attr, hook.original)


def attach(hook: Hook) -> None:
    if hook.is_installed and _current(hook) is hook.original:
        setattr(hook.owner, hook.attr, hook.wrapper)


def _current(hook: Hook):
    owner = hook.owner
    return owner.__dict__.get(hook.attr) if isinstance(owner, type) else getattr(owner, hook.attr, None)


class PatchFinder(importlib.abc.MetaPathFinder):
    """Finds nothing itself; wraps the real loader of a hooked module so that patching follows its execution."""

    def __init__(self, probe, targets: dict[str, list[Hook]]):
        self.probe = probe
        self.targets = targets

    def find_spec(self, fullname, path, target=None):
        if fullname not in self.targets:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        original = loader.exec_module
        probe, hooks = self.probe, self.targets[fullname]

        def exec_module(module):
            original(module)
            for hook in hooks:
                probe.try_patch(module, hook)

        loader.exec_module = exec_module
        return spec


def install(probe, hooks: list[Hook]) -> None:
    targets: dict[str, list[Hook]] = {}
    for hook in hooks:
        targets.setdefault(hook.entry["module"], []).append(hook)
    for name, module_hooks in targets.items():
        module = sys.modules.get(name)
        if module is not None:
            for hook in module_hooks:
                probe.try_patch(module, hook)
    sys.meta_path.insert(0, PatchFinder(probe, targets))
