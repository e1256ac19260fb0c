"""Every call site accounted: each call expression of a file gets one status (in the tree, outside it and named, or
unresolved with a reason), on tiny sources (a table of cases) and on the real pinned trees (every `ast.Call` of the
engines' core packages has its row in the graph's site table)."""

import ast
import os
from pathlib import Path

import pytest

from atlas.env import settings as load_settings
from atlas.errors import AtlasError
from atlas.graph import load_graph, load_index
from atlas.graph.resolve import Solver
from atlas.graph.sites import build_table
from atlas.model import SiteStatus, SymbolKind, Unresolved
from atlas.parse.python import extract, module_name


def site_table(files: dict[str, str], cap: int = 48):
    facts = []
    for path, text in files.items():
        facts.append(extract(text.encode(), path, *module_name(path)))
    resolution = Solver(facts, cap=cap).solve()
    symbols = {s.id: s for f in facts for s in f.symbols}
    path_of = {f.module: f.path for f in facts}
    called = {callee for _, callee in resolution.edges}
    return build_table(resolution, path_of, symbols, called)


def statuses(files: dict[str, str], cap: int = 48) -> dict[str, tuple]:
    """The callee as written -> (status, targets or reason) of each call site."""
    table = site_table(files, cap)
    return {c.expression: (c.status, c.reason or c.targets) for c in table.sites()}


