"""`atlas diff --apply-suggestions`: write where each broken item's code went as an `at: {PIN_SET: ...}` entry of
the annotation or evidence item in its YAML file (ruamel round-trip: comments and layout kept), so the item keeps
resolving at the other pins. Only items with a suggestion are written; a re-run replaces the entry."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from ruamel.yaml.comments import CommentedMap

from atlas import yamlio
from atlas.diff.items import Broken
from atlas.errors import ConfigError


def apply_suggestions(root: Path, broken: list[Broken], pin_set: str) -> list[Broken]:
    """Write the suggestion of every broken item that has one, under `at: {pin_set: ...}`; returns those written."""
    by_file: dict[str, list[Broken]] = defaultdict(list)
    for item in broken:
        if item.hit is not None:
            by_file[item.file].append(item)
    applied = []
    for rel, group in sorted(by_file.items()):
        path = root / rel
        data = yamlio.load(path)
        entries = {e.get("id"): e for e in (data.get("annotations") or []) if hasattr(e, "get")}
        for item in group:
            entry = entries.get(item.annotation)
            if entry is None:
                raise ConfigError(f"{path}: annotation {item.annotation} not found; run atlas diff again")
            if not item.claim:
                _set_at(entry, pin_set, _anchor_entry(entry, item), after="anchor" if "anchor" in entry else "symbol")
            else:
                claim = next((c for c in entry.get("claims", []) if c.get("id") == item.claim), None)
                if claim is None or item.evidence > len(claim.get("evidence", [])):
                    raise ConfigError(f"{path}: {item.annotation}#{item.claim} evidence {item.evidence} not found; "
                                      "run atlas diff again")
                evidence = claim["evidence"][item.evidence - 1]
                _set_at(evidence, pin_set, _evidence_entry(entry, evidence, item), after=None)
            applied.append(item)
        yamlio.write_atomic(path, tidy(yamlio.dump(data)))
    return applied


def tidy(text: str) -> str:
    """A new `at:` block appended to a mapping lands after the blank line that closed the mapping (ruamel keeps
    that blank line with the previous key): put the blank line back after the block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines) - 1:
        if lines[i] == "" and lines[i + 1].strip() == "at:":
            indent = len(lines[i + 1]) - len(lines[i + 1].lstrip())
            end = i + 2
            while end < len(lines) and lines[end].strip() and len(lines[end]) - len(lines[end].lstrip()) > indent:
                end += 1
            lines[i:end] = lines[i + 1:end] + [""]
            i = end
        i += 1
    return "\n".join(lines)


def _anchor_entry(entry, item: Broken) -> CommentedMap:
    out = CommentedMap()
    if item.hit.symbol != entry["symbol"]:
        out["symbol"] = item.hit.symbol
    if item.hit.pattern:
        anchor = _flow({"pattern": item.hit.pattern})
        if item.hit.occurrence != 1:
            anchor["occurrence"] = item.hit.occurrence
        out["anchor"] = anchor
    return out


def _evidence_entry(entry, evidence, item: Broken) -> CommentedMap:
    out = _flow({})
    if item.hit.symbol != evidence.get("symbol", entry["symbol"]):
        out["symbol"] = item.hit.symbol
    if item.hit.pattern and item.hit.pattern != evidence.get("pattern"):
        out["pattern"] = item.hit.pattern
    if item.hit.occurrence != evidence.get("occurrence", 1):
        out["occurrence"] = item.hit.occurrence
    return out


def _flow(values: dict) -> CommentedMap:
    out = CommentedMap(values)
    out.fa.set_flow_style()
    return out


def _set_at(node, pin_set: str, value: CommentedMap, after: str | None) -> None:
    if not value:
        return
    if "at" not in node:
        keys = list(node)
        position = keys.index(after) + 1 if after in keys else len(keys)
        node.insert(position, "at", CommentedMap())
    node["at"][pin_set] = value
