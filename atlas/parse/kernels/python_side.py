"""The Python end of the kernel layer, from one module's source: `torch.ops.<ns>.<op>` uses (not those only compared
against), ops made with `direct_register_custom_op(...)`, SGLang `load_jit(...)` calls (files and wrappers), and the
calls each line makes (to link users of a JIT module to its exports). tree-sitter-python; only files that mention
these are parsed."""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter_python
from tree_sitter import Language, Parser, Query, QueryCursor

_LANGUAGE = Language(tree_sitter_python.language())
MARKERS = ("torch.ops", "direct_register_custom_op", "load_jit", "Library(", "custom_op(")

# one query, so one walk of the tree (the walk costs about as much as all three patterns); its patterns, in order:
# torch.ops.<ns>.<op> (_OPS), calls by a name or an attribute (_CALLS), `from module import ...` (_IMPORTS).
# tree-sitter gives each pattern's matches in the order a query of that pattern alone would
_FACTS = Query(
    _LANGUAGE,
    """
(attribute object: (attribute object: (attribute object: (identifier) @torch attribute: (identifier) @ops)
  attribute: (identifier) @ns) attribute: (identifier) @op) @ref
(call function: [(identifier) @name (attribute attribute: (identifier) @name) @attribute]
  arguments: (argument_list) @args) @call
(import_from_statement) @import
""",
)
_OPS, _CALLS, _IMPORTS = range(3)


@dataclass(frozen=True, slots=True)
class OpUse:
    namespace: str
    op: str
    line: int
    is_call: bool  # called (directly or through an overload: torch.ops.ns.op.default(...))


@dataclass(frozen=True, slots=True)
class CustomOp:
    """`direct_register_custom_op("name", fn, target_lib=lib)` or `torch.library.custom_op("ns::name", fn)` (as a
    decorator too): the op torch.ops.<namespace>.<name> runs fn."""

    namespace: str
    op: str
    func: str  # the Python name passed as op_func, as written
    line: int
    defined_at: int = 0  # `@torch.library.custom_op("ns::op")` on a def: the line of that def (func is its name)


@dataclass(frozen=True, slots=True)
class JitLoad:
    """`load_jit("marker", ..., cuda_files=[...], cuda_wrappers=[("export", "Cpp<...>::fn")])`."""

    marker: str  # the first argument as spelled, `*` for what is computed (see _spelled); "" when none is spelled
    files: tuple[str, ...]  # as listed, relative to the JIT csrc folder
    wrappers: tuple[tuple[str, str], ...]  # (export name, C++ target with template arguments dropped)
    line: int
    is_dynamic: bool  # files or wrappers built at run time (not literals): cannot be followed statically


@dataclass(frozen=True, slots=True)
class PyFacts:
    path: str
    op_uses: tuple[OpUse, ...]
    custom_ops: tuple[CustomOp, ...]
    jit_loads: tuple[JitLoad, ...]
    calls: tuple[tuple[str, int, bool], ...]  # (callee's last name, line, is attribute call)
    imports: dict  # local name -> "module.name" from `from module import name [as local]`
    libraries: dict  # variable -> namespace, from `lib = Library("ns", ...)`


_MARKER_BYTES = tuple(m.encode() for m in MARKERS)


def mentions_kernels(source: str | bytes) -> bool:
    if isinstance(source, bytes):
        return any(marker in source for marker in _MARKER_BYTES)
    return any(marker in source for marker in MARKERS)


def pack(facts: PyFacts) -> tuple:
    """`facts` as nested tuples of plain values (marshal-able: the parse stage caches them with the Python facts
    of the same file, atlas.graph.parsing)."""
    return (
        facts.path,
        tuple((u.namespace, u.op, u.line, u.is_call) for u in facts.op_uses),
        tuple((c.namespace, c.op, c.func, c.line, c.defined_at) for c in facts.custom_ops),
        tuple((j.marker, j.files, j.wrappers, j.line, j.is_dynamic) for j in facts.jit_loads),
        facts.calls,
        facts.imports,
        facts.libraries,
    )


def unpack(data: tuple) -> PyFacts:
    path, uses, custom_ops, jit_loads, calls, imports, libraries = data
    return PyFacts(
        path,
        tuple(OpUse(*u) for u in uses),
        tuple(CustomOp(*c) for c in custom_ops),
        tuple(JitLoad(*j) for j in jit_loads),
        calls,
        imports,
        libraries,
    )


