"""Kernel names as profilers print them, read: C++ symbols demangled with the GNU demangler (libstdc++'s
`abi::__cxa_demangle`, the code c++filt runs) and a demangled signature cut down to the kernel's qualified name, the
way atlas's C++ index names `__global__` functions (namespaces and classes joined by "::", no template arguments)."""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from functools import cache
from typing import Any

_OPEN = {"(": ")", "<": ">", "[": "]", "{": "}"}
_ANONYMOUS = "(anonymous namespace)"


@cache
def _cxa_demangle() -> tuple[Any, Callable[[Any], None]] | None:
    """libstdc++'s `__cxa_demangle` and libc's `free`, or None where libstdc++ cannot be loaded."""
    found = ctypes.util.find_library("stdc++")
    if not found:
        return None
    try:
        lib, libc = ctypes.CDLL(found), ctypes.CDLL(None)
    except OSError:
        return None
    fn = lib.__cxa_demangle
    fn.restype = ctypes.c_void_p
    fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_int)]
    libc.free.argtypes = [ctypes.c_void_p]
    return fn, libc.free


def can_demangle() -> bool:
    return _cxa_demangle() is not None


def demangle(name: str) -> str:
    """The demangled form of an Itanium-ABI symbol (`_Z...`); any other name (already demangled, a Triton or
    extern "C" kernel, a name the demangler rejects) as it is."""
    if not name.startswith("_Z"):
        return name
    found = _cxa_demangle()
    if found is None:
        return name
    fn, free = found
    status = ctypes.c_int()
    pointer = fn(name.encode(), None, None, ctypes.byref(status))
    if status.value != 0 or not pointer:
        return name
    try:
        return ctypes.string_at(pointer).decode(errors="replace")
    finally:
        free(pointer)


def qualified_name(signature: str) -> str:
    """`void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, ...>(__nv_bfloat16 const*, ...)` ->
    `vllm::reshape_and_cache_flash_kernel`: the return type, template arguments and parameters dropped, anonymous
    namespaces left out. A name with no parameter list (Triton, cuBLAS's `nvjet_*`) comes back as it is."""
    text = signature.strip()
    end = len(text)
    if text.endswith(")"):  # the parameter list: the top-level group the signature ends with
        opened = _matching_open(text, end - 1)
        if opened > 0:
            end = opened
    while end > 0 and text[end - 1] == ">":  # template arguments right before it
        opened = _matching_open(text, end - 1)
        if opened <= 0:
            break
        end = opened
    head = text[:end].rstrip()
    start = _last_top_level_space(head) + 1  # the return type ends at the last space outside brackets
    name = head[start:]
    parts = [p for p in _split_scopes(name) if p != _ANONYMOUS and p]
    return "::".join(_without_arguments(p) for p in parts)


def _without_arguments(scope: str) -> str:
    """A scope's own template arguments dropped: `Foo<T>` -> `Foo`."""
    cut = scope.find("<")
    return scope[:cut] if cut > 0 else scope


def _matching_open(text: str, close_at: int) -> int:
    """The index of the bracket that opens the one closing at `close_at` (`)` or `>`), skipping nested groups of
    any kind; -1 when it does not balance. A `>` inside parentheses (`((8)>(0))`) is a comparison, not a bracket."""
    closing = {v: k for k, v in _OPEN.items()}
    stack: list[str] = []
    for i in range(close_at, -1, -1):
        ch = text[i]
        if ch in closing and (ch != ">" or not stack or stack[-1] != ")"):
            stack.append(ch)
        elif ch in _OPEN and stack and _OPEN[ch] == stack[-1]:
            stack.pop()
            if not stack:
                return i
        elif ch == "<" and stack and stack[-1] == ")":
            continue  # a comparison inside parentheses
    return -1


def _last_top_level_space(text: str) -> int:
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch in ")>]}":
            depth += 1
        elif ch in "(<[{":
            depth -= 1
        elif ch == " " and depth == 0:
            return i
    return -1


def _split_scopes(name: str) -> list[str]:
    """`a::b<c::d>::e` -> ['a', 'b<c::d>', 'e'] (`::` inside brackets kept)."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(name):
        ch = name[i]
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        elif ch == ":" and depth == 0 and name.startswith("::", i):
            parts.append(name[start:i])
            start = i + 2
            i += 1
        i += 1
    parts.append(name[start:])
    return parts
