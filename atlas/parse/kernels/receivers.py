"""How a name in a C++ body is reached, read backwards from it in the text atlas.parse.kernels.cpp scans: through
`.`/`->` (a member call) on which receiver, or through `Cls<...>::`. A receiver's type is a chain the index
evaluates (atlas.parse.kernels.lookup): its first step a type or a function (whose return type it is), then the
methods called on it and the members (`@name`) read from it, joined by "."; `TensorMatcher({N}).with_dtype<T>()
.verify(x)` calls `verify` on "TensorMatcher.with_dtype", `auto n = SymbolicSize{"n"}; n.unwrap()` calls `unwrap`
on "SymbolicSize", and `params.sem[i].get()` in a method of Kernel taking `const Params& params` calls `get` on
"Params.@sem"."""

from __future__ import annotations

from dataclasses import dataclass

from atlas.parse.kernels.cppdecls import UNTYPED, Declarations, type_name

_SPACE = frozenset(" \t\n\r\\")
_PAIRS = {")": "(", "}": "{", ">": "<", "]": "["}
_MAX_STEPS = 6


@dataclass(frozen=True, slots=True)
class Caller:
    """What the names of one function's body are looked up in: its variables and template parameters."""

    start: int  # where the definition begins: its parameters are declared after it
    scope: str  # "ns::Foo::" for a method of Foo
    is_method: bool  # the scope ends with a class
    template_params: frozenset[str]
    declarations: Declarations

    def is_dependent(self, type_name: str) -> bool:
        """Whether a type (or qualifier) names a template parameter of the function or its class."""
        return type_name.split("::", 1)[0] in self.template_params


def before(text: str, at: int) -> int:
    """The offset of the last non-blank character before `at` (-1 when none)."""
    at -= 1
    while at >= 0 and text[at] in _SPACE:
        at -= 1
    return at


def _past_template_keyword(text: str, at: int) -> int:
    """`at` moved before a `template` keyword ending there (`x.template f<T>()`, `T::template f<T>()`)."""
    if text.endswith("template", 0, at + 1) and (at < 8 or not (text[at - 8].isalnum() or text[at - 8] == "_")):
        return before(text, at - 7)
    return at


def _operator(text: str, at: int) -> int:
    """The offset before a member access operator ending at `at` (`.` or `->`), or -1 when there is none."""
    if at > 0 and text[at] == "." and text[at - 1] != ".":
        return at - 1
    if at > 0 and text[at] == ">" and text[at - 1] == "-":
        return at - 2
    return -1


def is_member(text: str, begin: int) -> bool:
    """Whether the name at `begin` follows `.` or `->` (a `template` keyword between allowed)."""
    return _operator(text, _past_template_keyword(text, before(text, begin))) >= 0


def _opening(text: str, at: int, limit: int = 2000) -> int:
    """The offset of the bracket that opens the one closing at `at` (text masked), or -1."""
    closer, opener = text[at], _PAIRS[text[at]]
    depth, stop = 0, max(0, at - limit)
    while at >= stop:
        ch = text[at]
        if ch == closer and not (closer == ">" and at > 0 and text[at - 1] == "-"):
            depth += 1
        elif ch == opener:
            depth -= 1
            if depth == 0:
                return at
        at -= 1
    return -1


def _name_before(text: str, at: int) -> tuple[str, int]:
    """The (possibly qualified, template arguments dropped) name ending at `at`, and where it begins; ("", -1)."""
    parts: list[str] = []
    while at >= 0 and len(parts) < 8:
        if text[at] == ">":
            opened = _opening(text, at, 400)
            if opened < 0:
                return "", -1
            at = before(text, opened)
        begin = at + 1
        while begin > 0 and (text[begin - 1].isalnum() or text[begin - 1] == "_"):
            begin -= 1
        if begin > at or text[begin].isdigit():
            break
        parts.append(text[begin : at + 1])
        at = before(text, begin)
        if at < 1 or text[at] != ":" or text[at - 1] != ":":
            return "::".join(reversed(parts)), begin
        at = _past_template_keyword(text, before(text, at - 1))
    return ("::".join(reversed(parts)), begin) if parts else ("", -1)


