"""One C++/CUDA file -> its functions (`__global__` kernels marked), macros, member aliases, includes, and the names
each of them references (calls, launches). tree-sitter-cpp gives the structure; CUDA-only syntax (`__global__`,
`__launch_bounds__(...)`, `<<<...>>>`) is blanked first, offsets kept, so the grammar sees plain C++."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

import tree_sitter_cpp
from tree_sitter import Language, Parser

from atlas.parse.kernels.text import Lines, closing, mask, select_branches

CPP_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".h", ".hpp", ".hxx", ".inl", ".inc")

_LANGUAGE = Language(tree_sitter_cpp.language())
_CUDA_ATTR = re.compile(r"\b__[a-z][a-z0-9_]*__\b(\s*\((?:[^()]|\([^()]*\))*\))?")
_MARKER_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+[^\n]*\b__global__\b[^\n]*", re.M)
_CHEVRON = re.compile(r"<<<.*?>>>", re.S)
_LAUNCH_API = re.compile(r"\b(LaunchKernel|cudaLaunchKernel(?:ExC?)?|cudaLaunchCooperativeKernel|hipLaunchKernelGGL)\b")
_CASTS = frozenset({"reinterpret_cast", "static_cast", "const_cast", "void", "const", "auto", "decltype"})
_IDENT = re.compile(r"((?:[A-Za-z_]\w*\s*::\s*)*)([A-Za-z_]\w*)")
_SPACE = frozenset(" \t\n\r\\")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_KEYWORDS = frozenset("""
    alignas alignof auto bool break case catch char class const constexpr const_cast continue decltype default delete
    do double dynamic_cast else enum explicit extern false float for friend goto if inline int long mutable namespace
    new noexcept nullptr operator private protected public register reinterpret_cast return short signed sizeof static
    static_assert static_cast struct switch template this throw true try typedef typeid typename union unsigned using
    virtual void volatile while int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t std torch at
    c10 if_constexpr defined
""".split())


@dataclass(frozen=True, slots=True)
class Ref:
    """A name used in a body: `ns::name` as written, whether it is called and whether a launch names it."""

    name: str
    qualifier: str  # "vllm::" in `vllm::foo_kernel<T><<<...>>>`, else ""
    line: int
    is_call: bool
    is_launch: bool


@dataclass(frozen=True, slots=True)
class CppFunction:
    qualname: str  # namespaces and classes joined by "::", e.g. "vllm::reshape_and_cache_flash_kernel"
    start: int
    end: int
    is_kernel: bool  # declared __global__
    refs: tuple[Ref, ...]
    has_launch: bool  # the body (or a macro it expands) launches something

    @property
    def name(self) -> str:
        return self.qualname.rsplit("::", 1)[-1]


@dataclass(frozen=True, slots=True)
class CppMacro:
    """A `#define`, or a class/namespace-level alias (`static constexpr auto k = kernel<...>;`): a name whose uses
    stand for the names in its body."""

    name: str
    line: int
    refs: tuple[Ref, ...]
    has_launch: bool


@dataclass(frozen=True, slots=True)
class CppFile:
    path: str
    functions: tuple[CppFunction, ...]
    macros: tuple[CppMacro, ...]
    includes: tuple[str, ...]


def prepare(source: str, prefer_rocm: bool = False) -> tuple[str, str, set[int], set[int], list[int]]:
    """(masked source, text the grammar can parse, offsets where a `<<<` launch begins, offsets of the kernels
    launch-API calls name, offsets of `__global__` and of the macros standing for it). Both texts have the length
    and line breaks of `source`; one build's preprocessor branches are kept."""
    masked = select_branches(mask(source), prefer_rocm)
    text = _CUDA_ATTR.sub(lambda m: " " * len(m.group(0)), _NON_ASCII.sub(" ", masked))
    marks = [m.start() for m in re.finditer(r"\b__global__\b", masked)]
    markers = _MARKER_DEFINE.findall(masked)
    if markers:  # uses of `#define K_KERNEL __global__ ...` mark kernels too; the grammar sees them blank
        uses = re.compile(r"^(?![ \t]*#).*?\b(" + "|".join(map(re.escape, markers)) + r")\b", re.M)
        for match in uses.finditer(masked):
            a, b = match.span(1)
            marks.append(a)
            text = text[:a] + " " * (b - a) + text[b:]
        for match in _MARKER_DEFINE.finditer(masked):
            text = text[:match.start()] + " " * len(match.group(0)) + text[match.end():]
    launches = set()

    def blank_chevron(match: re.Match) -> str:
        launches.add(match.start())
        return re.sub(r"[^\n]", " ", match.group(0))

    text = _CHEVRON.sub(blank_chevron, text)
    targets = {t for t in (_launch_target(text, m) for m in _LAUNCH_API.finditer(text)) if t >= 0}
    return masked, text, launches, targets, sorted(marks)