def _string(node, env: dict | None = None) -> str | None:
    """A literal string's value; in f-strings a `{name}` is the string a local assignment gave `name` (from `env`),
    anything else `*` (a wildcard); None when the node is no string."""
    if node is None or node.type not in ("string", "concatenated_string"):
        return None
    env = env or {}
    text = node.text.decode()
    parts = re.findall(r"""[rRbBfFuU]*("{3}|'{3}|"|')(.*?)\1""", text, re.S)
    return "".join(re.sub(r"\{([^{}]*)\}", lambda m: env.get(m.group(1).strip(), "*"), body) for _, body in parts)


def _local_strings(call) -> dict:
    """`name = "..."` / `name = f"..."` assignments in the function around `call`, in order (later ones win)."""
    scope = call.parent
    while scope is not None and scope.type not in ("function_definition", "module"):
        scope = scope.parent
    env: dict = {}
    if scope is None:
        return env
    todo = [scope]
    found = []
    while todo:
        node = todo.pop()
        if node.type == "assignment":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and left.type == "identifier" and right is not None and right.type == "string":
                found.append((node.start_byte, left.text.decode(), right))
        elif node.type not in ("function_definition", "class_definition") or node == scope:
            todo.extend(node.children)
    for _, name, right in sorted(found, key=lambda f: f[0]):
        env[name] = _string(right, env)
    return env


def _arguments(args_node) -> tuple[list, dict]:
    positional, keywords = [], {}
    for child in args_node.named_children:
        if child.type == "keyword_argument":
            keywords[child.child_by_field_name("name").text.decode()] = child.child_by_field_name("value")
        elif child.type not in ("comment", "list_splat", "dictionary_splat"):
            positional.append(child)
    return positional, keywords


def _cpp_target(text: str) -> str:
    """`&HiCacheKernel<{args}>::run_one` -> `HiCacheKernel::run_one`."""
    text = text.strip().lstrip("&").strip()
    while True:
        stripped = re.sub(r"<[^<>]*>", "", text)
        if stripped == text:
            break
        text = stripped
    return re.sub(r"\s+", "", text)


def _spelled(node, env: dict) -> str:
    """The string an expression makes, `*` for the parts computed at run time: `f"buf_{n}"` -> "buf_*",
    `"store_" + name` -> "store_*", `make_name("rope")` -> "rope" (what the call is given: it names the result)."""
    text = _string(node, env)
    if text is not None:
        return text
    if node.type == "binary_operator":
        return _spelled(node.child_by_field_name("left"), env) + _spelled(node.child_by_field_name("right"), env)
    if node.type == "call":
        positional, _ = _arguments(node.child_by_field_name("arguments"))
        return _spelled(positional[0], env) if positional else "*"
    return "*"


def _jit_load(positional: list, keywords: dict, line: int, env: dict) -> JitLoad:
    marker = _spelled(positional[0], env) if positional else ""
    marker = "" if set(marker) <= {"*", "_"} else marker
    files, wrappers, dynamic = [], [], False
    for key in ("cpp_files", "cuda_files"):
        value = keywords.get(key)
        if value is None:
            continue
        items = value.named_children if value.type == "list" else [None]
        for item in items:
            text = _string(item, env)
            dynamic |= text is None
            if text:
                files.append(text)
    for key in ("cpp_wrappers", "cuda_wrappers"):
        value = keywords.get(key)
        if value is None:
            continue
        items = value.named_children if value.type == "list" else [None]
        for item in items:
            pair = item.named_children if item is not None and item.type == "tuple" else []
            export, target = (_string(pair[0]), _string(pair[1], env)) if len(pair) == 2 else (None, None)
            if export is None or target is None:
                dynamic = True
                continue
            wrappers.append((export, _cpp_target(target)))
    return JitLoad(marker, tuple(files), tuple(wrappers), line, dynamic)


def _library_op(call, positional: list, keywords: dict, line: int) -> list[CustomOp]:
    """`torch.library.custom_op("ns::name", fn, ...)`, or the same call decorating a def."""
    qualified = _string(keywords.get("name") or (positional[0] if positional else None))
    if not qualified or "::" not in qualified or "*" in qualified:
        return []
    namespace, _, op = qualified.partition("::")
    decorated = call.parent.parent if call.parent is not None and call.parent.type == "decorator" else None
    if decorated is not None and decorated.type == "decorated_definition":
        definition = decorated.child_by_field_name("definition")
        if definition is not None and definition.type == "function_definition":
            return [
                CustomOp(
                    namespace,
                    op.split(".")[0],
                    definition.child_by_field_name("name").text.decode(),
                    line,
                    definition.start_point[0] + 1,
                )
            ]
    func = keywords.get("fn") or (positional[1] if len(positional) > 1 else None)
    return [CustomOp(namespace, op.split(".")[0], func.text.decode() if func is not None else "", line)]


