"""Which extension target compiles a C++ file, read from the tree's CMake files: `define_extension_target(NAME ...
SOURCES ${VAR} "csrc/x.cu" ...)` (and `define_gpu_extension_target`) with the `set(VAR ...)` / `list(APPEND VAR ...)`
lists it names. In that file TORCH_EXTENSION_NAME is NAME; the files one target compiles are linked together (a
build unit of atlas.parse.kernels.cppindex). Every if/else branch is read, as for the C++."""

from __future__ import annotations

import re
from pathlib import Path

_COMMENT = re.compile(r'#[^\n]*|("(?:[^"\\]|\\.)*")')
_SET = re.compile(r"\b(?:set|list\s*\(\s*APPEND)\s*\(?\s*(\w+)\s+([^()]*)\)", re.I)
_TARGET = re.compile(r"\bdefine_(?:gpu_)?extension_target\s*\(\s*(\w+)([^()]*)\)")
_TOKEN = re.compile(r'"([^"]*)"|(\S+)')
_KEYWORD = re.compile(r"^[A-Z][A-Z_]+$")


def cmake_files(root: Path) -> list[tuple[str, str]]:
    """(path, text) of CMakeLists.txt and cmake/*.cmake of a checkout (none: [])."""
    paths = [root / "CMakeLists.txt", *sorted((root / "cmake").glob("*.cmake"))]
    return [
        (p.relative_to(root).as_posix(), p.read_text(encoding="utf-8", errors="replace")) for p in paths if p.is_file()
    ]


def cmake_texts(root: Path) -> list[str]:
    """The texts of `cmake_files`."""
    return [text for _, text in cmake_files(root)]


def extension_targets(texts: list[str]) -> dict[str, str]:
    """Source path (repository-relative, as listed) -> the extension target compiling it; a file two targets list
    keeps the first."""
    out: dict[str, str] = {}
    for _, name, sources in _targets(texts):
        for path in sources:
            out.setdefault(path, name)
    return out


def extension_units(files: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Each extension target, named by the CMake file defining it and its name (`cmake/cpu_extension.cmake:_C`: the
    CPU build's `_C` is not the CUDA build's), -> the sources it compiles."""
    names = [path for path, _ in files]
    return {f"{names[i]}:{name}": sources for i, name, sources in _targets([text for _, text in files])}


def _targets(texts: list[str]) -> list[tuple[int, str, list[str]]]:
    """(index of the text defining it, target name, source paths) of every extension target."""
    lists: dict[str, list[str]] = {}
    targets: list[tuple[int, str, list[str]]] = []
    for i, text in enumerate(texts):
        text = _COMMENT.sub(lambda m: m.group(1) or "", text)
        for match in _SET.finditer(text):
            lists.setdefault(match.group(1), []).extend(_tokens(match.group(2)))
        for match in _TARGET.finditer(text):
            tokens = _tokens(match.group(2))
            if "SOURCES" in tokens:
                rest = tokens[tokens.index("SOURCES") + 1 :]
                end = next((k for k, t in enumerate(rest) if _KEYWORD.match(t)), len(rest))
                targets.append((i, match.group(1), rest[:end]))
    return [(i, name, _expand(sources, lists, set())) for i, name, sources in targets]


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