CASES = [
    ("in the tree", "def g(): pass\ndef f():\n    g()\n", "g", SiteStatus.IN_TREE, ("a.g",)),
    (
        "a decorated function: its wrapper, made per application, is in the tree",
        "import functools\ndef once(fn):\n    @functools.wraps(fn)\n    def wrapper():\n        return fn()\n"
        "    return wrapper\n@once\ndef g(): pass\n@once\ndef h(): pass\ndef f():\n    g()\n",
        "g",
        SiteStatus.IN_TREE,
        ("a.once.wrapper@a.g",),
    ),
    ("a builtin", "def f(x):\n    len(x)\n", "len", SiteStatus.BUILTIN, ("builtins.len",)),
    ("the standard library", "import os\nos.getcwd()\n", "os.getcwd", SiteStatus.STDLIB, ("os.getcwd",)),
    ("torch", "import torch\ntorch.cat([])\n", "torch.cat", SiteStatus.TORCH, ("torch.cat",)),
    ("another library", "import numpy as np\nnp.zeros(1)\n", "np.zeros", SiteStatus.LIBRARY, ("numpy.zeros",)),
    (
        "a method of a library's object",
        "import torch\nx = torch.zeros(1)\nx.view(2)\n",
        "x.view",
        SiteStatus.TORCH,
        ("torch.<object>.view",),
    ),
    (
        "a container's method",
        "def f():\n    xs = []\n    xs.append(1)\n",
        "xs.append",
        SiteStatus.BUILTIN,
        ("builtins.list.append",),
    ),
    (
        "object's __init__ through super()",
        "class A:\n    def __init__(self):\n        super().__init__()\n",
        "super().__init__",
        SiteStatus.BUILTIN,
        ("builtins.object.__init__",),
    ),
    (
        "a builtin base's method",
        "class D(dict):\n    def f(self):\n        self.setdefault(1, 2)\n",
        "self.setdefault",
        SiteStatus.BUILTIN,
        ("builtins.dict.setdefault",),
    ),
    (
        "a standard-library base's method",
        "from typing import NamedTuple\nclass P(NamedTuple):\n    x: int\ndef f(p: P):\n    p._replace(x=1)\n",
        "p._replace",
        SiteStatus.STDLIB,
        ("typing.NamedTuple._replace",),
    ),
    (
        "a builtin class's attribute",
        "def f():\n    dict.fromkeys([1])\n",
        "dict.fromkeys",
        SiteStatus.BUILTIN,
        ("builtins.dict.fromkeys",),
    ),
    (
        "a generator's method",
        "def g():\n    yield 1\ndef f():\n    g().send(None)\n",
        "g().send",
        SiteStatus.BUILTIN,
        ("builtins.generator.send",),
    ),
    (
        "a dict's update",
        "def f(x):\n    d = {}\n    d.update(x)\n",
        "d.update",
        SiteStatus.BUILTIN,
        ("builtins.dict.update",),
    ),
    (
        "a module variable a function binds through `global`",
        "class S:\n    def run(self): pass\ndef start():\n    global server\n    server = S()\n    server.run()\n",
        "server.run",
        SiteStatus.IN_TREE,
        ("a.S.run",),
    ),
    (
        "a method of an empty set",
        "class C:\n    def __init__(self):\n        self.leaves = set()\n"
        "    def f(self, x):\n        self.leaves.add(x)\n",
        "self.leaves.add",
        SiteStatus.BUILTIN,
        ("builtins.set.add",),
    ),
    (
        "a name a star import of a library binds",
        "from ctypes import *\ndef f(x):\n    byref(x)\n",
        "byref",
        SiteStatus.STDLIB,
        ("ctypes.byref",),
    ),
    ("a name nothing binds", "def f():\n    mystery()\n", "mystery", SiteStatus.UNRESOLVED, Unresolved.NAME_NOT_BOUND),
    (
        "a parameter of a function nobody calls",
        "def f(x):\n    x.go()\n",
        "x.go",
        SiteStatus.UNRESOLVED,
        Unresolved.UNCALLED,
    ),
    (
        "a parameter nobody passes",
        "def f(x=None):\n    x.go()\ndef g():\n    f()\n",
        "x.go",
        SiteStatus.UNRESOLVED,
        Unresolved.PARAMETER,
    ),
    (
        "a name bound to nothing followed",
        "def f():\n    handlers = []\n    fn = handlers[0]\n    fn()\n",
        "fn",
        SiteStatus.UNRESOLVED,
        Unresolved.NO_VALUE,
    ),
    (
        "an attribute no class has",
        "class A: pass\ndef f():\n    A().go()\n",
        "A().go",
        SiteStatus.UNRESOLVED,
        Unresolved.ATTRIBUTE,
    ),
    (
        "a receiver with no value",
        "class A:\n    def f(self):\n        self.held.go()\n",
        "self.held.go",
        SiteStatus.UNRESOLVED,
        Unresolved.RECEIVER,
    ),
    (
        "a subscript of an unknown container",
        "def f(k):\n    table = {}\n    table[k]()\n",
        "table[k]",
        SiteStatus.UNRESOLVED,
        Unresolved.DYNAMIC,
    ),
    ("a constant called", "def f():\n    x = 1\n    x()\n", "x", SiteStatus.UNRESOLVED, Unresolved.NOT_CALLABLE),
]


@pytest.mark.parametrize("name, source, expression, status, detail", CASES, ids=[c[0] for c in CASES])
def test_site_status(name, source, expression, status, detail):
    assert statuses({"a.py": source})[expression] == (status, detail)


def test_an_argument_too_wide_to_pass_is_past_a_bound():
    source = """
class A:
    def go(self): pass
class B:
    def go(self): pass
def f(x):
    x.go()
def g(c):
    f(A() if c else B())
"""
    assert statuses({"a.py": source})["x.go"][0] is SiteStatus.IN_TREE
    assert statuses({"a.py": source}, cap=1)["x.go"] == (SiteStatus.UNRESOLVED, Unresolved.BOUND)


def ast_calls(source: str) -> set[tuple[int, int]]:
    """(end line, end column) of every call expression Python's own parser finds."""
    return {(n.end_lineno, n.end_col_offset) for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)}


