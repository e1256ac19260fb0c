"""The walker in C (atlas/parse/python/c) gives the very facts of the Python walker: equal values of equal types,
on a table of tricky sources and on every file of the default pinned trees. Without the C walker built these tests
skip, saying so, unless ATLAS_REQUIRE_NATIVE=1 (as CI sets), where they fail."""

from __future__ import annotations

import os
import sys

import pytest

from atlas.env import settings as load_settings
from atlas.errors import AtlasError
from atlas.parse.python import compiled, extract_packed, module_name, parser
from atlas.parse.python.extract import walk_packed
from atlas.sources import analysed_files, load_all, locate

NATIVE = compiled.native_walker()
pytestmark = pytest.mark.skipif(
    NATIVE is None and os.environ.get("ATLAS_REQUIRE_NATIVE", "") in ("", "0"),
    reason="the C walker is not built here: run `python scripts/compile.py` to test it")


def difference(a, b, where: str = "facts") -> str | None:
    """Where `a` and `b` differ, type included (True == 1 and 0.0 == 0 in Python; the facts must not differ so)."""
    if type(a) is not type(b):
        return f"{where}: {type(a).__name__} {a!r} != {type(b).__name__} {b!r}"
    if isinstance(a, (tuple, list)):
        if len(a) != len(b):
            return f"{where}: length {len(a)} != {len(b)}: {a!r} != {b!r}"
        return next((d for i, (x, y) in enumerate(zip(a, b)) if (d := difference(x, y, f"{where}[{i}]"))), None)
    if isinstance(a, (set, frozenset)):
        return None if a == b and all(type(x) is str for x in a | b) else f"{where}: {a!r} != {b!r}"
    return None if a == b else f"{where}: {a!r} != {b!r}"


def both(source: bytes, path: str = "pkg/mod.py", root: str = "") -> tuple[tuple, tuple]:
    module, is_package = module_name(path, root)
    tree = parser().parse(source)
    return walk_packed(source, path, module, is_package, tree), NATIVE.extract_packed(source, path, module,
                                                                                      is_package, tree)


