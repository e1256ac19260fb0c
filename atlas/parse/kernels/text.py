"""Text helpers for C++/CUDA sources: mask comments and string literals (offsets and lines kept), match brackets,
map offsets to lines. Pure functions; the parsers in this package build on them."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

_WORD = re.compile(r"\w")
_LEXEME = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n]){1,4}\'', re.S)
_STRING = re.compile(r'"((?:\\.|[^"\\\n])*)"')
_ARG_STOPS = re.compile(r'[",()\[\]{}<>]')  # what split_args looks at
_STRING_REST = re.compile(r'[^"\\]*+(?:\\.[^"\\]*+)*+"', re.S)  # a string literal's inside and closing quote


def _blank(text: str) -> str:
    """`text` with every character but the newlines turned into a space."""
    return "\n".join([" " * len(line) for line in text.split("\n")])


def mask(source: str, keep_strings: bool = False) -> str:
    """The source with comments (and, unless keep_strings, string and char literal contents) blanked to spaces.
    Newlines stay, so offsets and line numbers of the result match the source."""

    def repl(match: re.Match) -> str:
        lexeme = match.group(0)
        if lexeme[0] != "/":
            return lexeme if keep_strings else lexeme[0] + " " * (len(lexeme) - 2) + lexeme[-1]
        return " " * len(lexeme) if lexeme[1] == "/" else _blank(lexeme)

    return _LEXEME.sub(repl, source)


class Lines:
    """Offset -> 1-based line number for one text."""

    __slots__ = ("_starts",)

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)


_PAIRS = {"(": ")", "{": "}", "[": "]", "<": ">"}
_STOPS = {
    "(": re.compile(r"[()]"),
    "{": re.compile(r"[{}]"),
    "[": re.compile(r"[\[\]]"),
    "<": re.compile(r"[<>;{}(]"),
}  # the characters that matter to `closing`, per opener


def closing(text: str, start: int, limit: int = 1 << 30) -> int:
    """Offset just past the bracket that closes the one at `start` (text masked), or -1 when it is not closed
    within `limit` characters. For '<' (template arguments) a ';', '{' or '}' on the way means it was no bracket."""
    opener = text[start]
    closer = _PAIRS[opener]
    stops = _STOPS[opener]
    depth = 0
    end = min(len(text), start + limit)
    i = start
    while True:
        found = stops.search(text, i, end)
        if found is None:
            return -1
        i = found.start()
        ch = text[i]
        if ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0:
                return i + 1
        elif ch == "(":  # in template arguments
            i = closing(text, i, end - i)
            if i < 0:
                return -1
            continue
        else:
            return -1
        i += 1


def word_matches(pattern: re.Pattern, text: str, pos: int = 0, endpos: int | None = None) -> Iterator[re.Match]:
    """The matches `\\b` + `pattern` finds in text[pos:endpos] (`pattern` never matches the empty string), found
    faster: re searches a pattern by its literal prefix, which a leading `\\b` hides."""
    endpos = len(text) if endpos is None else endpos
    while (match := pattern.search(text, pos, endpos)) is not None:
        at = match.start()
        if (at > 0 and _WORD.match(text, at - 1) is not None) != (_WORD.match(text, at) is not None):
            yield match
            pos = match.end()
        else:
            pos = at + 1


def string_literals(text: str) -> str:
    """The concatenation of the C++ string literals in `text` (adjacent literals join, as the compiler does)."""
    return "".join(m.group(1) for m in _STRING.finditer(text))


def split_args(text: str) -> list[str]:
    """Top-level comma-separated arguments of an argument list's inside (strings kept intact)."""
    args, depth, start, i = [], 0, 0, 0
    while (found := _ARG_STOPS.search(text, i)) is not None:
        i = found.start()
        ch = text[i]
        if ch == '"':
            rest = _STRING_REST.match(text, i + 1)
            i = rest.end() if rest else len(text)
            continue
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif depth == 0:
            args.append(text[start:i].strip())
            start = i + 1
        i += 1
    if text[start:].strip():
        args.append(text[start:].strip())
    return args


_CONDITIONAL = re.compile(r"#[^\S\n]*(if|ifdef|ifndef|elif|else|endif)\b(.*)")
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
    branch (the ROCm one in ROCm-only files), other conditionals their first branch. A directive begins a line that
    does not continue the one before (backslash-newline) and runs on over its own continuation lines."""
    pieces: list[str] = []
    stack: list[list[bool]] = []  # per open #if: [some branch taken, this branch active]
    active, done = True, 0  # whether the text since the last directive is compiled; where that text begins
    for match in _CONDITIONAL.finditer(text):
        start = text.rfind("\n", 0, match.start()) + 1
        if text[start : match.start()].strip() or (start >= 2 and text[start - 2] == "\\"):
            continue
        end = match.end()
        while 0 <= end < len(text) and text[end - 1] == "\\":
            end = text.find("\n", end + 1)
        end = len(text) if end < 0 else end
        directive, rest = match.group(1), match.group(2)
        if end > match.end():
            rest += " " + text[match.end() + 1 : end].replace("\n", " ")
        rest = rest.replace("\\", " ")
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
        pieces += (text[done:start] if active else _blank(text[done:start]), _blank(text[start:end]))
        active, done = all(frame[1] for frame in stack), end
    pieces.append(text[done:] if active else _blank(text[done:]))
    return "".join(pieces)