EVERY_POSITION = """
import functools
import torch


@functools.lru_cache(maxsize=make_size())
def f(a=default(), *, b=other()) -> annotated(1):
    x = (  # a comment before the value
        first() or second(third())
    )
    y = one() if test() else two()
    z = [elem(i) for i in items() if keep(i)]
    w = {key(k): value(k) for k in pairs()}
    s = f"{fmt(a)!r:>{width()}} and " f"{more()}" "plain"
    t = table[index(), :bound(), ::step()]
    u = table[lower():upper():stride()]
    if (n := walrus()) > limit():
        pass
    g = lambda q=lam_default(): lam_body(q)
    call(*star(), **kw(), key=keyed())
    assert check(), message()
    del table[dropped()]
    with ctx() as c, other_ctx():
        pass
    raise Error(reason()) from cause()


async def h():
    await waited()
    async with actx():
        pass
    return [await w() async for w in aiter_()]


class C(base(), metaclass=meta(), flag=flag_value()):
    field: Annotated[int, Validator(check_value)] = default_value()

    @property
    def p(self) -> int:
        return self.compute()


if numba_available():
    @njit(parallel=first_flag())
    def kernel(x):
        pass
else:
    @plain_decorator(other_flag())
    def kernel(x):
        pass


def j(v):
    unknown[key_of(v)] = stored()
    match subject():
        case [x] if guard(x):
            pass
    type(v).attribute = assigned()
    return torch.compiler.disable(j)(v)
"""


def test_every_expression_position_has_its_site():
    """Calls in every position Python evaluates one: parenthesised booleans after a comment, conditional
    expressions, comprehensions, f-strings (concatenated, in format specs), defaults, decorators' arguments,
    annotations, subscripts with several indexes and slices with a step, walrus, lambda bodies and defaults,
    starred and keyword arguments, assert, del, with, await, class keywords, match guards, `type(x).a = ...`,
    the index of a subscript assigned to, the decorators of each of two defs of one name."""
    table = site_table({"a.py": EVERY_POSITION})
    have = {(table.end_lines[i], table.end_cols[i]) for i in range(len(table))}
    missing = ast_calls(EVERY_POSITION) - have
    lines = EVERY_POSITION.splitlines()
    assert not missing, [lines[line - 1].strip() for line, _ in sorted(missing)]


# -- the real trees ------------------------------------------------------------------------------------------------

CORE = {
    "vllm": ("vllm/v1/core", "vllm/v1/worker", "vllm/v1/attention", "vllm/v1/engine", "vllm/v1/executor"),
    "sglang": tuple(
        f"python/sglang/srt/{p}" for p in ("managers", "mem_cache", "model_executor", "layers/attention", "speculative")
    ),
}


@pytest.fixture(scope="module")
def settings():
    os.environ.setdefault("ATLAS_MIRROR", "/work/shared/sources")
    try:
        return load_settings()
    except AtlasError as exc:
        pytest.skip(f"no project settings: {exc}")


@pytest.mark.slow
@pytest.mark.parametrize("framework", sorted(CORE))
def test_every_call_of_the_core_has_a_status(settings, framework):
    """Python's own parser walks whole packages of the engines' core: every call expression it finds has its row
    in the graph's site table (path, end line, end column), and every row of those files is such a call."""
    try:
        g = load_graph(settings, framework)
    except AtlasError as exc:
        pytest.skip(f"{framework} not synced: {exc}")
    table = g.sites
    have: dict[str, set[tuple[int, int]]] = {}
    for i in range(len(table)):
        have.setdefault(table.path(i), set()).add((table.end_lines[i], table.end_cols[i]))
    root = Path(load_index(settings, framework).root)
    missing, extra, num_calls = [], [], 0
    analysed = {s.span.path for s in g.symbols.values() if s.kind is SymbolKind.MODULE and s.span}
    for package in CORE[framework]:
        files = sorted(p for p in analysed if p.startswith(package + "/"))  # (the manifest leaves tests out)
        assert files, package
        for rel in files:
            calls = ast_calls((root / rel).read_text())
            num_calls += len(calls)
            missing += [f"{rel}:{line}" for line, _ in sorted(calls - have.get(rel, set()))]
            extra += [f"{rel}:{line}" for line, _ in sorted(have.get(rel, set()) - calls)]
    assert num_calls > 10000
    assert not missing, missing[:50]
    assert not extra, extra[:50]
