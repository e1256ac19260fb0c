"""Hand edits of the bump, as run (PYTHONPATH=examples/bump python examples/bump/hand_edits_vllm.py): at: entries
written through ruamel, the same writer --apply-suggestions uses."""
import sys
from pathlib import Path
from ruamel.yaml.comments import CommentedMap
from atlas import yamlio
from atlas.diff.apply import _set_at, _flow

ROOT = Path(__file__).resolve().parents[2]  # the project root
_cache = {}

def _load(rel):
    if rel not in _cache:
        _cache[rel] = yamlio.load(ROOT / "annotations" / rel)
    return _cache[rel]

def _ann(rel, ann):
    return next(e for e in _load(rel)["annotations"] if e["id"] == ann)

def anchor(rel, ann, pins, symbol=None, pattern=None, occurrence=1):
    e = _ann(rel, ann)
    for p in pins:
        v = CommentedMap()
        if symbol: v["symbol"] = symbol
        if pattern:
            a = _flow({"pattern": pattern})
            if occurrence != 1: a["occurrence"] = occurrence
            v["anchor"] = a
        if "at" in e and p in e["at"]:
            del e["at"][p]
        _set_at(e, p, v, after="anchor" if "anchor" in e else "symbol")

def ev(rel, ann, claim, n, pins, **fields):
    c = next(c for c in _ann(rel, ann)["claims"] if c["id"] == claim)
    e = c["evidence"][n - 1]
    for p in pins:
        if "at" in e and p in e["at"]:
            del e["at"][p]
        _set_at(e, p, _flow(dict(fields)), after=None)

def verdict(rel, ann, claim, pins, verdict, note):
    c = next(c for c in _ann(rel, ann)["claims"] if c["id"] == claim)
    for p in pins:
        if "at" in c and p in c["at"]:
            del c["at"][p]
        v = CommentedMap({"verdict": verdict, "note": note})
        _set_at(c, p, v, after="evidence")

def save():
    from atlas.diff.apply import tidy
    for rel, data in _cache.items():
        yamlio.write_atomic(ROOT / "annotations" / rel, tidy(yamlio.dump(data)))