SOURCES = {
    "imports": b"""\
from __future__ import annotations
import os, os.path as osp, a.b.c
from . import sibling
from .. import parent as up
from ...deep.er import x, y as z
from .mod import *
from typing import (TYPE_CHECKING,
                    Optional)
if TYPE_CHECKING:
    from vllm.config import VllmConfig
def f():
    import json
    from .inner import thing
    global G, H
    nonlocal_name = 1
""",
    "classes": b"""\
import triton
LIMIT: int = 3
name = 1
class Base(metaclass=Meta, other=make()):
    x = 1
    y: "Optional[Base]" = None
    def __init__(self, a: int, *args: str, b=lambda: 1, **kw: dict) -> None:
        self.a = a
        self.b: "list[int]" = []
        self.c, (self.d, e) = 1, (2, 3)
        other.z = 4
    @property
    def value(self) -> "type[Base] | None": return self.a
    @staticmethod
    @functools.lru_cache(maxsize=None)
    def static(x, /, y, *, z): ...
    async def run(self) -> Optional[Union[int, "Base"]]:
        await self.value()
def name(): pass
@triton.jit
def kernel(X, Y, BLOCK: tl.constexpr): tl.store(X, tl.load(Y))
@triton.autotune(configs=[])
@triton.jit(do_not_specialize=["n"])
def tuned(X): pass
def plain(x): return x
k1 = triton.jit(plain)
k2 = triton.jit(**opts)(plain)
@dataclass(frozen=True)
class Point(Base, Generic[T]):
    x: int
    y: type[Base]
""",
    "expressions": b"""\
a = b = c.d[0] = f(1, *xs, k=v, **kw)(g)
x += y.z(w) + 1
s = "plain" + f"{a(b)!r:>{width()}}" + ("con" "cat") + b"bytes" + '''tri
ple'''
n = [1, *rest, 0x1F, 1_000, 010, 1.5, True, False, None, ..., -3, not q, a if b() else c(), a or b and h()]
d = {**base, "k": v(), 1: 2, None: 3}
t = (lambda p, q=3: p(q))(lambda: 0)
comp = [y for x in xs if x for y in x if y() > 0]
gen = sum(v() for v in vs)
dc = {k: v for k, v in items()}
sc = {e for e in es}
sl = seq[1:2], seq[::2], seq[:-1], seq[a():b():c], m[1, 2], m[i][j], m[...]
if (w := compute()) > 0 and (u := other()):
    print(w, u, sep="")
z = yield
z2 = yield from gen()
del x[0], y.z
assert check(), msg()
raise Error("x") from cause()
return value()
""",
    "control": b"""\
def f(items):
    for i, (a, *b) in enumerate(items):
        if i: continue
        elif call(a): break
        else: pass
    else:
        done()
    while cond():
        x = 1
    try:
        risky()
    except (ValueError, KeyError) as err:
        handle(err)
    except* OSError:
        pass
    except Exception:
        raise
    else:
        ok()
    finally:
        cleanup()
    with open(p) as fh, lock, ctx() as (a, b):
        use(fh)
    async with session() as s:
        await s.get()
    async for row in rows():
        yield row
    match command():
        case [x, y]:
            go(x)
        case {"k": v}:
            go(v)
        case Point(x=0) if check():
            origin()
        case _:
            pass
""",
    "unicode": "π = 3.14\nclass Ünïcode:\n    def méthode(self):\n        return 'héllo wörld' + ñ(ü)\n"
               "x = fn_with_a_very_long_name_" .encode() + b"a" * 130 + b"(1)\n# commentaire \xc3\xa9\n",
    "errors": b"""\
def broken(:
    x = = 1
class (Base):
    pass
print "old"
exec "code"
lambda: (yield)
f(a for a in b)
""",
    "decorators and nesting": b"""\
def outer():
    def inner(x=lambda: lambda: 1):
        class Local:
            def m(self):
                self.v = lambda y: y.attr
                return [lambda: i for i in range(3)]
        return Local
    return inner
@decorator
@other.decorator(arg=lambda: 0)
class Decorated:
    @classmethod
    def make(cls): return cls()
""",
}


@pytest.mark.parametrize("name", list(SOURCES))
@pytest.mark.parametrize("path, root", [("pkg/sub/mod.py", ""), ("python/pkg/sub/__init__.py", "python")])
def test_same_facts_on_tricky_sources(name, path, root):
    python, native = both(SOURCES[name], path, root)
    assert difference(python, native) is None


def test_extract_packed_uses_the_c_walker():
    source = SOURCES["classes"]
    tree = parser().parse(source)
    assert extract_packed(source, "pkg/mod.py", "pkg.mod", False, tree) == NATIVE.extract_packed(
        source, "pkg/mod.py", "pkg.mod", False, tree)


def test_a_tree_of_another_kind_is_refused():
    with pytest.raises(TypeError, match="tree_sitter.Tree"):
        NATIVE.extract_packed(b"x = 1", "m.py", "m", False, object())


@pytest.fixture(scope="module")
def pinned_default():
    """(manifest, checkout, analysed .py files) of each framework at its default pin."""
    os.environ.setdefault("ATLAS_MIRROR", "/work/shared/sources")
    try:
        settings = load_settings()
        return [(m, checkout, analysed_files(m, checkout, (".py",)))
                for m in load_all(settings.root) for checkout in [locate(m, "default", settings)]]
    except AtlasError as exc:
        pytest.skip(f"the default pins are not synced: {exc}")


@pytest.mark.slow
def test_same_facts_on_every_file_of_the_default_trees(pinned_default):
    ts = parser()
    for manifest, checkout, files in pinned_default:
        num_files = 0
        for path, _ in files:
            source = (checkout.path / path).read_bytes()
            module, is_package = module_name(path, manifest.package_root)
            tree = ts.parse(source)
            python = walk_packed(source, path, module, is_package, tree)
            native = NATIVE.extract_packed(source, path, module, is_package, tree)
            assert difference(python, native) is None, path
            num_files += 1
        assert num_files > 1500, (manifest.name, num_files)
        print(f"{manifest.name}: {num_files} files, same facts", file=sys.stderr)
