"""CUDA-only syntax blanked so that tree-sitter-cpp sees plain C++ (`__global__`, `__launch_bounds__(...)`,
`<<<...>>>`, macros standing for `__global__`), offsets and lines kept, with what the blanks hid: where launches
begin, the kernels launch-API calls name, where `__global__` marks a kernel. atlas.parse.kernels.cpp parses the
result."""

from __future__ import annotations

import re

from atlas.parse.kernels.text import closing, mask, select_branches, word_matches

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_CUDA_ATTR = re.compile(r"__[a-z][a-z0-9_]*__\b")  # `__global__`, `__launch_bounds__`, ... (where a word begins)
_CUDA_ATTR_ARGS = re.compile(r"\s*\((?:[^()]|\([^()]*\))*\)")
_GLOBAL = re.compile(r"__global__\b")
_MARKER_DEFINE = re.compile(r"[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+[^\n]*\b__global__\b[^\n]*")
_CHEVRON = re.compile(r"<<<.*?>>>", re.S)
_LAUNCH_API = re.compile(r"(LaunchKernel|cudaLaunchKernel(?:ExC?)?|cudaLaunchCooperativeKernel|hipLaunchKernelGGL)\b")
_CASTS = frozenset({"reinterpret_cast", "static_cast", "const_cast", "void", "const", "auto", "decltype"})
_IDENT = re.compile(r"((?:[A-Za-z_]\w*\s*::\s*)*)([A-Za-z_]\w*)")
_NOT_NEWLINE = re.compile(r"[^\n]")


def prepare(source: str, prefer_rocm: bool = False) -> tuple[str, str, set[int], set[int], list[int]]:
    """(masked source, text the grammar can parse, offsets where a `<<<` launch begins, offsets of the kernels
    launch-API calls name, offsets of `__global__` and of the macros standing for it). Both texts have the length
    and line breaks of `source`; one build's preprocessor branches are kept."""
    masked = select_branches(mask(source), prefer_rocm)
    text = _blank_attributes(masked if masked.isascii() else _NON_ASCII.sub(" ", masked))
    marks = [m.start() for m in word_matches(_GLOBAL, masked)]
    markers = _marker_defines(masked, marks)
    if markers:  # uses of `#define K_KERNEL __global__ ...` mark kernels too; the grammar sees them blank
        uses = re.compile(r"^(?![ \t]*#).*?\b(" + "|".join(re.escape(m.group(1)) for m in markers) + r")\b", re.M)
        spans = [match.span(1) for match in uses.finditer(masked)]
        marks += [a for a, _ in spans]
        text = _blank_spans(text, sorted(spans + [m.span() for m in markers]))
    launches = set()

    def blank_chevron(match: re.Match) -> str:
        launches.add(match.start())
        return re.sub(r"[^\n]", " ", match.group(0))

    text = _CHEVRON.sub(blank_chevron, text) if "<<<" in text else text
    calls = word_matches(_LAUNCH_API, text) if "Launch" in text else ()
    targets = {t for t in (_launch_target(text, m) for m in calls) if t >= 0}
    return masked, text, launches, targets, sorted(marks)


def _blank_attributes(text: str) -> str:
    """`text` with CUDA attributes (`__global__`, `__launch_bounds__(256, 1)`, ...) blanked to spaces."""
    spans, done = [], 0
    for match in word_matches(_CUDA_ATTR, text):
        if match.start() >= done:
            args = _CUDA_ATTR_ARGS.match(text, match.end())
            done = args.end() if args else match.end()
            spans.append((match.start(), done))
    return _blank_spans(text, spans)


def _blank_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with the (sorted, disjoint) spans turned into spaces, their newlines kept (a `__launch_bounds__(...)`
    over two lines leaves the lines after it where they were)."""
    pieces, done = [], 0
    for a, b in spans:
        piece = text[a:b]
        pieces += (text[done:a], _NOT_NEWLINE.sub(" ", piece) if "\n" in piece else " " * (b - a))
        done = b
    return "".join(pieces) + text[done:] if pieces else text


def _marker_defines(masked: str, marks: list[int]) -> list[re.Match]:
    """The `#define NAME ... __global__ ...` lines (NAME marks kernels) among the lines of `marks`, in order."""
    starts = sorted({masked.rfind("\n", 0, mark) + 1 for mark in marks})
    return [m for m in (_MARKER_DEFINE.match(masked, start) for start in starts) if m]


def _launch_target(text: str, match: re.Match) -> int:
    """Offset of the kernel named by a launch-API call: `LaunchKernel(grid, block, stream)[.opt(..)](kernel, ...)`,
    `cudaLaunchKernelEx(&config, kernel, ...)`, `cudaLaunchKernel(kernel, ...)`; -1 when it cannot be found."""
    api = match.group(1)
    open_at = text.find("(", match.end() - 1)
    if open_at < 0 or text[match.end() : open_at].strip():
        return -1
    position = 0
    if api == "LaunchKernel":
        at = closing(text, open_at, 2000)
        while at > 0:
            rest = text[at : at + 200].lstrip()
            skip = len(text[at : at + 200]) - len(rest)
            chained = re.match(r"\.\s*\w+\s*\(", rest)
            if chained:
                at = closing(text, at + skip + chained.end() - 1, 2000)
                continue
            if rest.startswith("("):
                open_at = at + skip
                break
            return -1
        if at < 0:
            return -1
    elif api.startswith("cudaLaunchKernelEx"):
        position = 1
    close = closing(text, open_at, 4000)
    if close < 0:
        return -1
    depth, index, start = 0, 0, open_at + 1
    for i in range(open_at + 1, close - 1):
        ch = text[i]
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            if index == position:
                break
            index, start = index + 1, i + 1
    if index != position:
        return -1
    for ident in _IDENT.finditer(text, start, close - 1):
        if ident.group(2) not in _CASTS:
            return ident.start()
    return -1
