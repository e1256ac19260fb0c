"""The Python extractor: symbols (ids, kinds, spans, signatures) and the statement IR, as tables of tiny sources."""

import dataclasses
import marshal

import pytest

from atlas.model import SymbolKind
from atlas.parse.python import extract, module_name, pack, unpack
from atlas.parse.python.ir import (
    Assign,
    Attribute,
    Call,
    Constant,
    Evaluate,
    For,
    Import,
    ImportFrom,
    Name,
    NameTarget,
    Return,
    Site,
)


@pytest.mark.parametrize(
    "path, root, expected",
    [
        ("vllm/v1/core/sched/scheduler.py", "", ("vllm.v1.core.sched.scheduler", False)),
        ("python/sglang/srt/managers/scheduler.py", "python", ("sglang.srt.managers.scheduler", False)),
        ("vllm/v1/__init__.py", "", ("vllm.v1", True)),
    ],
)
def test_module_name(path, root, expected):
    assert module_name(path, root) == expected


SOURCE = b"""\
import os.path as osp
from . import sibling
from ..core import KVCacheManager
from typing import TYPE_CHECKING, Optional
if TYPE_CHECKING:
    from vllm.config import VllmConfig

LIMIT = 3

class Scheduler(Base):
    policy: str = "fcfs"

    def __init__(self, kv: "KVCacheManager", cfg: Optional[VllmConfig] = None) -> None:
        self.kv_cache_manager = KVCacheManager(1)
        self.hits: int = 0
        def inner():
            return lambda x: x
        inner()

    @property
    def size(self):
        return 1

@triton.jit
def kernel(x_ptr):
    pass
"""


@pytest.mark.parametrize(
    "sid, kind, start, end, signature",
    [
        ("vllm.v1.core.sched.s", SymbolKind.MODULE, 1, 27, ""),
        ("vllm.v1.core.sched.s.LIMIT", SymbolKind.ATTRIBUTE, 8, 8, ""),
        ("vllm.v1.core.sched.s.Scheduler", SymbolKind.CLASS, 10, 22, "class Scheduler(Base)"),
        ("vllm.v1.core.sched.s.Scheduler.policy", SymbolKind.ATTRIBUTE, 11, 11, "policy: str"),
        (
            "vllm.v1.core.sched.s.Scheduler.__init__",
            SymbolKind.METHOD,
            13,
            18,
            'def __init__(self, kv: "KVCacheManager", cfg: Optional[VllmConfig] = None) -> None',
        ),
        ("vllm.v1.core.sched.s.Scheduler.kv_cache_manager", SymbolKind.ATTRIBUTE, 14, 14, ""),
        ("vllm.v1.core.sched.s.Scheduler.hits", SymbolKind.ATTRIBUTE, 15, 15, "hits: int"),
        ("vllm.v1.core.sched.s.Scheduler.__init__.inner", SymbolKind.FUNCTION, 16, 17, "def inner()"),
        ("vllm.v1.core.sched.s.Scheduler.__init__.inner.<lambda1>", SymbolKind.FUNCTION, 17, 17, "lambda x"),
        ("vllm.v1.core.sched.s.Scheduler.size", SymbolKind.METHOD, 20, 22, "def size(self)"),
        ("vllm.v1.core.sched.s.kernel", SymbolKind.TRITON_KERNEL, 24, 26, "def kernel(x_ptr)"),
    ],
)
def test_symbols(sid, kind, start, end, signature):
    facts = extract(SOURCE, "vllm/v1/core/sched/s.py", "vllm.v1.core.sched.s", False)
    symbols = {s.id: s for s in facts.symbols}
    s = symbols[sid]
    assert (s.kind, s.span.start, s.span.end, s.signature) == (kind, start, end, signature)
    assert s.span.path == "vllm/v1/core/sched/s.py"


def imports_of(facts) -> list:
    """The module scope's imports as (kind, module, names, unconditional?)."""
    out = []
    for step in facts.scopes[0].steps:
        if isinstance(step.stmt, Import):
            out.append(("import", step.stmt.module, step.stmt.alias.id, step.strong))
        elif isinstance(step.stmt, ImportFrom):
            out.append(("from", step.stmt.module, tuple((n.name, n.alias.id) for n in step.stmt.names), step.strong))
    return out


