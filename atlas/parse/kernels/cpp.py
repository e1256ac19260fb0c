"""One C++/CUDA file -> its functions (`__global__` kernels marked), macros, member aliases, includes, what name
lookup needs of its classes (bases, virtual methods, data members) and namespaces (aliases, `using`s), and the names
each function references (calls, launches: atlas.parse.kernels.refs). tree-sitter-cpp gives the structure; CUDA-only
syntax (`__global__`, `__launch_bounds__(...)`, `<<<...>>>`) is blanked first (atlas.parse.kernels.cuda), offsets
kept, so the grammar sees plain C++."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

import tree_sitter_cpp
from tree_sitter import Language, Parser

from atlas.parse.kernels.cppdecls import DeclarationReader, declared_name, type_name
from atlas.parse.kernels.cuda import prepare
from atlas.parse.kernels.receivers import Caller
from atlas.parse.kernels.refs import Ref, scan_refs
from atlas.parse.kernels.text import Lines

CPP_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".h", ".hpp", ".hxx", ".inl", ".inc")

_LANGUAGE = Language(tree_sitter_cpp.language())
_DECLARATIONS = DeclarationReader(_LANGUAGE)
_BLANKS = re.compile(r"\s+")
_TEMPLATE_ARGS = re.compile(r"<[^<>]*(<[^<>]*>[^<>]*)*>")
_TEMPLATE_TAIL = re.compile(r"<.*", re.S)
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


@dataclass(frozen=True, slots=True)
class CppFunction:
    qualname: str  # namespaces and classes joined by "::", e.g. "vllm::reshape_and_cache_flash_kernel"
    start: int
    end: int
    is_kernel: bool  # declared __global__
    refs: tuple[Ref, ...]
    has_launch: bool  # the body (or a macro it expands) launches something
    namespace: str = ""  # the namespaces part of qualname, e.g. "vllm::"; the rest before the name is classes
    returns: str = ""  # the declared return type when it is a class ("" for `auto`, `void`, a template parameter)

    # derived from qualname and namespace, kept because lookup reads them for every candidate
    name: str = field(init=False, compare=False)
    scope: str = field(init=False, compare=False)  # where the body's names are looked up from: "vllm::Foo::"
    class_name: str = field(init=False, compare=False)  # the class (last part) of a method; "" for a function

    def __post_init__(self) -> None:
        name = self.qualname.rsplit("::", 1)[-1]
        scope = self.qualname[: -len(name)]
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "scope", scope)
        object.__setattr__(
            self, "class_name", scope[:-2].rsplit("::", 1)[-1] if len(scope) > len(self.namespace) else ""
        )

    @property
    def is_method(self) -> bool:
        return bool(self.class_name)


@dataclass(frozen=True, slots=True)
class CppMacro:
    """A `#define`, or a class/namespace-level alias (`static constexpr auto k = kernel<...>;`): a name whose uses
    stand for the names in its body."""

    name: str
    line: int
    refs: tuple[Ref, ...]
    has_launch: bool
    scope: str = ""  # an alias's class or namespace ("ns::Store::"); "" for a #define


@dataclass(frozen=True, slots=True)
class CppFile:
    path: str
    functions: tuple[CppFunction, ...]
    macros: tuple[CppMacro, ...]
    includes: tuple[str, ...]
    aliases: tuple[tuple[str, str], ...] = ()  # (alias, type): `using A = B;`, `typedef B A;` anywhere in the file
    usings: tuple[str, ...] = ()  # "ns::" for `using namespace ns;`, "ns::f" for `using ns::f;`
    bases: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (class qualname, the type names it derives from)
    virtuals: tuple[str, ...] = ()  # "Class::method" of the methods declared `virtual` (class: its last part)
    fields: tuple[tuple[str, str, str], ...] = ()  # (class qualname, member, its type when a class; "" otherwise)


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
    """Parse one C++/CUDA file (its text as read) into functions, macros, includes and the declarations name lookup
    needs. The walk enters neither the functions it collects nor preprocessor definitions, and enters namespaces
    and classes only through their bodies; it skips unnamed nodes (tokens, which have no children)."""
    masked, text, launches, targets, marks = prepare(source, prefer_rocm=is_rocm_path(path))
    lines = Lines(text)
    tree = Parser(_LANGUAGE).parse(text.encode())
    declarations = _DECLARATIONS.read(tree.root_node)
    functions, macros, includes, bases, virtuals, fields = [], [], [], [], [], []
    stack: list = [tree.root_node]  # the nodes left to visit, next last; a tuple is the scope to return to
    scope, namespace, params = "", "", frozenset()  # class or namespace, its namespaces, template parameters
    while stack:
        node = stack.pop()
        if node.__class__ is tuple:
            scope, namespace, params = node
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
                outer = scope + name[: -len(name.rsplit("::", 1)[-1])]
                own = params | _template_params(node)
                caller = Caller(node.start_byte, outer, len(outer) > len(namespace), own, declarations)
                refs, has_launch = scan_refs(text, body.start_byte, body.end_byte, lines, launches, targets, caller)
                is_kernel = _is_kernel(masked, marks, node.start_byte, declarator.start_byte)
                returns = _return_type(node, declarator)
                if caller.is_method and _is_virtual(node):
                    virtuals.append(f"{outer[:-2].rsplit('::', 1)[-1]}::{name.rsplit('::', 1)[-1]}")
                functions.append(
                    CppFunction(
                        scope + name,
                        node.start_point[0] + 1,
                        node.end_point[0] + 1,
                        is_kernel,
                        refs,
                        has_launch,
                        namespace,
                        "" if caller.is_dependent(returns) else returns,
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
            if target is not None:  # read from the source: the text the grammar parsed has its strings blanked
                includes.append(source[target.start_byte : target.end_byte].strip('"<> '))
            continue
        elif kind in ("field_declaration", "declaration"):
            if scope:
                _alias(node, text, lines, launches, targets, macros, scope)
            if len(scope) > len(namespace):  # a class member
                _member(node, scope[:-2], params, virtuals, fields)
        else:  # a namespace or class: its body, in its scope
            body = node.child_by_field_name("body")
            if body is not None:
                stack.append((scope, namespace, params))
                is_namespace = kind == "namespace_definition"
                scope += _scope_name(node.child_by_field_name("name"), is_namespace)
                if is_namespace:
                    namespace = scope
                else:
                    params = params | _template_params(node)
                    _bases(node, scope, bases)
                stack += reversed(body.named_children)
            continue
        stack += reversed(node.named_children)
    functions.sort(key=lambda f: f.start)
    return CppFile(
        path,
        tuple(functions),
        tuple(macros),
        tuple(includes),
        tuple(declarations.aliases),
        tuple(declarations.usings),
        tuple(bases),
        tuple(virtuals),
        tuple(fields),
    )


def _member(node, cls: str, params: frozenset[str], virtuals: list, fields: list) -> None:
    """A member declaration in class `cls`'s body: a virtual method into `virtuals`, a data member into `fields`."""
    declarator = node.child_by_field_name("declarator")
    method = _declarator_name(declarator)
    if method:
        if _is_virtual(node):
            virtuals.append(f"{cls.rsplit('::', 1)[-1]}::{method[0]}")
        return
    name = declared_name(declarator)
    written = node.child_by_field_name("type")
    if name and written is not None:
        found = type_name(written.text.decode())
        fields.append((cls, name, "" if found.split("::", 1)[0] in params else found))


