"""The JSON edge of the query layer: any result (dataclasses, enums, tuples) as plain JSON data, the same for
`--format json` and the MCP server; properties a reader needs (counts, confidences) are written out too."""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

# properties of result types written beside their fields
DERIVED = {
    "SymbolView": ("num_targets", "num_callers"),
    "CallRow": ("is_fan_out", "confidence"),
    "CallPath": ("confidence", "joint"),
    "Hop": ("num_targets",),
    "ClaimRow": ("is_changed",),
    "ClaimTable": ("num_changed",),
    "Tree": ("num_symbols",),
    "Hit": ("is_near",),
}


def to_json(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
        for name in DERIVED.get(type(value).__name__, ()):
            out[name] = to_json(getattr(value, name))
        return out
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [to_json(v) for v in value]
        return sorted(items) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    return value
