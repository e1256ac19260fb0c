"""The names one C++ body (or macro) references, read from its text with a regex: each name as written (`ns::f`,
`Cls<T>::f`, `x.f` with the receiver's type: atlas.parse.kernels.receivers), whether it is called or launched
(`<<<...>>>` or a launch API naming it) and whether it is a variable of the function (atlas.parse.kernels
.cppdecls)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from atlas.parse.kernels.receivers import Caller, is_member, template_qualifier
from atlas.parse.kernels.receivers import receiver as receiver_type
from atlas.parse.kernels.text import Lines, closing

_SPACE = frozenset(" \t\n\r\\")
_REACHED = frozenset(".>:e")  # the last character of what comes before a member or `Cls<T>::` name
# a name (group 1), or the last of `ns :: ns :: name` (group 2), and the character after the blanks that follow it
# (group 3); possessive, so that re does not try the names' shorter prefixes
_REF = re.compile(r"([A-Za-z_]\w*+)(?:\s*+::\s*+([A-Za-z_]\w*+))*+(?=[ \t\n\r\\]*+(.?))", re.S)
_BLANKS = re.compile(r"\s+")
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
    """A name used in a body: `ns::name` as written, whether it is called and whether a launch names it; for a
    member call (`x.name(...)`, `x->name(...)`) the receiver's declared type."""

    name: str
    qualifier: str  # "vllm::" in `vllm::foo_kernel<T><<<...>>>`, else ""
    line: int
    is_call: bool
    is_launch: bool
    receiver: str = ""  # a member call's receiver type: "ns::Foo", UNTYPED when not written; "" for a call by name
    is_dependent: bool = False  # the receiver's type or the qualifier is a template parameter of the caller
    is_variable: bool = False  # a variable of the caller (parameter or local): calling it calls what it holds


def scan_refs(
    text: str,
    start: int,
    end: int,
    lines: Lines,
    launches: set[int],
    targets: set[int],
    caller: Caller | None = None,
) -> tuple[tuple[Ref, ...], bool]:
    """The names referenced in text[start:end] (deduplicated by name, qualifier and receiver, first line kept,
    flags merged) and whether that stretch launches anything. `caller`: the function whose body it is (its
    variables type member calls and shadow functions of their name)."""
    launch_here = any(start <= offset < end for offset in launches)
    has_launch = launch_here or any(start <= t < end for t in targets)
    found: dict[str, list] = {}  # key -> [name, qualifier, first offset, is_call, is_launch, receiver, dependent]
    keywords = _KEYWORDS
    for match in _REF.finditer(text, start, end):
        name, last, follower = match.groups()
        begin = match.start()
        previous = text[begin - 1] if begin else ""
        if previous == " " and text.endswith("template", 0, begin - 1):
            previous = "e"
        member, outer = False, ""
        if previous in _REACHED:  # `.`, `->`, `::` or `template ` just before the name
            member = last is None and is_member(text, begin)
            outer = "" if member else template_qualifier(text, begin)  # `Foo<T>::` before the name
        if last is None:
            if name in keywords:
                continue
            ref = found.get(name)
            if ref is not None and not member and not outer and not has_launch and follower != "<":
                ref[3] = ref[3] or follower == "("  # a name seen before: only a call is news
                continue
        elif last in keywords:
            continue
        else:
            name = last
        if follower == "<" or launch_here:
            is_call, is_launch = _use(text, match.end(), end, launches, begin in targets)
        else:
            is_launch = begin in targets
            is_call = is_launch or follower == "("
        receiver, dependent = "", False
        if member:
            if not is_call:
                continue  # a member that is not called
            qualifier = ""
            receiver, dependent = receiver_type(text, begin, caller)
        else:
            qualifier = outer + (_BLANKS.sub("", text[begin : match.start(2)]) if last is not None else "")
            dependent = bool(qualifier) and caller is not None and caller.is_dependent(qualifier)
        key = f"{qualifier}{name}" if not member else f"{receiver}.{name}"
        ref = found.get(key)
        if ref is None:
            found[key] = [name, qualifier, begin, is_call, is_launch, receiver, dependent]
        else:
            ref[3] |= is_call
            ref[4] |= is_launch
    refs = []
    for n, q, b, c, launch, receiver, dependent in found.values():
        variable = bool(caller and not q and not receiver and caller.declarations.declares(n, caller.start, b))
        refs.append(Ref(n, q, lines.line(b), c, launch, receiver, dependent, variable))
    return tuple(refs), has_launch


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