def template_qualifier(text: str, begin: int) -> str:
    """The classes before the name at `begin` that scan_refs's names stop short of: "ns::Foo::" for
    `ns::Foo<T, 4>::name`, "T::" for `T::template name`; "" otherwise (`a::b` scan_refs reads whole)."""
    last = before(text, begin)
    colons = _past_template_keyword(text, last)
    if colons < 1 or text[colons] != ":" or text[colons - 1] != ":":
        return ""
    at = before(text, colons - 1)
    if at < 0 or (text[at] != ">" and colons == last):
        return ""
    name, _ = _name_before(text, at)
    return f"{name}::" if name else ""


def receiver(text: str, begin: int, caller: Caller | None) -> tuple[str, bool]:
    """(the type chain of the object a member call at `begin` is made on, whether it is a template parameter);
    UNTYPED when it cannot be read (an expression, a member of another object, `auto` from an unknown value)."""
    if caller is None:
        return UNTYPED, False
    at = _operator(text, _past_template_keyword(text, before(text, begin)))
    return expression_type(text, at + 1, caller)


def expression_type(text: str, end: int, caller: Caller, depth: int = 0) -> tuple[str, bool]:
    """The type chain of the expression ending at `end` (see the module's docstring), and whether it is a
    template parameter of the caller."""
    steps: list[str] = []
    at = before(text, end)
    while at >= 0 and len(steps) < _MAX_STEPS:
        ch = text[at]
        if ch == "]":  # an element: of the type the array or pointer holds
            opened = _opening(text, at)
            if opened < 0:
                return UNTYPED, False
            at = before(text, opened)
            continue
        if ch in ")}":
            opened = _opening(text, at)
            name, begin = _name_before(text, before(text, opened)) if opened >= 0 else ("", -1)
            if not name:
                return UNTYPED, False
            if name.endswith("_cast"):  # `static_cast<Foo*>(x)`: the type in the brackets
                name = type_name(text[text.find("<", begin, opened) + 1 : text.rfind(">", begin, opened)])
                if not name:
                    return UNTYPED, False
            steps.append(name)
            at = _operator(text, _past_template_keyword(text, before(text, begin))) if ch == ")" else -1
            if at < 0:
                break  # a free function's call or a construction: the chain's first step
            at = before(text, at + 1)
            continue
        name, begin = _name_before(text, at)
        if not name or "::" in name:
            return UNTYPED, False  # a namespace's or class's variable
        at = _operator(text, before(text, begin))
        if at >= 0:  # a member of the object before it
            steps.append(f"@{name}")
            at = before(text, at + 1)
            continue
        head = _variable_type(text, name, begin, caller, depth)
        if head[0] == UNTYPED or head[1]:
            return head if not steps else (UNTYPED, False)
        steps.append(head[0])
        break
    else:
        return UNTYPED, False
    return ".".join(reversed(steps)), False


def _variable_type(text: str, name: str, at: int, caller: Caller, depth: int) -> tuple[str, bool]:
    """The type chain of a variable used at `at`: `this`, a parameter or local (its written type, or for `auto` its
    initializer's), else a member of the caller's class."""
    if name == "this":
        return (caller.scope[:-2], False) if caller.is_method else (UNTYPED, False)
    declared = caller.declarations.variable(name, caller.start, at)
    if declared is None:
        return (f"{caller.scope[:-2]}.@{name}", False) if caller.is_method else (UNTYPED, False)
    type_name, initializer = declared
    if type_name:
        return type_name, caller.is_dependent(type_name)
    if initializer > 0 and depth < 3:
        return expression_type(text, initializer, caller, depth + 1)
    return UNTYPED, False
