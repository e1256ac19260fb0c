"""Components: which part of an engine a symbol belongs to (scheduler, KV-cache manager, model runner, ...).

Rules are data, one YAML file per framework in atlas/data/components/: an ordered list of
`{component: NAME, match: [glob, ...]}` over dotted symbol ids; the first rule with a matching glob wins."""

from __future__ import annotations

import fnmatch
import hashlib
import re
from functools import lru_cache
from pathlib import Path

from atlas import yamlio
from atlas.errors import ConfigError

DATA = Path(__file__).resolve().parents[1] / "data" / "components"


def rules_path(framework: str) -> Path:
    return DATA / f"{framework}.yaml"


def rules_version(framework: str) -> str:
    path = rules_path(framework)
    return hashlib.sha1(path.read_bytes()).hexdigest()[:12] if path.exists() else "none"


@lru_cache(maxsize=8)
def rules(framework: str) -> tuple[tuple[str, re.Pattern], ...]:
    """(component, compiled pattern) pairs in order; no file means no components."""
    path = rules_path(framework)
    if not path.exists():
        return ()
    data = yamlio.load(path)
    if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
        raise ConfigError(f"{path}:1: a component file holds `rules:`, a list of {{component, match: [glob]}}")
    out = []
    for n, rule in enumerate(data["rules"], 1):
        if (
            not isinstance(rule, dict)
            or not isinstance(rule.get("component"), str)
            or not isinstance(rule.get("match"), list)
        ):
            raise ConfigError(f"{path}: rule {n} needs `component: NAME` and `match: [glob, ...]`")
        pattern = "|".join(fnmatch.translate(g) for g in rule["match"])
        out.append((rule["component"], re.compile(pattern)))
    return tuple(out)


def component_of(framework: str, symbol_id: str) -> str:
    match = _combined(framework).match(symbol_id)
    return rules(framework)[int(match.lastgroup[1:])][0] if match else ""


@lru_cache(maxsize=8)
def _combined(framework: str) -> re.Pattern:
    """All rules as one pattern, one named group per rule in order: the first rule that matches is the group the
    match ends in (alternatives are tried left to right), found in one scan instead of one per rule."""
    found = rules(framework)
    if not found:
        return re.compile(r"(?!)")
    return re.compile("|".join(f"(?P<r{i}>{pattern.pattern})" for i, (_, pattern) in enumerate(found)))