def test_imports_are_absolute_and_type_checking_imports_kept():
    facts = extract(SOURCE, "vllm/v1/core/sched/s.py", "vllm.v1.core.sched.s", False)
    assert imports_of(facts) == [
        ("import", "os.path", "osp", True),
        ("from", "vllm.v1.core.sched", (("sibling", "sibling"),), True),
        ("from", "vllm.v1.core.core", (("KVCacheManager", "KVCacheManager"),), True),  # `..core` from sched/
        ("from", "typing", (("TYPE_CHECKING", "TYPE_CHECKING"), ("Optional", "Optional")), True),
        ("from", "vllm.config", (("VllmConfig", "VllmConfig"),), False),  # under `if TYPE_CHECKING:`: conditional
    ]


def test_relative_import_from_a_package_init():
    facts = extract(b"from .mod import f\nfrom .. import g as h\n", "pkg/sub/__init__.py", "pkg.sub", True)
    assert imports_of(facts) == [("from", "pkg.sub.mod", (("f", "f"),), True), ("from", "pkg", (("g", "h"),), True)]


def test_parameter_and_return_annotations():
    facts = extract(SOURCE, "vllm/v1/core/sched/s.py", "vllm.v1.core.sched.s", False)
    init = next(s for s in facts.scopes if s.id.endswith("Scheduler.__init__"))
    assert [p.name for p in init.params] == ["self", "kv", "cfg"]
    assert [a.type for a in init.params[1].annotations] == [Name("KVCacheManager")]  # a string annotation
    assert [a.type for a in init.params[2].annotations] == [Name("VllmConfig")]  # Optional[...] unwrapped
    assert init.params[2].default == Constant(None)


def test_broken_source_still_yields_facts():
    facts = extract(b"def f(:\n    pass\nclass A:\n    def g(self): return 1\n", "m.py", "m", False)
    assert "m.A.g" in {s.id for s in facts.symbols}


TRITON = b"""\
import triton
from triton import jit
make_desc = triton.language.make_tensor_descriptor
if old_triton:
    @triton.jit
    def make_desc(base): return None
@triton.autotune(configs=[])
@triton.jit
def stacked(x): pass
@jit
def aliased(x): pass
def body(x): pass
cat_kernel = triton.jit(do_not_specialize=["n"])(body)
def body2(x): pass
k2 = triton.jit(body2)
def plain(x): pass
wrapped = other(plain)
def outer():
    @triton.jit
    def nested(x): pass
"""


@pytest.mark.parametrize(
    "sid, kind",
    [
        ("k.make_desc", SymbolKind.TRITON_KERNEL),  # a def after an assignment of the same name: the def is the symbol
        ("k.stacked", SymbolKind.TRITON_KERNEL),
        ("k.aliased", SymbolKind.TRITON_KERNEL),
        ("k.body", SymbolKind.TRITON_KERNEL),  # jit'd by a call
        ("k.body2", SymbolKind.TRITON_KERNEL),
        ("k.cat_kernel", SymbolKind.ATTRIBUTE),
        ("k.plain", SymbolKind.FUNCTION),
        ("k.outer.nested", SymbolKind.TRITON_KERNEL),
    ],
)
def test_triton_kernels(sid, kind):
    symbols = [s for s in extract(TRITON, "k.py", "k", False).symbols if s.id == sid]
    assert [s.kind for s in symbols] == [kind]


def test_pack_round_trip_through_marshal():
    """What a parse worker sends and the cache stores: plain tuples through marshal, back to equal facts, with the
    symbols tagged on the way."""
    facts = extract(SOURCE, "vllm/v1/core/sched/s.py", "vllm.v1.core.sched.s", False)
    back = unpack(marshal.loads(marshal.dumps(pack(facts))))
    assert back == facts
    tagged = unpack(marshal.loads(marshal.dumps(pack(facts))), lambda sid: "scheduler" if ".Scheduler" in sid else "")
    assert (
        {s.id for s in tagged.symbols if s.component == "scheduler"}
        == {s.id for s in facts.symbols if ".Scheduler" in s.id}
        != set()
    )
    assert [dataclasses.replace(s, component="") for s in tagged.symbols] == facts.symbols


@pytest.mark.parametrize(
    "source, symbol, stmt",
    [
        ("x = 'caf\u00e9'\ny = f(x)\n", "m.y", Assign((NameTarget("x", 1),), Constant("caf\u00e9"), (), 1)),
        (
            "# \u00fcber\nclass \u00c4rger:\n    def g\u00e4(self):\n        return self.\u00e4()\n",
            "m.\u00c4rger.g\u00e4",
            Return(Call(Attribute(Name("self", (0,)), "\u00e4"), (), (), Site(4, 4, "self.\u00e4", 15, 24)), 4),
        ),
    ],
)
def test_non_ascii_source(source, symbol, stmt):
    """Text is cut by byte offsets: a file with non-ASCII characters keeps exact names, strings and call sites."""
    facts = extract(source.encode(), "m.py", "m", False)
    assert symbol in {s.id for s in facts.symbols}
    assert stmt in [step.stmt for scope in facts.scopes for step in scope.steps]


