"""The tree-sitter Python grammar as the extractor uses it: the language, a parser, field ids (cheaper than field
names on every lookup) and the node-type sets the walker tests against."""

from __future__ import annotations

import re

import tree_sitter as ts
import tree_sitter_python as tsp

LANGUAGE = ts.Language(tsp.language())
F_ALIAS = LANGUAGE.field_id_for_name("alias")
F_ARGUMENT = LANGUAGE.field_id_for_name("argument")
F_OPERATOR = LANGUAGE.field_id_for_name("operator")
F_ARGUMENTS = LANGUAGE.field_id_for_name("arguments")
F_ATTRIBUTE = LANGUAGE.field_id_for_name("attribute")
F_BODY = LANGUAGE.field_id_for_name("body")
F_CONDITION = LANGUAGE.field_id_for_name("condition")
F_CONSEQUENCE = LANGUAGE.field_id_for_name("consequence")
F_DEFINITION = LANGUAGE.field_id_for_name("definition")
F_FUNCTION = LANGUAGE.field_id_for_name("function")
F_KEY = LANGUAGE.field_id_for_name("key")
F_LEFT = LANGUAGE.field_id_for_name("left")
F_MODULE_NAME = LANGUAGE.field_id_for_name("module_name")
F_NAME = LANGUAGE.field_id_for_name("name")
F_OBJECT = LANGUAGE.field_id_for_name("object")
F_PARAMETERS = LANGUAGE.field_id_for_name("parameters")
F_RETURN_TYPE = LANGUAGE.field_id_for_name("return_type")
F_RIGHT = LANGUAGE.field_id_for_name("right")
F_SUPERCLASSES = LANGUAGE.field_id_for_name("superclasses")
F_TYPE = LANGUAGE.field_id_for_name("type")
F_VALUE = LANGUAGE.field_id_for_name("value")
DOTTED = re.compile(r"^[A-Za-z_][\w.]*$")
ANNOT_WRAPPERS = {"Optional", "Union", "Annotated", "ClassVar", "Final"}
CLASS_WRAPPERS = {"Type", "type"}  # `type[X]` names the class X itself, not an instance
TRITON_DECORATORS = ("triton.jit", "triton.autotune", "triton.heuristics", "jit", "autotune", "heuristics")


def parser() -> ts.Parser:
    return ts.Parser(LANGUAGE)


# Generic containers an annotation may name, and what their (last) type argument types: "list" the elements
# (the first argument), "tuple" the elements (every argument), "dict" the values (the last argument).
CONTAINER_ANNOTATIONS = {
    **dict.fromkeys(
        (
            "list",
            "List",
            "Sequence",
            "MutableSequence",
            "Iterable",
            "Iterator",
            "Collection",
            "set",
            "Set",
            "frozenset",
            "FrozenSet",
            "AbstractSet",
            "MutableSet",
            "deque",
            "Deque",
            "Generator",
            "AsyncIterator",
            "AsyncIterable",
        ),
        "list",
    ),
    **dict.fromkeys(("tuple", "Tuple"), "tuple"),
    **dict.fromkeys(("dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict", "defaultdict"), "dict"),
}
# Operators and the special methods Python calls for them (on the left operand; the reflected one on the right).
BINARY_METHODS = {
    "+": ("__add__", "__radd__"),
    "-": ("__sub__", "__rsub__"),
    "*": ("__mul__", "__rmul__"),
    "/": ("__truediv__", "__rtruediv__"),
    "//": ("__floordiv__", "__rfloordiv__"),
    "%": ("__mod__", "__rmod__"),
    "**": ("__pow__", "__rpow__"),
    "@": ("__matmul__", "__rmatmul__"),
    "<<": ("__lshift__", "__rlshift__"),
    ">>": ("__rshift__", "__rrshift__"),
    "&": ("__and__", "__rand__"),
    "|": ("__or__", "__ror__"),
    "^": ("__xor__", "__rxor__"),
}
IN_PLACE_METHODS = {method: "__i" + method[2:] for method, _ in BINARY_METHODS.values()}  # `a += b`: a.__iadd__
COMPARISON_METHODS = {
    "<": ("__lt__", "__gt__"),
    "<=": ("__le__", "__ge__"),
    ">": ("__gt__", "__lt__"),
    ">=": ("__ge__", "__le__"),
    "==": ("__eq__", "__eq__"),
    "!=": ("__ne__", "__ne__"),
}
UNARY_METHODS = {"-": "__neg__", "+": "__pos__", "~": "__invert__"}
FORMAT_CONVERSIONS = {"!r": "__repr__", "!a": "__repr__", "!s": "__str__"}  # f"{x!r}": the method formatting x
