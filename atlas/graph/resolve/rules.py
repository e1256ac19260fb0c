"""Dispatch rules of the call resolver: calls the source alone cannot follow, given as data per framework under
`dispatch:` in atlas/data/components/<framework>.yaml (that file's hash is part of the build key).

- `by_name`: a call of a method named `call` whose first argument (or keyword `argument`) is a string literal runs
  the method of that name on the listed classes and their subclasses, e.g. `collective_rpc("execute_model")` on every
  worker. Edges: STRING_DISPATCH.
- `instances`: an attribute that holds, at run time, instances of the listed classes, chosen by configuration (the
  model the loader builds from the checkpoint's architecture name). Calls through them: DISPATCH."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from atlas import yamlio
from atlas.errors import ConfigError


@dataclass(frozen=True, slots=True)
class ByName:
    call: str  # the method name as called, e.g. "collective_rpc"
    argument: str  # the keyword that may carry the name instead of the first positional argument
    classes: tuple[str, ...]  # class ids whose method of that name (or a subclass's override) runs


@dataclass(frozen=True, slots=True)
class Instances:
    attribute: str  # "<class id>.<attribute>"
    classes: tuple[str, ...]  # the classes whose instances it may hold


@dataclass(frozen=True, slots=True)
class DispatchRules:
    by_name: tuple[ByName, ...] = ()
    instances: tuple[Instances, ...] = ()


def load(path: Path) -> DispatchRules:
    """The `dispatch:` section of a component file (none: no rules); a malformed rule is a ConfigError at file:line."""
    if not path.exists():
        return DispatchRules()
    data = yamlio.load(path)
    section = data.get("dispatch") if isinstance(data, dict) else None
    if section is None:
        return DispatchRules()
    if not isinstance(section, dict) or set(section) - {"by_name", "instances"}:
        raise ConfigError(f"{path}:{_line(data, 'dispatch')}: `dispatch:` holds `by_name:` and `instances:` lists")
    by_name = tuple(
        ByName(r["call"], r.get("argument", "method"), tuple(r["classes"]))
        for r in _rules(path, section, "by_name", ("call", "classes"), ("argument",))
    )
    instances = tuple(
        Instances(r["attribute"], tuple(r["classes"]))
        for r in _rules(path, section, "instances", ("attribute", "classes"), ())
    )
    return DispatchRules(by_name, instances)


def _rules(path: Path, section: dict, name: str, required: tuple[str, ...], optional: tuple[str, ...]) -> list:
    rules = section.get(name) or []
    if not isinstance(rules, list):
        raise ConfigError(f"{path}:{_line(section, name)}: `{name}:` is a list of rules")
    for n, rule in enumerate(rules):
        line = rules.lc.item(n)[0] + 1 if hasattr(rules, "lc") else 0
        keys = set(rule) if isinstance(rule, dict) else set()
        if (
            not isinstance(rule, dict)
            or set(required) - keys
            or keys - set(required) - set(optional)
            or not (isinstance(rule["classes"], list) and all(isinstance(c, str) for c in rule["classes"]))
        ):
            fields = ", ".join([*required, *(f"{o} (optional)" for o in optional)])
            raise ConfigError(f"{path}:{line}: a `{name}` rule has {fields}; `classes` is a list of class ids")
    return rules


def _line(mapping, key: str) -> int:
    return mapping.lc.key(key)[0] + 1 if hasattr(mapping, "lc") else 0
