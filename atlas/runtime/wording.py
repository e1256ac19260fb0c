"""Figures as a person reads them in the CLI, the site and the results files: counts by name and lists of values in
words, never a Python repr."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def counts_text(counts: Mapping[str, int | float]) -> str:
    """{'DECODE': 3, 'EXTEND': 1} -> 'DECODE 3, EXTEND 1' (largest first); 'none' when empty."""
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))) or "none"


def values_text(values: Iterable[object]) -> str:
    """[128, 0, 64] -> '128, 0, 64'; 'none' when empty."""
    return ", ".join(str(v) for v in values) or "none"
