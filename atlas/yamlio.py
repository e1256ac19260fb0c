"""YAML in and out with line numbers and comments kept (ruamel.yaml round-trip), and JSON-Schema validation whose
every problem names file:line. Shared by the pin manifests and the annotations."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from atlas import publish
from atlas.errors import ConfigError


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


MAX_BYTES = 4 << 20  # a YAML input larger than this is refused before parsing (annotation files are ~10-50 KB)
MAX_NODES = 200_000  # nodes once aliases are expanded: bounds an alias bomb before anything walks the data
MAX_DEPTH = 64  # nesting depth


def load(path: Path) -> Any:
    """Parse one YAML file, keeping comments and positions. Read as bytes first: a file that is too large, not UTF-8
    or holds a NUL byte is refused with file:line; after parsing, alias expansion is bounded (MAX_NODES, MAX_DEPTH)
    so nothing downstream walks a billion-laughs document. Every problem is a ConfigError with file:line."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror}); check the path") from None
    return parse(data, path)


def parse(data: bytes, path: Path) -> Any:
    """`load` of bytes already read (or about to be written) as the file `path`, which messages name."""
    text = decode(data, path)
    too_deep = _nesting(text)
    if too_deep:
        raise ConfigError(f"{path}:{too_deep}: nested more than {MAX_DEPTH} levels deep; flatten the data")
    try:
        loaded = _yaml().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if exc.context_mark and mark and mark.line >= len(text.splitlines()):  # "got end of stream": blame the opener
            mark = exc.context_mark
        line = mark.line + 1 if mark else 0
        raise ConfigError(f"{path}:{line}: invalid YAML: {exc.problem or exc.context}; fix the syntax") from None
    except YAMLError as exc:  # reader errors (control characters) and the like
        position = getattr(exc, "position", None)  # a ReaderError: a character YAML does not allow
        line = (
            text.count("\n", 0, position) + 1
            if isinstance(position, int)
            else getattr(getattr(exc, "problem_mark", None), "line", -1) + 1
        )
        raise ConfigError(f"{path}:{line}: invalid YAML: {str(exc).splitlines()[0]}; fix the file") from None
    except RecursionError:
        raise ConfigError(
            f"{path}:1: YAML nested too deeply to read; flatten it (at most {MAX_DEPTH} levels)"
        ) from None
    bound(loaded, path)
    return loaded


def decode(data: bytes, path: Path) -> str:
    """UTF-8 text of a file's bytes, or a ConfigError naming file:line of the first bad byte."""
    if len(data) > MAX_BYTES:
        raise ConfigError(
            f"{path}:1: the file is larger than {MAX_BYTES >> 20} MiB; atlas reads only small YAML "
            "files: split it or remove what does not belong"
        )
    nul = data.find(b"\0")
    if nul >= 0:
        raise ConfigError(
            f"{path}:{_line_at(data, nul)}: a NUL byte; the file is binary or damaged: save it as UTF-8 text"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}:{_line_at(data, exc.start)}: not UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8"
        ) from None


_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*')
_INDENT = re.compile(r"^( *)\S", re.M)


def _nesting(text: str) -> int:
    """The line where flow brackets or indentation first nest past MAX_DEPTH (0: nowhere), found without the parser,
    whose recursion a deeply nested file would exhaust slowly."""
    for match in _INDENT.finditer(text):
        if len(match.group(1)) > 4 * MAX_DEPTH:
            return text.count("\n", 0, match.start()) + 1
    depth, line = 0, 1
    for piece in re.finditer(r"[\[\]{}\n]", _QUOTED.sub(lambda m: "\n" * m.group().count("\n"), text)):
        char = piece.group()
        if char == "\n":
            line += 1
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return line
        else:
            depth = max(depth - 1, 0)
    return 0


def _line_at(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def bound(data: Any, path: Path) -> None:
    """Refuse a document whose alias-expanded tree exceeds MAX_NODES nodes or MAX_DEPTH levels, in at most
    MAX_NODES steps (aliases make the loaded data a DAG: walking it as a tree is what an alias bomb exploits)."""
    stack, count, line = [(data, 0)], 0, 0
    while stack:
        node, depth = stack.pop()
        count += 1
        lc = getattr(node, "lc", None)
        if lc is not None and getattr(lc, "line", None) is not None:
            line = lc.line + 1
        if count > MAX_NODES:
            raise ConfigError(
                f"{path}:{line}: the document expands to more than {MAX_NODES} nodes (aliases "
                "repeated inside aliases?); write the data out or use fewer aliases"
            )
        if depth > MAX_DEPTH:
            raise ConfigError(f"{path}:{line}: nested more than {MAX_DEPTH} levels deep; flatten the data")
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
            stack.extend((k, depth + 1) for k in node if isinstance(k, (tuple, list, dict)))
        elif isinstance(node, (list, tuple)):
            stack.extend((v, depth + 1) for v in node)


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