def _imports(matches: list[dict]) -> dict:
    found = {}
    for captures in matches:
        node = captures["import"][0]
        module = node.child_by_field_name("module_name")
        if module is None:
            continue
        base = module.text.decode()
        for name in node.children_by_field_name("name"):
            if name.type == "aliased_import":
                found[name.child_by_field_name("alias").text.decode()] = (
                    f"{base}.{name.child_by_field_name('name').text.decode()}"
                )
            else:
                found[name.text.decode().split(".")[-1]] = f"{base}.{name.text.decode()}"
    return found


def _is_compared(node) -> bool:
    """Whether an expression whose parent is `node` is an operand of a comparison (`==`, `is`, `in`, ...), or an
    element of a tuple, list or set that is one."""
    while node is not None and node.type in ("tuple", "list", "set", "parenthesized_expression"):
        node = node.parent
    return node is not None and node.type == "comparison_operator"


def python_facts(path: str, source: str) -> PyFacts:
    """The kernel-layer facts of one Python module."""
    return tree_facts(path, Parser(_LANGUAGE).parse(source.encode()).root_node)


def tree_facts(path: str, root) -> PyFacts:
    """The kernel-layer facts of one Python module from its tree-sitter-python tree (the one the Python parse
    made: atlas.graph.parsing parses each file once for both)."""
    matches: tuple[list[dict], ...] = ([], [], [])  # per pattern of _FACTS, in the order the query finds them
    for pattern, captures in QueryCursor(_FACTS).matches(root):
        matches[pattern].append(captures)
    uses = []
    for captures in matches[_OPS]:
        if captures["torch"][0].text != b"torch" or captures["ops"][0].text != b"ops":
            continue
        ref = captures["ref"][0]
        parent = ref.parent
        if parent is not None and parent.type == "attribute" and parent.child_by_field_name("object") == ref:
            parent = parent.parent  # an overload: torch.ops.ns.op.default
        is_call = parent is not None and parent.type == "call"
        if not is_call and _is_compared(parent):
            continue  # `node.target == torch.ops.ns.op.default`, `op in (torch.ops.ns.a, ...)`: no use of the op
        uses.append(
            OpUse(captures["ns"][0].text.decode(), captures["op"][0].text.decode(), ref.start_point[0] + 1, is_call)
        )
    custom_ops, jit_loads, calls, libraries, library_ops = [], [], [], {}, []
    for captures in matches[_CALLS]:
        name = captures["name"][0].text.decode()
        call = captures["call"][0]
        line = call.start_point[0] + 1
        calls.append((name, line, "attribute" in captures))
        if name not in ("direct_register_custom_op", "load_jit", "Library", "custom_op"):
            continue
        positional, keywords = _arguments(captures["args"][0])
        if name == "custom_op":
            library_ops.extend(_library_op(call, positional, keywords, line))
        elif name == "Library":
            target = call.parent
            ns = _string(positional[0]) if positional else None
            if target is not None and target.type == "assignment" and ns:
                libraries[target.child_by_field_name("left").text.decode()] = ns
        elif name == "load_jit":
            jit_loads.append(_jit_load(positional, keywords, line, _local_strings(call)))
        else:
            op = _string(keywords.get("op_name") or (positional[0] if positional else None))
            func = keywords.get("op_func") or (positional[1] if len(positional) > 1 else None)
            lib = keywords.get("target_lib")
            if op:
                custom_ops.append(
                    CustomOp(
                        lib.text.decode() if lib is not None else "",
                        op,
                        func.text.decode().strip("() \n") if func is not None else "",
                        line,
                    )
                )
    custom_ops = [
        CustomOp(libraries.get(c.namespace, "vllm") if c.namespace else "vllm", c.op, c.func, c.line)
        for c in custom_ops
    ] + library_ops
    return PyFacts(
        path, tuple(uses), tuple(custom_ops), tuple(jit_loads), tuple(calls), _imports(matches[_IMPORTS]), libraries
    )
