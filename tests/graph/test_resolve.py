"""Call resolution on tiny packages: each row is (files, caller, callee, provenance) that must be found (or not)."""

import pytest

from atlas.graph.resolve import Solver
from atlas.model import Provenance
from atlas.parse.python import extract, module_name


def resolve(files: dict[str, str]):
    facts = []
    for path, text in files.items():
        module, is_package = module_name(path)
        facts.append(extract(text.encode(), path, module, is_package))
    return Solver(facts).solve()


KV = """
class KVCacheManager:
    def allocate_slots(self, n):
        return n
"""

CASES = [
    ("attribute typed by assignment", {"kv.py": KV, "sched.py": """
from kv import KVCacheManager
class Scheduler:
    def __init__(self):
        self.kv_cache_manager = KVCacheManager()
    def schedule(self):
        self.kv_cache_manager.allocate_slots(1)
"""}, "sched.Scheduler.schedule", "kv.KVCacheManager.allocate_slots", Provenance.TYPE_INFERRED),
    ("attribute typed by annotation", {"kv.py": KV, "sched.py": """
from typing import Optional
from kv import KVCacheManager
class Scheduler:
    kv: Optional[KVCacheManager]
    def __init__(self, kv: "KVCacheManager | None"):
        self.kv = kv
    def schedule(self):
        self.kv.allocate_slots(1)
"""}, "sched.Scheduler.schedule", "kv.KVCacheManager.allocate_slots", Provenance.TYPE_INFERRED),
    ("return annotation", {"kv.py": KV, "sched.py": """
from kv import KVCacheManager
def make() -> KVCacheManager: ...
def schedule():
    make().allocate_slots(2)
"""}, "sched.schedule", "kv.KVCacheManager.allocate_slots", Provenance.TYPE_INFERRED),
    ("self method", {"a.py": """
class A:
    def f(self): self.g()
    def g(self): pass
"""}, "a.A.f", "a.A.g", Provenance.STATIC),
    ("inherited method through super()", {"a.py": """
class A:
    def step(self): pass
class B(A):
    def step(self):
        super().step()
"""}, "a.B.step", "a.A.step", Provenance.STATIC),
    ("constructor to __init__", {"a.py": """
class A:
    def __init__(self): pass
def f():
    A()
"""}, "a.f", "a.A.__init__", Provenance.STATIC),
    ("override may be dispatched (base call reaches child via self)", {"a.py": """
class Base:
    def run(self): self.hook()
    def hook(self): pass
class Child(Base):
    def hook(self): pass
def main():
    Child().run()
"""}, "a.Base.run", "a.Child.hook", Provenance.STATIC),
    ("functools.partial keeps the function reachable", {"a.py": """
import functools
def work(x): pass
def main():
    functools.partial(work, 1)
"""}, "a.main", "functools.partial", Provenance.TYPE_INFERRED),
    ("triton launch", {"k.py": """
import triton
@triton.jit
def add_kernel(x_ptr):
    pass
def add(x):
    add_kernel[(1,)](x)
"""}, "k.add", "k.add_kernel", Provenance.LAUNCH),
    ("nested function", {"a.py": """
def outer():
    def inner(): pass
    inner()
"""}, "a.outer", "a.outer.inner", Provenance.STATIC),
    ("relative import in a package", {"p/__init__.py": "", "p/x.py": "def f(): pass\n",
                                      "p/y.py": "from .x import f\ndef g():\n    f()\n"},
     "p.y.g", "p.x.f", Provenance.STATIC),
    ("star import", {"x.py": "def f(): pass\n", "y.py": "from x import *\ndef g():\n    f()\n"},
     "y.g", "x.f", Provenance.STATIC),
    ("import inside a function", {"x.py": "def f(): pass\n", "y.py": "def g():\n    from x import f\n    f()\n"},
     "y.g", "x.f", Provenance.STATIC),
    ("staticmethod and classmethod", {"a.py": """
class A:
    @staticmethod
    def s(): pass
    @classmethod
    def c(cls): cls.s()
def main():
    A.c()
"""}, "a.A.c", "a.A.s", Provenance.STATIC),
    ("decorated with functools.wraps wrapper keeps the name", {"a.py": """
import functools
def deco(fn):
    @functools.wraps(fn)
    def wrapper(*a): return fn(*a)
    return wrapper
@deco
def work(): pass
def main():
    work()
"""}, "a.main", "a.work", Provenance.STATIC),
]


@pytest.mark.parametrize("name, files, caller, callee, provenance", CASES, ids=[c[0] for c in CASES])
def test_edge_found(name, files, caller, callee, provenance):
    edges = resolve(files).edges
    assert (caller, callee) in edges, sorted(edges)
    assert provenance in edges[(caller, callee)].values()


def test_unresolved_sites_are_kept():
    result = resolve({"a.py": "def f(x):\n    x.mystery()\n    print(1)\n"})
    assert result.sites[("a.f", 2, "x.mystery")] == 0
    assert result.sites[("a.f", 3, "print")] == 1  # a builtin: resolved outside the tree


def test_no_edge_to_a_method_of_an_unrelated_class():
    edges = resolve({"a.py": """
class A:
    def go(self): pass
class B:
    def go(self): pass
def f(a: A):
    a.go()
"""}).edges
    assert ("a.f", "a.A.go") in edges and ("a.f", "a.B.go") not in edges
