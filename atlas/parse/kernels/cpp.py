"""One C++/CUDA file -> its functions (`__global__` kernels marked), macros, member aliases, includes, and the names
each of them references (calls, launches). tree-sitter-cpp gives the structure; CUDA-only syntax (`__global__`,
`__launch_bounds__(...)`, `<<<...>>>`) is blanked first (atlas.parse.kernels.cuda), offsets kept, so the grammar
sees plain C++."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

import tree_sitter_cpp
from tree_sitter import Language, Parser

from atlas.parse.kernels.cuda import prepare
from atlas.parse.kernels.text import Lines, closing

CPP_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".h", ".hpp", ".hxx", ".inl", ".inc")

_LANGUAGE = Language(tree_sitter_cpp.language())
_SPACE = frozenset(" \t\n\r\\")
# a name (group 1), or the last of `ns :: ns :: name` (group 2), and the character after the blanks that follow it
# (group 3); possessive, so that re does not try the names' shorter prefixes
_REF = re.compile(r"([A-Za-z_]\w*+)(?:\s*+::\s*+([A-Za-z_]\w*+))*+(?=[ \t\n\r\\]*+(.?))", re.S)
_BLANKS = re.compile(r"\s+")
_TEMPLATE_ARGS = re.compile(r"<[^<>]*(<[^<>]*>[^<>]*)*>")
_TEMPLATE_TAIL = re.compile(r"<.*")
# the node types parse_cpp's walk does something with; it only goes through the others
_COLLECTED = frozenset(
    {
        "function_definition",
        "preproc_function_def",
        "preproc_def",
        "preproc_include",
        "field_declaration",
        "declaration",
        "namespace_definition",
        "class_specifier",
        "struct_specifier",
    }
)
_KEYWORDS = frozenset(
    """
    alignas alignof auto bool break case catch char class const constexpr const_cast continue decltype default delete
    do double dynamic_cast else enum explicit extern false float for friend goto if inline int long mutable namespace
    new noexcept nullptr operator private protected public register reinterpret_cast return short signed sizeof static
    static_assert static_cast struct switch template this throw true try typedef typeid typename union unsigned using
    virtual void volatile while int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t std torch at
    c10 if_constexpr defined
