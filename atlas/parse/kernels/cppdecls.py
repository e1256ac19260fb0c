"""The declarations of one C++/CUDA file that name lookup needs (atlas.parse.kernels.cpp uses them while it reads the
bodies): each variable's declared type (parameters and locals), type and namespace aliases (`using A = B;`,
`typedef B A;`, `namespace A = B;`) and `using` directives and declarations, from one tree-sitter query over the
parsed file."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from tree_sitter import Language, Node, Query, QueryCursor

UNTYPED = "?"  # a receiver whose type is not written where it is declared (`auto`, an expression)

_TEMPLATE_ARGS = re.compile(r"<[^<>]*>")
_NOISE = re.compile(r"\b(?:const|volatile|typename|struct|class|enum|__restrict__|__restrict)\b|\s+")
_NOT_CLASSES = frozenset(
    """auto void bool char short int long float double signed unsigned size_t int8_t int16_t int32_t int64_t uint8_t
    uint16_t uint32_t uint64_t half float2 float4 half2 bf16 nv_bfloat16 nv_bfloat162 __half __half2""".split()
)
_DECLARATOR = frozenset(
    {"init_declarator", "pointer_declarator", "reference_declarator", "array_declarator", "attributed_declarator"}
)
_PATTERNS = """
(parameter_declaration type: (_) @type declarator: (_) @var)
(optional_parameter_declaration type: (_) @type declarator: (_) @var)
(declaration type: (_) @type declarator: (_) @var)
(for_range_loop type: (_) @type declarator: (_) @var)
(alias_declaration name: (_) @alias type: (_) @target)
(type_definition type: (_) @target declarator: (_) @alias)
(using_declaration) @using
(namespace_alias_definition name: (_) @namespace) @definition
"""


def type_name(text: str) -> str:
    """`const vllm::Foo<T, 4>&` -> `vllm::Foo`; "" for a type without members (`int`, `auto`, `decltype(...)`)."""
    while "<" in text:
        stripped = _TEMPLATE_ARGS.sub("", text)
        if stripped == text:
            break
        text = stripped
    text = _NOISE.sub("", text).rstrip("*&").lstrip(":")
    if not text or "(" in text or "<" in text or text.split("::")[-1] in _NOT_CLASSES:
        return ""
    return text


def text_of(node: Node) -> str:
    return (node.text or b"").decode()


def declared_name(node: Node | None, in_body: bool = False) -> str:
    """The variable a declarator declares (`*x`, `&x`, `x[4]`, `x = ...`); "" for a function declarator, except in
    a body (`in_body`), where `Foo x(a, b);` is a variable constructed from arguments (the grammar reads a function)."""
    while node is not None and (node.type in _DECLARATOR or (in_body and node.type == "function_declarator")):
        node = node.child_by_field_name("declarator") or (node.named_children[0] if node.named_children else None)
    if node is None or node.type not in ("identifier", "field_identifier"):
        return ""
    return text_of(node)


@dataclass(slots=True)
class Declarations:
    """One file's declarations, by name."""

    # name -> [(offset, type as written, where its initializer ends or 0)], sorted
    variables: dict[str, list[tuple[int, str, int]]] = field(default_factory=dict)
    aliases: list[tuple[str, str]] = field(default_factory=list)  # (alias, the type or namespace it stands for)
    usings: list[str] = field(default_factory=list)  # "ns::" for `using namespace ns;`, "ns::f" for `using ns::f;`

    def declares(self, name: str, start: int, offset: int) -> bool:
        """Whether text[start:offset + 1] declares a variable `name`."""
        found = self.variables.get(name)
        if not found:
            return False
        i = bisect.bisect_left(found, (offset + 1,)) - 1
        return i >= 0 and found[i][0] >= start

    def variable(self, name: str, start: int, offset: int) -> tuple[str, int] | None:
        """(declared type, where an `auto` one's initializer ends or 0) of the variable `name` last declared in
        text[start:offset + 1] (the use may be the declaration itself; the type is "" when it has no members or is
        `auto`); None when nothing there declares it."""
        if not self.declares(name, start, offset):
            return None
        found = self.variables[name]
        i = bisect.bisect_left(found, (offset + 1,)) - 1
        written = type_name(found[i][1])
        return written, 0 if written else found[i][2]


class DeclarationReader:
    """The query, compiled once per process."""

    def __init__(self, language: Language) -> None:
        self._query = Query(language, _PATTERNS)

    def read(self, root: Node) -> Declarations:
        found = Declarations()
        for _, captures in QueryCursor(self._query).matches(root):
            if "using" in captures:
                node = captures["using"][0]
                text = _NOISE.sub("", text_of(node)[5:].rstrip(";"))
                if text.startswith("namespace"):
                    found.usings.append(text[9:].lstrip(":") + "::")
                elif "::" in text and "=" not in text:
                    found.usings.append(text.lstrip(":"))
            elif "namespace" in captures:
                target = text_of(captures["definition"][0]).partition("=")[2]
                found.aliases.append((text_of(captures["namespace"][0]), _NOISE.sub("", target).strip(";:")))
            elif "alias" in captures:
                alias = captures["alias"][0]
                if alias.type == "type_identifier":
                    found.aliases.append((text_of(alias), type_name(text_of(captures["target"][0]))))
            else:
                var = captures["var"][0]
                block = var.parent.parent if var.parent is not None else None
                name = declared_name(var, block is not None and block.type == "compound_statement")
                if name:
                    value = var.child_by_field_name("value") if var.type == "init_declarator" else None
                    end = value.end_byte if value is not None else 0
                    found.variables.setdefault(name, []).append((var.start_byte, text_of(captures["type"][0]), end))
        for declared in found.variables.values():
            declared.sort()
        return found
