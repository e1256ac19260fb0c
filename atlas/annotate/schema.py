"""The JSON Schema of annotation files, version 1, built from atlas.annotate.vocabulary. The loader validates with
exactly this dict; annotations/schema/annotation.v1.json is its published copy (`atlas check --write-schema`)."""

from __future__ import annotations

import json

from atlas.annotate.vocabulary import (
    CAPTURES,
    COSTS,
    EFFECTS,
    EXPECTS,
    FRAMEWORKS,
    MECHANISMS,
    ROLES,
    SCHEMA_VERSION,
    VERDICTS,
)

PUBLISHED = f"annotations/schema/annotation.v{SCHEMA_VERSION}.json"

_TEXT = {"type": "string", "minLength": 1}
_TEXTS = {"type": "array", "items": _TEXT}
_SYMBOL = {
    "type": "string",
    "pattern": r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$",
    "description": "dotted symbol id as the index names it, e.g. vllm.v1.core.sched.scheduler.Scheduler",
}
_ID = {
    "type": "string",
    "pattern": r"^[a-z][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)+$",
    "description": "<framework>.<mechanism>.<name>, lowercase, unique across all annotation files",
}
_PATTERN = {
    "type": "string",
    "minLength": 1,
    "description": "a Python expression or statement; `...` matches anything (see annotations/README.md)",
}
_OCCURRENCE = {"type": "integer", "minimum": 1, "description": "which match, in source order (default 1)"}
_PIN_SET = r"^[a-z][a-z0-9_-]*$"


def _at(item: dict, description: str) -> dict:
    """`at: {PIN_SET: ...}`: what differs at one pin set (a name in pinned_sources/<framework>.yaml)."""
    return {
        "type": "object",
        "minProperties": 1,
        "propertyNames": {"pattern": _PIN_SET},
        "additionalProperties": item,
        "description": description,
    }


def _object(required: list[str], properties: dict, description: str = "") -> dict:
    out = {"type": "object", "additionalProperties": False, "required": required, "properties": properties}
    if description:
        out["description"] = description
    return out


DEFS = {
    "anchor": _object(
        ["pattern"],
        {"pattern": _PATTERN, "occurrence": _OCCURRENCE},
        "a statement inside the symbol, found by a code pattern at every pin; no stored line numbers",
    ),
    "evidence": _object(
        [],
        {
            "symbol": {**_SYMBOL, "description": "default: the annotation's symbol"},
            "pattern": _PATTERN,
            "occurrence": _OCCURRENCE,
            "expect": {"enum": list(EXPECTS), "description": "present (default) or absent: the code must not exist"},
            "note": _TEXT,
            "at": _at(
                _object(
                    [],
                    {
                        "symbol": _SYMBOL,
                        "pattern": _PATTERN,
                        "occurrence": _OCCURRENCE,
                        "expect": {"enum": list(EXPECTS)},
                        "note": _TEXT,
                    },
                ),
                "where this evidence is at other pin sets (fields left out are the default pin's)",
            ),
        },
        "source lines that support a verdict, resolved at each pin",
    ),
    "claim": _object(
        ["id", "article", "claim", "verdict", "evidence"],
        {
            "id": {"type": "string", "pattern": r"^[a-z0-9][a-z0-9_-]*$"},
            "article": {**_TEXT, "description": "what the article says, quoted faithfully (short)"},
            "claim": {**_TEXT, "description": "the claim about source code, in English"},
            "verdict": {"enum": list(VERDICTS), "description": "at the default pin"},
            "evidence": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/evidence"}},
            "note": _TEXT,
            "at": _at(
                _object(["verdict"], {"verdict": {"enum": list(VERDICTS)}, "note": _TEXT}),
                "the verdict at other pin sets where it differs from the default pin's (say why in note)",
            ),
        },
    ),
    "cost": _object(
        ["dimension", "effect", "detail"],
        {"dimension": {"enum": list(COSTS)}, "effect": {"enum": list(EFFECTS)}, "detail": _TEXT},
    ),
    "contract": _object(
        [],
        {
            "input": _TEXTS,
            "reads": _TEXTS,
            "writes": _TEXTS,
            "output": _TEXT,
            "consumer": {**_TEXT, "description": "who receives the output: a symbol id or words"},
            "allocated": _TEXT,
            "committed": _TEXT,
            "invariants": _TEXTS,
            "cost": {"type": "array", "items": {"$ref": "#/$defs/cost"}},
        },
    ),
    "probe": _object(
        ["capture"],
        {"capture": {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"enum": list(CAPTURES)}}},
    ),
    "bottleneck": _object(
        ["symptom", "hypothesis", "next_evidence"],
        {"symptom": _TEXT, "hypothesis": _TEXT, "next_evidence": _TEXT},
        "article section 11: a symptom this code explains, and what to measure next",
    ),
    "annotation": _object(
        ["id", "mechanism", "symbol", "role", "summary"],
        {
            "id": _ID,
            "mechanism": {"enum": list(MECHANISMS), "description": "the article's section, as a slug"},
            "symbol": _SYMBOL,
            "anchor": {"$ref": "#/$defs/anchor"},
            "at": _at(
                _object([], {"symbol": _SYMBOL, "anchor": {"$ref": "#/$defs/anchor"}}),
                "where the code is at other pin sets when it moved: symbol and/or anchor (left out: the default's)",
            ),
            "role": {"enum": list(ROLES)},
            "summary": {**_TEXT, "description": "one line: what this code does in the mechanism"},
            "contract": {"$ref": "#/$defs/contract"},
            "claims": {"type": "array", "items": {"$ref": "#/$defs/claim"}},
            "notes": {"type": "string", "description": "free markdown"},
            "probe": {"$ref": "#/$defs/probe"},
            "bottlenecks": {"type": "array", "items": {"$ref": "#/$defs/bottleneck"}},
            "questions": {**_TEXTS, "description": "open questions (article section 12: what needs multi-GPU runs)"},
            "related": {"type": "array", "items": _ID, "description": "ids of related annotations (any framework)"},
        },
    ),
}

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": f"https://atlas.invalid/{PUBLISHED}",
    "title": f"atlas contract annotations, schema {SCHEMA_VERSION}",
    "description": "One file: annotations of one framework. See annotations/README.md.",
    **_object(
        ["schema", "framework", "annotations"],
        {
            "schema": {"const": SCHEMA_VERSION},
            "framework": {"enum": list(FRAMEWORKS)},
            "annotations": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/annotation"}},
        },
    ),
    "$defs": DEFS,
}


def schema_json() -> str:
    """The published text of the schema: deterministic, so a test can compare it with the file."""
    return json.dumps(SCHEMA, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
