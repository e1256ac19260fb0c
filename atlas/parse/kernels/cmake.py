"""Which extension target compiles a C++ file, read from the tree's CMake files: `define_extension_target(NAME ...
SOURCES ${VAR} "csrc/x.cu" ...)` (and `define_gpu_extension_target`) with the `set(VAR ...)` / `list(APPEND VAR ...)`
lists it names. In that file TORCH_EXTENSION_NAME is NAME. Every if/else branch is read, as for the C++."""

from __future__ import annotations

import re
from pathlib import Path

_COMMENT = re.compile(r'#[^\n]*|("(?:[^"\\]|\\.)*")')
_SET = re.compile(r"\b(?:set|list\s*\(\s*APPEND)\s*\(?\s*(\w+)\s+([^()]*)\)", re.I)
_TARGET = re.compile(r"\bdefine_(?:gpu_)?extension_target\s*\(\s*(\w+)([^()]*)\)")
_TOKEN = re.compile(r'"([^"]*)"|(\S+)')
_KEYWORD = re.compile(r"^[A-Z][A-Z_]+$")


def cmake_texts(root: Path) -> list[str]:
    """CMakeLists.txt and cmake/*.cmake of a checkout (none: [])."""
    paths = [root / "CMakeLists.txt", *sorted((root / "cmake").glob("*.cmake"))]
    return [p.read_text(encoding="utf-8", errors="replace") for p in paths if p.is_file()]


def extension_targets(texts: list[str]) -> dict[str, str]:
    """Source path (repository-relative, as listed) -> the extension target compiling it; a file two targets list
    keeps the first."""
    lists: dict[str, list[str]] = {}
    targets: list[tuple[str, list[str]]] = []
    for text in texts:
        text = _COMMENT.sub(lambda m: m.group(1) or "", text)
        for match in _SET.finditer(text):
            lists.setdefault(match.group(1), []).extend(_tokens(match.group(2)))
        for match in _TARGET.finditer(text):
            tokens = _tokens(match.group(2))
            if "SOURCES" in tokens:
                rest = tokens[tokens.index("SOURCES") + 1 :]
                end = next((i for i, t in enumerate(rest) if _KEYWORD.match(t)), len(rest))
                targets.append((match.group(1), rest[:end]))
    out: dict[str, str] = {}
    for name, sources in targets:
        for path in _expand(sources, lists, set()):
            out.setdefault(path, name)
    return out


def _tokens(text: str) -> list[str]:
    return [m.group(1) if m.group(1) is not None else m.group(2) for m in _TOKEN.finditer(text)]


def _expand(tokens: list[str], lists: dict[str, list[str]], active: set[str]) -> list[str]:
    out = []
    for token in tokens:
        var = re.fullmatch(r"\$\{(\w+)\}", token)
        if var and var.group(1) not in active:
            out += _expand(lists.get(var.group(1), []), lists, active | {var.group(1)})
        elif not var and "$" not in token and "/" in token:
            out.append(token)
    return out
