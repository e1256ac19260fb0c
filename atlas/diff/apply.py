"""`atlas diff --apply-suggestions`: write where each broken item's code went as an `at: {PIN_SET: ...}` entry of
the annotation or evidence item in its YAML file (ruamel round-trip: comments and layout kept), so the item keeps
resolving at the other pins. Only items with a suggestion are written; a re-run replaces the entry. The new texts
are made first and written together (atlas.journal), with the manifest when `atlas pin` moves the pin."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from ruamel.yaml.comments import CommentedMap

from atlas import journal, yamlio
from atlas.diff.items import Broken
from atlas.errors import ConfigError


def apply_suggestions(root: Path, broken: list[Broken], pin_set: str, other_sets: tuple[str, ...] = ()) -> list[Broken]:
    """Write the suggestion of every broken item that has one (`suggested_texts`), every file in one go
    (atlas.journal); returns the items written."""
    texts, applied = suggested_texts(root, broken, pin_set, other_sets)
    journal.commit(root, texts)
    return applied


def suggested_texts(
    root: Path, broken: list[Broken], pin_set: str, other_sets: tuple[str, ...] = ()
) -> tuple[dict[Path, str], list[Broken]]:
    """The new text of each annotation file holding a broken item that has a suggestion, with that suggestion under
    `at: {pin_set: ...}`, and the items so written; nothing is written. For the `default` set (`atlas pin` moving
    it) the fields themselves are rewritten, and the old values are kept as `at:` entries of `other_sets` that had
    none, so those pins keep resolving as before."""
    by_file: dict[str, list[Broken]] = defaultdict(list)
    for item in broken:
        if item.hit is not None:
            by_file[item.file].append(item)
    applied = []
    texts: dict[Path, str] = {}
    for rel, group in sorted(by_file.items()):
        path = root / rel
        original = path.read_text(encoding="utf-8")
        text = _rewrite_text(path, original, group) if pin_set == "default" else original
        data = yamlio.parse(text.encode("utf-8"), path)
        entries = {e.get("id"): e for e in (data.get("annotations") or []) if hasattr(e, "get")}
        for item in group:
            entry = entries.get(item.annotation)
            if entry is None:
                raise ConfigError(f"{path}: annotation {item.annotation} not found; run atlas diff again")
            if pin_set == "default":
                _rewrite_default(entry, item, other_sets)
            elif not item.claim:
                _set_at(entry, pin_set, _anchor_entry(entry, item), after="anchor" if "anchor" in entry else "symbol")
            else:
                claim = next((c for c in entry.get("claims", []) if c.get("id") == item.claim), None)
                if claim is None or item.evidence > len(claim.get("evidence", [])):
                    raise ConfigError(
                        f"{path}: {item.annotation}#{item.claim} evidence {item.evidence} not found; "
                        "run atlas diff again"
                    )
                evidence = claim["evidence"][item.evidence - 1]
                _set_at(evidence, pin_set, _evidence_entry(entry, evidence, item), after=None)
            applied.append(item)
        text = tidy(yamlio.dump(data))
        if text != original:
            texts[path] = text
    return texts, applied


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
            lines[i:end] = lines[i + 1 : end] + [""]
            i = end
        i += 1
    return "\n".join(lines)


def _rewrite_text(path: Path, text: str, group: list[Broken]) -> str:
    """`text` (the file at `path`) with the default's changed scalars replaced on their own lines, as text, so
    quoting, comments and alignment stay exactly as written; whatever cannot be replaced so is left for the
    round-trip writer."""
    data = yamlio.parse(text.encode("utf-8"), path)
    lines = text.splitlines(keepends=True)
    entries = {e.get("id"): e for e in (data.get("annotations") or []) if hasattr(e, "get")}
    for item in group:
        entry = entries.get(item.annotation)
        if entry is None:
            continue
        edits = []
        if not item.claim:
            edits.append((entry, "symbol", item.symbol, item.hit.symbol))
            if item.hit.pattern and "anchor" in entry:
                edits.append((entry["anchor"], "pattern", item.pattern, item.hit.pattern))
        else:
            claim = next((c for c in entry.get("claims", []) if c.get("id") == item.claim), None)
            node = claim["evidence"][item.evidence - 1] if claim else None
            if node is not None:
                pairs = (("symbol", item.symbol, item.hit.symbol), ("pattern", item.pattern, item.hit.pattern))
                edits += [(node, key, old, new) for key, old, new in pairs if key in node]
        for node, key, old, new in edits:
            line = node.lc.value(key)[0]
            if old != new and old and new and '"' not in new and old in lines[line]:
                lines[line] = lines[line].replace(old, new, 1)
    return "".join(lines)


def _rewrite_default(entry, item: Broken, other_sets: tuple[str, ...]) -> None:
    """The default pin moved: its own fields take the suggestion (only the changed values, so comments stay), and
    pin sets without an entry of their own keep the old values under `at:`."""
    old = CommentedMap({"symbol": item.symbol})  # the item as it read at the old default pin
    if not item.claim:
        node = entry
        if item.pattern:
            old["anchor"] = _flow(
                {"pattern": item.pattern, **({"occurrence": item.occurrence} if item.occurrence != 1 else {})}
            )
    else:
        claim = next(c for c in entry.get("claims", []) if c.get("id") == item.claim)
        node = claim["evidence"][item.evidence - 1]
        old = _flow(
            {
                "symbol": item.symbol,
                **({"pattern": item.pattern} if item.pattern else {}),
                **({"occurrence": item.occurrence} if item.occurrence != 1 else {}),
            }
        )
    for other in other_sets:
        if other != "default" and other not in (node.get("at") or {}):
            _set_at(node, other, old, after="anchor" if "anchor" in node else None)
    h = item.hit  # values _rewrite_text could not change in place (already equal where it did)
    if not item.claim:
        if h.symbol != entry["symbol"]:
            entry["symbol"] = h.symbol
        if h.pattern and "anchor" in entry:
            entry["anchor"]["pattern"] = h.pattern
            if h.occurrence != 1 or "occurrence" in entry["anchor"]:
                entry["anchor"]["occurrence"] = h.occurrence
    else:
        if h.symbol != node.get("symbol", entry["symbol"]):
            node["symbol"] = h.symbol
        if h.pattern:
            node["pattern"] = h.pattern
        if h.occurrence != 1 or "occurrence" in node:
            node["occurrence"] = h.occurrence


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