def _is_virtual(node) -> bool:
    return any(child.type == "virtual" for child in node.children)


def _return_type(node, declarator) -> str:
    """The class a function definition returns (`Foo&`, `auto f() -> Foo&`), "" for none (atlas.parse.kernels
    .cppdecls.type_name)."""
    written = node.child_by_field_name("type")
    if written is None:
        return ""
    if written.type == "placeholder_type_specifier":
        trailing = next((c for c in declarator.children if c.type == "trailing_return_type"), None)
        return type_name(trailing.text.decode()[2:]) if trailing is not None else ""
    return type_name(written.text.decode())


def _template_params(node) -> frozenset[str]:
    """The type parameters of the template a definition (function or class) is declared by, if any."""
    parent = node.parent
    if parent is None or parent.type != "template_declaration":
        return frozenset()
    names = set()
    for param in parent.child_by_field_name("parameters").named_children:
        if param.type.endswith("type_parameter_declaration") or param.type.startswith("template_template"):
            names.update(c.text.decode() for c in param.named_children if c.type == "type_identifier")
    return frozenset(names)


def _bases(node, scope: str, bases: list) -> None:
    """`struct Foo : Base<T>, ns::Other` -> ("...Foo", ("Base", "ns::Other")) into `bases`."""
    for child in node.named_children:
        if child.type == "base_class_clause":
            types = (c for c in child.named_children if c.type != "access_specifier")
            names = tuple(filter(None, (type_name(c.text.decode()) for c in types)))
            if names:
                bases.append((scope[:-2], names))


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


def _alias(node, text: str, lines: Lines, launches, targets, macros: list, scope: str) -> None:
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
        macros.append(CppMacro(declarator.text.decode(), node.start_point[0] + 1, refs, has_launch, scope))