GUARDS = b"""\
from typing import TypeGuard
from typing_extensions import TypeIs
def supports_pp(model) -> TypeIs[SupportsPP]: ...
def is_pair(x) -> "bool": ...
def maybe(x) -> TypeIs[type[A]] | TypeIs[A]: ...
def weak(x) -> TypeGuard[A]: ...
def decorator(f):
    if hasattr(f, "_wrapped"):
        return f
    def wrapper(*args):
        return f(*args)
    return wrapper
def load(model, other):
    if supports_pp(model) and hasattr(other, "step"):
        model.make_empty_intermediate_tensors(other.step())
    if not hasattr(model, "x"):
        return
"""


def narrows(facts, scope_id):
    scope = next(s for s in facts.scopes if s.id == scope_id)
    return [s.stmt.value for s in scope.steps if isinstance(s.stmt, Assign) and type(s.stmt.value).__name__ == "Narrow"]


def test_type_guard_annotations_and_the_checks_that_may_use_them():
    facts = unpack(marshal.loads(marshal.dumps(pack(extract(GUARDS, "g.py", "g", False)))))
    scopes = {s.id: s for s in facts.scopes}
    assert [(a.type, a.is_class) for a in scopes["g.supports_pp"].guards] == [(Name("SupportsPP"), False)]
    assert scopes["g.supports_pp"].guard_negates and not scopes["g.supports_pp"].returns
    assert {(a.type.id, a.is_class) for a in scopes["g.maybe"].guards} == {("A", True), ("A", False)}
    assert scopes["g.weak"].guards and not scopes["g.weak"].guard_negates
    assert not scopes["g.is_pair"].guards
    # a name never read an attribute of or called in its scope is not narrowed (the decorator's `f`: its wrapper, a
    # scope of its own, calls it)
    assert narrows(facts, "g.decorator") == []
    checks = narrows(facts, "g.load")
    assert {(n.value.id, n.guard, n.attribute, n.negative) for n in checks} == {
        ("model", True, "", False),  # `and`: both hold where it is true, nothing is known where it is false
        ("other", False, "step", False),
        ("model", False, "x", True),  # `not`: the branch has model without x, what follows it model with x
        ("model", False, "x", False),
    }


@pytest.mark.parametrize(
    "loop, unrolled",
    [
        ("for k, v in {A: B, C: D}.items():\n        use(k, v)", True),
        ("for x in [A, pkg.B, 'c']:\n        use(x)", True),
        ("for k, v in [(A, B), (C, D)]:\n        use(k, v)", True),
        ("table = {A: B, C: D}\n    for k, v in table.items():\n        use(k, v)", True),
        ("for x in [A]:\n        use(x)", False),  # one element: nothing to keep apart
        ("for x in [A, make()]:\n        use(x)", False),  # an element that calls: it would run once per copy
        ("for x in [A, *more]:\n        use(x)", False),
        ("for k, v in [(A, B), C]:\n        use(k, v)", False),  # parts that do not match the target
        ("for x in [A, B]:\n        use(lambda: x)", False),  # a scope in the body would be defined twice
        ("table = {A: B, C: D}\n    table[E] = F\n    for k, v in table.items():\n        use(k, v)", False),
        ("table = {A: B, C: D}\n    for k in table:\n        use(k)", False),  # a dict's keys: not unrolled
        ("if use:\n        use = [A, B]\n    for x in use:\n        print(x)", False),  # may be the parameter
    ],
)
def test_a_loop_over_a_small_literal_runs_its_body_once_per_element(loop, unrolled):
    source = f"def f(use):\n    {loop}\n".encode()
    (scope,) = [s for s in extract(source, "m.py", "m", False).scopes if s.id == "m.f"]
    fors = [st for st in scope.steps if isinstance(st.stmt, For)]
    uses = [st for st in scope.steps if isinstance(st.stmt, Evaluate) and isinstance(st.stmt.value, Call)]
    uses = [st for st in uses if isinstance(st.stmt.value.func, Name) and st.stmt.value.func.id == "use"]
    assert (not fors, len(uses) > 1) == (unrolled, unrolled)