""".split()
)


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


def scan_refs(
    text: str, start: int, end: int, lines: Lines, launches: set[int], targets: set[int]
) -> tuple[tuple[Ref, ...], bool]:
    """The names referenced in text[start:end] (deduplicated, first line kept, flags merged) and whether that
    stretch launches anything."""
    launch_here = any(start <= offset < end for offset in launches)
    has_launch = launch_here or any(start <= t < end for t in targets)
    found: dict[str, list] = {}  # qualifier + name -> [name, qualifier, offset of the first use, is_call, is_launch]
    keywords = _KEYWORDS
    for match in _REF.finditer(text, start, end):
        name, last, follower = match.groups()
        if last is None:
            if name in keywords:
                continue
            ref = found.get(name)
            if ref is not None and not has_launch and follower != "<":  # a name seen before: only a call is news
                ref[3] = ref[3] or follower == "("
                continue
        elif last in keywords:
            continue
        else:
            name = last
        begin = match.start()
        if follower == "<" or launch_here:
            is_call, is_launch = _use(text, match.end(), end, launches, begin in targets)
        else:
            is_launch = begin in targets
            is_call = is_launch or follower == "("
        if last is not None:
            qualifier = _BLANKS.sub("", text[begin : match.start(2)])
        elif not is_call and begin > 0 and (text[begin - 1] == "." or text[begin - 2 : begin] == "->"):
            continue  # a member that is not called
        else:
            qualifier = ""
        ref = found.get(qualifier + name)
        if ref is None:
            found[qualifier + name] = [name, qualifier, begin, is_call, is_launch]
        else:
            ref[3] |= is_call
            ref[4] |= is_launch
    return tuple(Ref(n, q, lines.line(b), c, launch) for n, q, b, c, launch in found.values()), has_launch


def _use(text: str, after: int, end: int, launches: set[int], is_target: bool) -> tuple[bool, bool]:
    """(is_call, is_launch) for the name ending at `after`: past the blanks and template arguments that follow it,
    a `(` calls it; a `<<<` launch on the way (blanked by prepare) or a launch API naming it (`is_target`)
    launches it."""
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
    is_launch = chevron or is_target
    return is_launch or (after < end and text[after] == "("), is_launch


def _declarator_name(node) -> tuple[str, object] | None:
    """The name a function declarator declares, and the declarator node."""
    while node is not None and node.type in ("pointer_declarator", "reference_declarator", "attributed_declarator"):
        node = node.child_by_field_name("declarator") or (node.named_children[-1] if node.named_children else None)
    if node is None or node.type != "function_declarator":
        return None
    name = node.child_by_field_name("declarator")
    if name is None:
        return None
    return _BLANKS.sub("", _TEMPLATE_ARGS.sub("", name.text.decode())), node


def is_rocm_path(path: str) -> bool:
    """Files only a ROCm build compiles (their `#ifdef USE_ROCM` branches are the live ones)."""
    return bool(re.search(r"(^|/)(rocm|hip)(/|$)|_hip\.|rocm_", path))


def parse_cpp(path: str, source: str) -> CppFile:
    """Parse one C++/CUDA file (its text as read) into functions, macros and includes. The walk enters neither the
    functions it collects nor preprocessor definitions, and enters namespaces and classes only through their
    bodies; it skips unnamed nodes (tokens, which have no children)."""
    masked, text, launches, targets, marks = prepare(source, prefer_rocm=is_rocm_path(path))
    lines = Lines(text)
    tree = Parser(_LANGUAGE).parse(text.encode())
    functions, macros, includes = [], [], []
    stack: list = [tree.root_node]  # the nodes left to visit, next last; a string is the scope to return to
    scope = ""
    while stack:
        node = stack.pop()
        if node.__class__ is str:
            scope = node
            continue
        kind = node.type
        if kind not in _COLLECTED:
            stack += reversed(node.named_children)
            continue
        if kind == "function_definition":
            declared = _declarator_name(node.child_by_field_name("declarator"))
            body = node.child_by_field_name("body")
            if declared and body is not None:
                name, declarator = declared
                refs, has_launch = scan_refs(text, body.start_byte, body.end_byte, lines, launches, targets)
                is_kernel = _is_kernel(masked, marks, node.start_byte, declarator.start_byte)
                functions.append(
                    CppFunction(
                        scope + name, node.start_point[0] + 1, node.end_point[0] + 1, is_kernel, refs, has_launch
                    )
                )
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
        elif kind in ("field_declaration", "declaration"):
            if scope:
                _alias(node, text, lines, launches, targets, macros)
        else:  # a namespace or class: its body, in its scope
            body = node.child_by_field_name("body")
            if body is not None:
                stack.append(scope)
                scope += _scope_name(node.child_by_field_name("name"), kind == "namespace_definition")
                stack += reversed(body.named_children)
            continue
        stack += reversed(node.named_children)
    functions.sort(key=lambda f: f.start)
    return CppFile(path, tuple(functions), tuple(macros), tuple(includes))


def _scope_name(name, is_namespace: bool) -> str:
    """What a namespace or class adds to the scope of its body: "vllm::", "Foo::" for `Foo<T>`, or ""."""
    if name is None:
        return ""
    if is_namespace:
        return name.text.decode() + "::"
    label = _TEMPLATE_TAIL.sub("", name.text.decode())
    return label + "::" if label else ""


def _is_kernel(masked: str, marks: list[int], start: int, declarator: int) -> bool:
    """Whether a `__global__` (or a macro standing for it) is among the specifiers: between the statement boundary
    before the definition (the grammar starts it after the blanked attribute) and its declarator."""
    if not marks:
        return False
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
