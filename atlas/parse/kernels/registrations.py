"""torch op registrations in C++: `TORCH_LIBRARY[_FRAGMENT|_IMPL][_EXPAND]` and `STABLE_TORCH_LIBRARY*` blocks with
their `m.def("schema"[, &fn])` and `m.impl("name", [torch::kCUDA,] &fn | TORCH_BOX(&fn))` calls.
Every preprocessor branch is read (CUDA and ROCm builds register different sets)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from atlas.parse.kernels.text import Lines, closing, mask, split_args, string_literals, word_matches

_BLOCK = re.compile(r"\b(?:STABLE_)?TORCH_LIBRARY(_FRAGMENT|_IMPL)?(?:_EXPAND)?\s*\(")
_KEY = re.compile(r"(?:torch|c10|at)::(?:DispatchKey::|k)(\w+)|^k([A-Z]\w+)$")
_FN = re.compile(r"&?\s*((?:[A-Za-z_]\w*\s*::\s*)*[A-Za-z_]\w*)\s*(?:<.*>)?\s*$", re.S)


@dataclass(frozen=True, slots=True)
class Registration:
    """One `def` or `impl` of a torch op. A def may carry a catch-all impl (`m.def("name", &fn)`)."""

    namespace: str  # "_C_cache_ops"
    op: str  # base name, overload dropped: "scaled_fp4_quant" for "scaled_fp4_quant.out"
    kind: str  # "def" | "impl"
    schema: str  # the def's schema string; "" for impl
    dispatch_key: str  # "CUDA", "CPU", "CompositeExplicitAutograd", ...; "" for a def without impl
    impl: str  # the C++ function as written, qualified where it is: "vllm::foo"; "" when none
    path: str
    line: int


def extension_name(path: str) -> str:
    """What TORCH_EXTENSION_NAME expands to for a vLLM source file no CMake target lists (a guess by folder)."""
    if "/rocm/" in f"/{path}":
        return "_rocm_C"
    if "/moe/" in f"/{path}":
        return "_moe_C"
    return "_C"


def _namespace(arg: str, path: str, extension: str = "") -> str:
    arg = re.sub(r"\s+", "", arg)
    concat = re.fullmatch(r"CONCAT\((\w+),(\w+)\)", arg)
    if concat:
        return _namespace(concat.group(1), path, extension) + concat.group(2)
    return (extension or extension_name(path)) if arg == "TORCH_EXTENSION_NAME" else arg


def _impl_name(arg: str) -> str:
    arg = arg.strip()
    while True:
        wrapped = re.fullmatch(r"(?:TORCH_BOX|TORCH_FN|torch::dispatch|c10::dispatch)\s*\((.*)\)", arg, re.S)
        if not wrapped:
            break
        parts = split_args(wrapped.group(1))
        arg = parts[-1] if parts else ""
    match = _FN.fullmatch(arg)
    return re.sub(r"\s+", "", match.group(1)) if match else ""


def _dispatch_key(arg: str) -> str:
    match = _KEY.search(arg.strip())
    return (match.group(1) or match.group(2)) if match else ""


def find_registrations(path: str, source: str, extension: str = "") -> list[Registration]:
    """Every op def and impl in one C++ file; `extension` is the CMake target compiling it (what
    TORCH_EXTENSION_NAME means there; atlas.parse.kernels.cmake), else guessed from the path."""
    if "TORCH_LIBRARY" not in source:
        return []
    blanked = mask(source)
    kept = mask(source, keep_strings=True)
    lines = Lines(source)
    found = []
    for block in _BLOCK.finditer(blanked):
        line_start = blanked.rfind("\n", 0, block.start()) + 1
        if blanked[line_start : block.start()].strip().startswith("#"):
            continue  # the macro's own #define
        close = closing(blanked, block.end() - 1)
        brace = blanked.find("{", close)
        if close < 0 or brace < 0 or blanked[close:brace].strip():
            continue
        end = closing(blanked, brace)
        args = split_args(kept[block.end() : close - 1])
        if len(args) < 2:
            continue
        namespace = _namespace(args[0], path, extension)
        block_key = _dispatch_key_name(args[1]) if block.group(1) == "_IMPL" and len(args) >= 3 else ""
        module = args[-1].strip()
        calls = re.compile(rf"{re.escape(module)}\s*\.\s*(def|impl)\s*\(")
        for call in word_matches(calls, blanked, brace, end):
            call_end = closing(blanked, call.end() - 1)
            if call_end < 0:
                continue
            parts = split_args(kept[call.end() : call_end - 1])
            if not parts:
                continue
            text = string_literals(parts[0])
            name = re.split(r"[(.]", text, maxsplit=1)[0].strip()
            if not name:
                continue
            line = lines.line(call.start())
            if call.group(1) == "def":
                impl = _impl_name(parts[1]) if len(parts) > 1 and not parts[1].lstrip().startswith("{") else ""
                found.append(
                    Registration(
                        namespace,
                        name,
                        "def",
                        text if "(" in text else "",
                        "CompositeImplicitAutograd" if impl else "",
                        impl,
                        path,
                        line,
                    )
                )
            else:
                key = block_key
                if len(parts) >= 3:
                    key = _dispatch_key(parts[1]) or key
                found.append(
                    Registration(
                        namespace,
                        name,
                        "impl",
                        "",
                        key or "CompositeImplicitAutograd",
                        _impl_name(parts[-1]) if len(parts) > 1 else "",
                        path,
                        line,
                    )
                )
    return found


def _dispatch_key_name(arg: str) -> str:
    return _dispatch_key(arg) or re.sub(r"\W", "", arg)