def _launch_target(text: str, match: re.Match) -> int:
    """Offset of the kernel named by a launch-API call: `LaunchKernel(grid, block, stream)[.opt(..)](kernel, ...)`,
    `cudaLaunchKernelEx(&config, kernel, ...)`, `cudaLaunchKernel(kernel, ...)`; -1 when it cannot be found."""
    api = match.group(1)
    open_at = text.find("(", match.end() - 1)
    if open_at < 0 or text[match.end():open_at].strip():
        return -1
    position = 0
    if api == "LaunchKernel":
        at = closing(text, open_at, 2000)
        while at > 0:
            rest = text[at:at + 200].lstrip()
            skip = len(text[at:at + 200]) - len(rest)
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


def scan_refs(text: str, start: int, end: int, lines: Lines, launches: set[int],
              targets: set[int]) -> tuple[tuple[Ref, ...], bool]:
    """The names referenced in text[start:end] (deduplicated, first line kept, flags merged) and whether that
    stretch launches anything."""
    found: dict[tuple[str, str], Ref] = {}
    has_launch = any(start <= offset < end for offset in launches) or any(start <= t < end for t in targets)
    keywords = _KEYWORDS
    for match in _IDENT.finditer(text, start, end):
        name = match.group(2)
        if name in keywords:
            continue
        qualifier = match.group(1)
        begin = match.start()
        member = not qualifier and begin > 0 and (text[begin - 1] == "." or text[begin - 2:begin] == "->")
        after = match.end()
        chevron = False
        while after < end and text[after] in _SPACE:
            chevron = chevron or after in launches
            after += 1
        if after < end and text[after] == "<":
            close = closing(text, after, 400)
            if close > 0:
                after = close
                while after < end and text[after] in _SPACE:
                    chevron = chevron or after in launches
                    after += 1
        is_launch = chevron or begin in targets
        is_call = is_launch or (after < end and text[after] == "(")
        if member and not is_call:
            continue
        if qualifier:
            qualifier = re.sub(r"\s+", "", qualifier)
        key = (name, qualifier)
        old = found.get(key)
        if old is None:
            found[key] = Ref(name, qualifier, lines.line(begin), is_call, is_launch)
        elif (is_call and not old.is_call) or (is_launch and not old.is_launch):
            found[key] = Ref(name, qualifier, old.line, old.is_call or is_call, old.is_launch or is_launch)
    return tuple(found.values()), has_launch


def _declarator_name(node) -> tuple[str, object] | None:
    """The name a function declarator declares, and the declarator node."""
    while node is not None and node.type in ("pointer_declarator", "reference_declarator", "attributed_declarator"):
        node = node.child_by_field_name("declarator") or (node.named_children[-1] if node.named_children else None)
    if node is None or node.type != "function_declarator":
        return None
    name = node.child_by_field_name("declarator")
    if name is None:
        return None
    text = name.text.decode()
    text = re.sub(r"<[^<>]*(<[^<>]*>[^<>]*)*>", "", text)
    return re.sub(r"\s+", "", text), node


