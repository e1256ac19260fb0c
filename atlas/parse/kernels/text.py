"""Text helpers for C++/CUDA sources: mask comments and string literals (offsets and lines kept), match brackets,
map offsets to lines. Pure functions; the parsers in this package build on them."""

from __future__ import annotations

import bisect
import re

_LEXEME = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n]){1,4}\'', re.S)
_STRING = re.compile(r'"((?:\\.|[^"\\\n])*)"')


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def mask(source: str, keep_strings: bool = False) -> str:
    """The source with comments (and, unless keep_strings, string and char literal contents) blanked to spaces.
    Newlines stay, so offsets and line numbers of the result match the source."""

    def repl(match: re.Match) -> str:
        lexeme = match.group(0)
        if lexeme[0] in "\"'":
            return lexeme if keep_strings else lexeme[0] + " " * (len(lexeme) - 2) + lexeme[-1]
        return _blank(lexeme)

    return _LEXEME.sub(repl, source)


class Lines:
    """Offset -> 1-based line number for one text."""

    __slots__ = ("_starts",)

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)


_PAIRS = {"(": ")", "{": "}", "[": "]", "<": ">"}


def closing(text: str, start: int, limit: int = 1 << 30) -> int:
    """Offset just past the bracket that closes the one at `start` (text masked), or -1 when it is not closed
    within `limit` characters. For '<' (template arguments) a ';', '{' or '}' on the way means it was no bracket."""
    opener = text[start]
    closer = _PAIRS[opener]
    depth = 0
    end = min(len(text), start + limit)
    i = start
    while i < end:
        ch = text[i]
        if ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0:
                return i + 1
        elif opener == "<" and ch in ";{}":
            return -1
        elif opener == "<" and ch == "(":
            inner = closing(text, i, end - i)
            if inner < 0:
                return -1
            i = inner
            continue
        i += 1
    return -1


def string_literals(text: str) -> str:
    """The concatenation of the C++ string literals in `text` (adjacent literals join, as the compiler does)."""
    return "".join(m.group(1) for m in _STRING.finditer(text))


def split_args(text: str) -> list[str]:
    """Top-level comma-separated arguments of an argument list's inside (strings kept intact)."""
    args, depth, current, in_string = [], 0, [], False
    i = 0
    while i < len(text):
        ch = text[i]
        if in_string:
            current.append(ch)
            if ch == "\\" and i + 1 < len(text):
                current.append(text[i + 1])
                i += 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            current.append(ch)
        elif ch in "([{<":
            depth += 1
            current.append(ch)
        elif ch in ")]}>":
            depth -= 1
            current.append(ch)
        elif ch == "," and depth == 0:
            args.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
        i += 1
    if "".join(current).strip():
        args.append("".join(current).strip())
    return args


_CONDITIONAL = re.compile(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)")
_ARCH = re.compile(r"__CUDA_ARCH__\s*(<=|>=|<|>|==|!=)\s*(\d+)")
_BUILD_ARCH = 900
_COMPARE = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__, "==": int.__eq__, "!=": int.__ne__}
_ROCM = re.compile(r"USE_ROCM|__HIP|HIP_PLATFORM|__HIPCC__|ROCM|__gfx|GFX9")


def _condition(directive: str, rest: str, prefer_rocm: bool) -> bool:
    """Whether a branch is taken: one build, CUDA (or ROCm for ROCm-only files), first choice otherwise."""
    rest = rest.strip()
    if rest in ("0", "false"):
        return False
    arch = _ARCH.findall(rest)
    if arch:  # a modern GPU: the arch-gated stubs for old ones are not the code that runs
        return all(_COMPARE[op](_BUILD_ARCH, int(number)) for op, number in arch)
    if not _ROCM.search(rest):
        return True
    negated = directive == "ifndef" or rest.startswith("!")
    return prefer_rocm != negated


def select_branches(text: str, prefer_rocm: bool = False) -> str:
    """Blank the preprocessor conditionals' directives and the branches one build would not compile (offsets and
    lines kept), so that braces balance for the grammar: `#ifdef USE_ROCM ... #else ... #endif` keeps the CUDA
    branch (the ROCm one in ROCm-only files), other conditionals their first branch."""
    lines = text.split("\n")
    stack: list[list[bool]] = []  # per open #if: [some branch taken, this branch active]
    i = 0
    while i < len(lines):
        span = 1
        while lines[i + span - 1].endswith("\\") and i + span < len(lines):
            span += 1
        match = _CONDITIONAL.match(lines[i])
        active = all(frame[1] for frame in stack)
        if match:
            directive, rest = match.group(1), match.group(2)
            rest = " ".join([rest] + lines[i + 1:i + span]).replace("\\", " ")
            if directive in ("if", "ifdef", "ifndef"):
                taken = _condition(directive, rest, prefer_rocm)
                stack.append([taken, taken])
            elif directive == "elif" and stack:
                taken = not stack[-1][0] and _condition("if", rest, prefer_rocm)
                stack[-1] = [stack[-1][0] or taken, taken]
            elif directive == "else" and stack:
                stack[-1] = [True, not stack[-1][0]]
            elif directive == "endif" and stack:
                stack.pop()
            for j in range(i, i + span):
                lines[j] = " " * len(lines[j])
        elif not active:
            for j in range(i, i + span):
                lines[j] = " " * len(lines[j])
        i += span
    return "\n".join(lines)
