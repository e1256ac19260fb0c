"""YAML in and out with line numbers and comments kept (ruamel.yaml round-trip), and JSON-Schema validation whose
every problem names file:line. Shared by the pin manifests and the annotations."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError

from atlas import publish
from atlas.errors import ConfigError


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def load(path: Path) -> Any:
    """Parse one YAML file, keeping comments and positions; a syntax error is a ConfigError with file:line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror}); check the path") from None
    try:
        return _yaml().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if exc.context_mark and mark and mark.line >= len(text.splitlines()):  # "got end of stream": blame the opener
            mark = exc.context_mark
        line = mark.line + 1 if mark else 0
        raise ConfigError(f"{path}:{line}: invalid YAML: {exc.problem or exc.context}; fix the syntax") from None


def dump(data: Any) -> str:
    out = io.StringIO()
    _yaml().dump(data, out)
    return out.getvalue()


def write_atomic(path: Path, text: str) -> None:
    """Write through a staging file and rename (atlas.publish), so an interruption never leaves half a file."""
    publish.write_text(path, text)


def line_of(data: Any, path: tuple) -> int:
    """1-based line of the node at `path` (keys and indices) inside round-trip-loaded data; 0 if unknown."""
    node, line = data, 0
    for key in path:
        lc = getattr(node, "lc", None)
        try:
            if lc is not None and isinstance(key, str) and key in node:
                line = lc.key(key)[0] + 1
            elif lc is not None and isinstance(key, int) and 0 <= key < len(node):
                line = lc.item(key)[0] + 1
            node = node[key]
        except (KeyError, IndexError, TypeError):
            break
    if not path and getattr(data, "lc", None) is not None:
        line = data.lc.line + 1
    return line


def schema_problems(data: Any, schema: dict, file: Path) -> Iterator[str]:
    """Every JSON-Schema violation of `data`, as 'file:line: message', in document order."""
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    for error in errors:
        where = tuple(error.absolute_path)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            extra = [k for k in error.instance if k not in error.schema.get("properties", {})]
            where += tuple(extra[:1])  # point at the unknown key itself
        line = line_of(data, where)
        field = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        yield f"{file}:{line}: {field}: {_explain(error)}"


def _explain(error: jsonschema.ValidationError) -> str:
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed)) if isinstance(error.instance, dict) else []
        return f"unknown field(s) {', '.join(extra)}; allowed: {', '.join(allowed)}"
    if error.validator == "enum":
        return f"{error.instance!r} is not one of: {', '.join(map(str, error.validator_value))}"
    return error.message