def is_rocm_path(path: str) -> bool:
    """Files only a ROCm build compiles (their `#ifdef USE_ROCM` branches are the live ones)."""
    return bool(re.search(r"(^|/)(rocm|hip)(/|$)|_hip\.|rocm_", path))


def parse_cpp(path: str, source: str) -> CppFile:
    """Parse one C++/CUDA file (its text as read) into functions, macros and includes."""
    masked, text, launches, targets, marks = prepare(source, prefer_rocm=is_rocm_path(path))
    lines = Lines(text)
    tree = Parser(_LANGUAGE).parse(text.encode())
    functions, macros, includes = [], [], []
    stack = [(tree.root_node, "")]
    while stack:
        node, scope = stack.pop()
        kind = node.type
        if kind == "function_definition":
            declared = _declarator_name(node.child_by_field_name("declarator"))
            body = node.child_by_field_name("body")
            if declared and body is not None:
                name, declarator = declared
                refs, has_launch = scan_refs(text, body.start_byte, body.end_byte, lines, launches, targets)
                is_kernel = _is_kernel(masked, marks, node.start_byte, declarator.start_byte)
                functions.append(CppFunction(scope + name, node.start_point[0] + 1, node.end_point[0] + 1,
                                             is_kernel, refs, has_launch))
                continue
        elif kind in ("preproc_function_def", "preproc_def"):
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            if name is not None and value is not None:
                refs, has_launch = scan_refs(text, value.start_byte, value.end_byte, lines, launches, targets)
                macros.append(CppMacro(name.text.decode(), node.start_point[0] + 1, refs, has_launch))
            continue
        elif kind == "preproc_include":
            target = node.child_by_field_name("path")
            if target is not None:
                includes.append(target.text.decode().strip('"<> '))
            continue
        elif kind in ("field_declaration", "declaration") and scope:
            _alias(node, text, lines, launches, targets, macros)
        elif kind == "namespace_definition":
            name = node.child_by_field_name("name")
            inner = scope + (name.text.decode() + "::" if name is not None else "")
            body = node.child_by_field_name("body")
            if body is not None:
                stack.extend((child, inner) for child in reversed(body.children))
            continue
        elif kind in ("class_specifier", "struct_specifier"):
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if body is not None:
                label = re.sub(r"<.*", "", name.text.decode()) if name is not None else ""
                inner = scope + (label + "::" if label else "")
                stack.extend((child, inner) for child in reversed(body.children))
            continue
        stack.extend((child, scope) for child in reversed(node.children))
    functions.sort(key=lambda f: f.start)
    return CppFile(path, tuple(functions), tuple(macros), tuple(includes))


def _is_kernel(masked: str, marks: list[int], start: int, declarator: int) -> bool:
    """Whether a `__global__` (or a macro standing for it) is among the specifiers: between the statement boundary
    before the definition (the grammar starts it after the blanked attribute) and its declarator."""
    boundary = max(masked.rfind(ch, 0, start) for ch in ";{}>")
    i = bisect.bisect_right(marks, boundary)
    return i < len(marks) and marks[i] < declarator


def _alias(node, text: str, lines: Lines, launches, targets, macros: list) -> None:
    """`static constexpr auto store_kernel = store_kvcache<...>;` inside a class or namespace: an alias."""
    value = node.child_by_field_name("default_value")
    declarator = node.child_by_field_name("declarator")
    if value is None and declarator is not None and declarator.type == "init_declarator":
        value = declarator.child_by_field_name("value")
        declarator = declarator.child_by_field_name("declarator")
    if value is None or declarator is None or declarator.type not in ("identifier", "field_identifier"):
        return
    refs, has_launch = scan_refs(text, value.start_byte, value.end_byte, lines, launches, targets)
    if refs:
        macros.append(CppMacro(declarator.text.decode(), node.start_point[0] + 1, refs, has_launch))
