"""Call resolution on tiny packages: each row is (files, caller, callee, provenance) that must be found (or not)."""

import pytest

from atlas.graph.resolve import Solver, statements
from atlas.graph.resolve.rules import ByName, DispatchRules, Instances
from atlas.model import Provenance, Unresolved
from atlas.parse.python import extract, module_name


def resolve(files: dict[str, str], rules: DispatchRules | None = None):
    rules = rules or DispatchRules()
    facts = []
    for path, text in files.items():
        module, is_package = module_name(path)
        facts.append(extract(text.encode(), path, module, is_package))
    return Solver(facts, rules=rules).solve()


KV = """
class KVCacheManager:
    def allocate_slots(self, n):
        return n
"""

EXECUTOR = """
class Executor:
    def __init__(self, cfg): pass
    def execute_model(self): pass
"""

MODULES = """
from torch import nn
class Attention(nn.Module):
    def forward(self, q): pass
"""

LAYERS = """
import itertools
def make_layers(n, layer_fn):
    modules = nn.ModuleList([layer_fn() for _ in range(n)] + [Attention()])
    return 0, n, modules
class QwenLayer(nn.Module):
    def forward(self, x): pass
class LlamaLayer(nn.Module):
    def forward(self, x): pass
class QwenModel(nn.Module):
    def __init__(self):
        self.start, self.end, self.layers = make_layers(2, lambda: QwenLayer())
    def forward(self, x):
        for i, layer in enumerate(itertools.islice(self.layers, self.start, self.end)):
            layer(x)
class LlamaModel(nn.Module):
    def __init__(self):
        self.start, self.end, self.layers = make_layers(2, lambda: LlamaLayer())
    def forward(self, x):
        for layer in self.layers[self.start:self.end]:
            layer(x)
"""

CASES = [
    (
        "attribute typed by assignment",
        {
            "kv.py": KV,
            "sched.py": """
from kv import KVCacheManager
class Scheduler:
    def __init__(self):
        self.kv_cache_manager = KVCacheManager()
    def schedule(self):
        self.kv_cache_manager.allocate_slots(1)
""",
        },
        "sched.Scheduler.schedule",
        "kv.KVCacheManager.allocate_slots",
        Provenance.TYPE_INFERRED,
    ),
    (
        "attribute typed by annotation",
        {
            "kv.py": KV,
            "sched.py": """
from typing import Optional
from kv import KVCacheManager
class Scheduler:
    kv: Optional[KVCacheManager]
    def __init__(self, kv: "KVCacheManager | None"):
        self.kv = kv
    def schedule(self):
        self.kv.allocate_slots(1)
""",
        },
        "sched.Scheduler.schedule",
        "kv.KVCacheManager.allocate_slots",
        Provenance.TYPE_INFERRED,
    ),
    (
        "return annotation",
        {
            "kv.py": KV,
            "sched.py": """
from kv import KVCacheManager
def make() -> KVCacheManager: ...
def schedule():
    make().allocate_slots(2)
""",
        },
        "sched.schedule",
        "kv.KVCacheManager.allocate_slots",
        Provenance.TYPE_INFERRED,
    ),
    (
        "self method",
        {
            "a.py": """
class A:
    def f(self): self.g()
    def g(self): pass
"""
        },
        "a.A.f",
        "a.A.g",
        Provenance.STATIC,
    ),
    (
        "inherited method through super()",
        {
            "a.py": """
class A:
    def step(self): pass
class B(A):
    def step(self):
        super().step()
"""
        },
        "a.B.step",
        "a.A.step",
        Provenance.STATIC,
    ),
    (
        "constructor to __init__",
        {
            "a.py": """
class A:
    def __init__(self): pass
def f():
    A()
"""
        },
        "a.f",
        "a.A.__init__",
        Provenance.STATIC,
    ),
    (
        "override may be dispatched (base call reaches child via self)",
        {
            "a.py": """
class Base:
    def run(self): self.hook()
    def hook(self): pass
class Child(Base):
    def hook(self): pass
def main():
    Child().run()
"""
        },
        "a.Base.run",
        "a.Child.hook",
        Provenance.STATIC,
    ),
    (
        "functools.partial keeps the function reachable",
        {
            "a.py": """
import functools
def work(x): pass
def main():
    functools.partial(work, 1)
"""
        },
        "a.main",
        "functools.partial",
        Provenance.TYPE_INFERRED,
    ),
    (
        "triton launch",
        {
            "k.py": """
import triton
@triton.jit
def add_kernel(x_ptr):
    pass
def add(x):
    add_kernel[(1,)](x)
"""
        },
        "k.add",
        "k.add_kernel",
        Provenance.LAUNCH,
    ),
    (
        "a kernel jit'd by a call is launched",
        {
            "k.py": """
import triton
def _body(x_ptr):
    pass
_kernel = triton.jit(do_not_specialize=["n"])(_body)
def add(x):
    _kernel[(1,)](x)
"""
        },
        "k.add",
        "k._body",
        Provenance.LAUNCH,
    ),
    (
        "nested function",
        {
            "a.py": """
def outer():
    def inner(): pass
    inner()
"""
        },
        "a.outer",
        "a.outer.inner",
        Provenance.STATIC,
    ),
    (
        "relative import in a package",
        {"p/__init__.py": "", "p/x.py": "def f(): pass\n", "p/y.py": "from .x import f\ndef g():\n    f()\n"},
        "p.y.g",
        "p.x.f",
        Provenance.STATIC,
    ),
    (
        "star import",
        {"x.py": "def f(): pass\n", "y.py": "from x import *\ndef g():\n    f()\n"},
        "y.g",
        "x.f",
        Provenance.STATIC,
    ),
    (
        "import inside a function",
        {"x.py": "def f(): pass\n", "y.py": "def g():\n    from x import f\n    f()\n"},
        "y.g",
        "x.f",
        Provenance.STATIC,
    ),
    (
        "staticmethod and classmethod",
        {
            "a.py": """
class A:
    @staticmethod
    def s(): pass
    @classmethod
    def c(cls): cls.s()
def main():
    A.c()
"""
        },
        "a.A.c",
        "a.A.s",
        Provenance.STATIC,
    ),
    (
        "type[X] parameter is the class: calling it constructs",
        {
            "a.py": EXECUTOR
            + """
class EngineCore:
    def __init__(self, executor_class: type[Executor]):
        self.model_executor = executor_class(1)
    def step(self):
        self.model_executor.execute_model()
"""
        },
        "a.EngineCore.step",
        "a.Executor.execute_model",
        Provenance.TYPE_INFERRED,
    ),
    (
        "Type[X] | None and quoted type[X] name the class too",
        {
            "a.py": EXECUTOR
            + """
from typing import Type
def make(a: Type[Executor] | None, b: "type[Executor]"):
    a(1).execute_model()
    b(2).execute_model()
"""
        },
        "a.make",
        "a.Executor.__init__",
        Provenance.STATIC,
    ),
    (
        "type[X] return annotation: the returned class constructs",
        {
            "a.py": EXECUTOR
            + """
class Backend:
    @staticmethod
    def get_impl_cls() -> type["Executor"]: ...
def run():
    Backend.get_impl_cls()(1).execute_model()
"""
        },
        "a.run",
        "a.Executor.execute_model",
        Provenance.TYPE_INFERRED,
    ),
    (
        "X | None parameter annotation",
        {
            "kv.py": KV,
            "sched.py": """
from kv import KVCacheManager
def schedule(kv: KVCacheManager | None):
    kv.allocate_slots(1)
""",
        },
        "sched.schedule",
        "kv.KVCacheManager.allocate_slots",
        Provenance.TYPE_INFERRED,
    ),
    (
        "calling an nn.Module instance runs its forward",
        {
            "m.py": MODULES
            + """
class Layer(nn.Module):
    def __init__(self):
        self.attn = Attention()
    def forward(self, x):
        return self.attn(x)
"""
        },
        "m.Layer.forward",
        "m.Attention.forward",
        Provenance.TYPE_INFERRED,
    ),
    (
        "nn.Module subclass of an in-tree module base",
        {
            "m.py": MODULES
            + """
class Sink(Attention):
    def forward(self, q): pass
def run(s: Sink):
    s(1)
"""
        },
        "m.run",
        "m.Sink.forward",
        Provenance.TYPE_INFERRED,
    ),
    (
        "layers made by a shared helper from a lambda, iterated through islice/enumerate",
        {"m.py": MODULES + LAYERS},
        "m.QwenModel.forward",
        "m.QwenLayer.forward",
        Provenance.TYPE_INFERRED,
    ),
    (
        "list.append grows the list a loop later calls",
        {
            "m.py": MODULES
            + """
class Stack(nn.Module):
    def __init__(self):
        self.layers = nn.ModuleList()
        self.layers.append(Attention())
    def forward(self, x):
        for layer in self.layers:
            layer(x)
"""
        },
        "m.Stack.forward",
        "m.Attention.forward",
        Provenance.TYPE_INFERRED,
    ),
    (
        "a method only subclasses define (duck typing) is dispatched to them",
        {
            "a.py": """
class ImplBase:
    pass
class FlashImpl(ImplBase):
    def do_kv_cache_update(self): pass
class Attention:
    def __init__(self, impl: ImplBase):
        self.impl = impl
    def forward(self):
        self.impl.do_kv_cache_update()
"""
        },
        "a.Attention.forward",
        "a.FlashImpl.do_kv_cache_update",
        Provenance.DISPATCH,
    ),
    (
        "a decorator's wrapper is what the decorated name calls",
        {
            "a.py": """
import functools
def deco(fn):
    @functools.wraps(fn)
    def wrapper(*a): return fn(*a)
    return wrapper
@deco
def work(): pass
def main():
    work()
"""
        },
        "a.main",
        "a.deco.wrapper@a.work",
        Provenance.STATIC,
    ),
    (
        "the wrapper calls the decorated function",
        {
            "a.py": """
import functools
def deco(fn):
    @functools.wraps(fn)
    def wrapper(*a): return fn(*a)
    return wrapper
@deco
def work(): pass
"""
        },
        "a.deco.wrapper@a.work",
        "a.work",
        Provenance.STATIC,
    ),
    (
        "a decorator that returns its argument leaves the name to the function",
        {
            "a.py": """
REGISTRY = {}
def register(fn):
    REGISTRY[fn.__name__] = fn
    return fn
@register
def work(): pass
def main():
    work()
"""
        },
        "a.main",
        "a.work",
        Provenance.STATIC,
    ),
    (
        "a decorator that hands the function to a library leaves the name to it too",
        {
            "a.py": """
import torch
def compiled(fn):
    return torch.compile(fn)
@compiled
def work(): pass
def main():
    work()
"""
        },
        "a.main",
        "a.work",
        Provenance.STATIC,
    ),
    (
        "a module's __getattr__ (PEP 562) runs for a name it does not bind, read or imported",
        {
            "envs.py": """
def __getattr__(name):
    return LOOKUP[name]()
LOOKUP = {"A": lambda: 1}
""",
            "user.py": """
import envs
from envs import B
def main():
    return envs.A
""",
        },
        "user.main",
        "envs.__getattr__",
        Provenance.TYPE_INFERRED,
    ),
    (
        "the import of a name a module's __getattr__ gives",
        {"envs.py": "def __getattr__(name): return 1\n", "user.py": "from envs import B\n"},
        "user",
        "envs.__getattr__",
        Provenance.TYPE_INFERRED,
    ),
    (
        "a subscript with a str parameter reaches every value of the dict",
        {
            "envs.py": """
def __getattr__(name: str):
    return LOOKUP[name]()
def one(): return 1
LOOKUP = {"A": one}
"""
        },
        "envs.__getattr__",
        "envs.one",
        Provenance.TYPE_INFERRED,
    ),
    (
        "reading a property calls its getter",
        {
            "a.py": """
class Config:
    @property
    def size(self):
        return 1
def main(c: Config):
    return c.size + 1
"""
        },
        "a.main",
        "a.Config.size",
        Provenance.TYPE_INFERRED,
    ),
]

FA_UTILS = """
def get_version():
    from flash.interface import is_supported
    if is_supported(3):
        return 3
    return 2
def is_supported(version):
    from flash.interface import is_supported as _is_supported
    return _is_supported(version)
def supports_sinks():
    return is_supported(4)
"""
FLASH = {"flash/__init__.py": "", "flash/interface.py": "def is_supported(version):\n    return True\n"}
TRITON_BACKEND = """
import torch
from attention.decode import decode_attention_fwd
from attention.extend import extend_attention_fwd
from utils import cuda_graph_fully_disabled, check_cuda_graph_backend
class TritonAttnBackend:
    def __init__(self, runner):
        self.decode_attention_fwd = torch.compiler.disable(decode_attention_fwd)
        self.extend_attention_fwd = torch.compile(extend_attention_fwd, dynamic=True)
        self.breakable = (
            # captures one complete prefill forward
            (
                cuda_graph_fully_disabled()
                or check_cuda_graph_backend(runner.mode)
            )
            and runner.chunked_prefill_size == -1
        )
    def forward_decode(self, q):
        self.decode_attention_fwd(q)
    def forward_extend(self, q):
        self.extend_attention_fwd(q)
"""
ATTENTION = {
    "attention/__init__.py": "",
    "attention/decode.py": "def decode_attention_fwd(q):\n    pass\n",
    "attention/extend.py": "def extend_attention_fwd(q):\n    pass\n",
    "utils.py": "def cuda_graph_fully_disabled():\n    pass\ndef check_cuda_graph_backend(mode):\n    pass\n",
}
WRAPPED = """
import functools
import torch
from functools import lru_cache, partial, wraps
def plain(x): pass
def cached(x): pass
def configured(x): pass
def no_grad_fn(x): pass
def inference_fn(x): pass
def partial_fn(x, y): pass
def inner(x): pass
by_call = lru_cache(cached)
by_factory = functools.lru_cache(maxsize=8)(configured)
no_grad = torch.no_grad()(no_grad_fn)
inference = torch.inference_mode()(inference_fn)
bound = partial(partial_fn, 1)
def decorator(fn):
    @wraps(fn)
    def wrapper(*args):
        return fn(*args)
    return wrapper
made = wraps(inner)(plain)
def main():
    by_call(1)
    by_factory(1)
    no_grad(1)
    inference(1)
    bound(2)
    made(3)
"""
STRUCTS = """
import msgspec
class Handler:
    def run(self): pass
class BaseBatchReq(msgspec.Struct, tag=True, kw_only=True, array_like=True):
    rids: list = None
class BatchStrOutput(BaseBatchReq, kw_only=True):
    handler: object = None
def send():
    out = BatchStrOutput(rids=[], handler=Handler())
    out.handler.run()
"""

SCOPE_AND_POSITION_CASES = [
    # (name, files, caller, callee, reached): a function-local import hides the module's binding of the name only
    # inside that function
    (
        "a local import is the function's own binding",
        {"fa.py": FA_UTILS, **FLASH},
        "fa.get_version",
        "flash.interface.is_supported",
        True,
    ),
    (
        "a local import hides the module's def there",
        {"fa.py": FA_UTILS, **FLASH},
        "fa.get_version",
        "fa.is_supported",
        False,
    ),
    (
        "elsewhere the module's def is the name",
        {"fa.py": FA_UTILS, **FLASH},
        "fa.supports_sinks",
        "fa.is_supported",
        True,
    ),
    (
        "a local import as another name",
        {"fa.py": FA_UTILS, **FLASH},
        "fa.is_supported",
        "flash.interface.is_supported",
        True,
    ),
    # calls inside a parenthesised boolean after a comment
    (
        "a boolean in parentheses after a comment",
        {"tb.py": TRITON_BACKEND, **ATTENTION},
        "tb.TritonAttnBackend.__init__",
        "utils.cuda_graph_fully_disabled",
        True,
    ),
    (
        "its second operand",
        {"tb.py": TRITON_BACKEND, **ATTENTION},
        "tb.TritonAttnBackend.__init__",
        "utils.check_cuda_graph_backend",
        True,
    ),
    # functions kept through a wrapper outside the tree
    (
        "torch.compiler.disable(f) called",
        {"tb.py": TRITON_BACKEND, **ATTENTION},
        "tb.TritonAttnBackend.forward_decode",
        "attention.decode.decode_attention_fwd",
        True,
    ),
    (
        "torch.compile(f, ...) called",
        {"tb.py": TRITON_BACKEND, **ATTENTION},
        "tb.TritonAttnBackend.forward_extend",
        "attention.extend.extend_attention_fwd",
        True,
    ),
    ("lru_cache(f) called", {"w.py": WRAPPED}, "w.main", "w.cached", True),
    ("lru_cache(maxsize=8)(f) called", {"w.py": WRAPPED}, "w.main", "w.configured", True),
    ("torch.no_grad()(f) called", {"w.py": WRAPPED}, "w.main", "w.no_grad_fn", True),
    ("torch.inference_mode()(f) called", {"w.py": WRAPPED}, "w.main", "w.inference_fn", True),
    ("partial(f, ...) called", {"w.py": WRAPPED}, "w.main", "w.partial_fn", True),
    ("wraps(g)(f) called is f", {"w.py": WRAPPED}, "w.main", "w.plain", True),
    ("wraps(g)(f) called is not g", {"w.py": WRAPPED}, "w.main", "w.inner", False),
    # a callback a builtin method calls
    (
        "list.sort(key=f) calls f",
        {"s.py": "def rank(x):\n    return x\ndef order(xs):\n    xs = list(xs)\n    xs.sort(key=rank)\n"},
        "s.order",
        "s.rank",
        True,
    ),
    # a class whose only __init__ is a library base's (msgspec.Struct, with class keywords)
    ("constructing a Struct with class keywords", {"io.py": STRUCTS}, "io.send", "io.BatchStrOutput", True),
    ("its fields hold what the construction passed", {"io.py": STRUCTS}, "io.send", "io.Handler.run", True),
]


@pytest.mark.parametrize(
    "name, files, caller, callee, reached", SCOPE_AND_POSITION_CASES, ids=[c[0] for c in SCOPE_AND_POSITION_CASES]
)
def test_scopes_positions_and_wrappers(name, files, caller, callee, reached):
    edges = resolve(files).edges
    assert ((caller, callee) in edges) == reached, sorted(e for e in edges if e[0] == caller)


@pytest.mark.parametrize("name, files, caller, callee, provenance", CASES, ids=[c[0] for c in CASES])
def test_edge_found(name, files, caller, callee, provenance):
    edges = resolve(files).edges
    assert (caller, callee) in edges, sorted(edges)
    assert provenance in edges[(caller, callee)].values()


def test_unresolved_sites_are_kept():
    result = resolve({"a.py": "def f(x):\n    x.mystery()\n    print(1)\n"})
    mystery = result.sites[("a", 2, 15)]  # (module, end line, end column)
    assert (mystery.site.text, mystery.targets, mystery.reason) == ("x.mystery", {}, Unresolved.PARAMETER)
    assert list(result.sites[("a", 3, 12)].targets) == ["<builtin>.print"]  # resolved outside the tree


def test_no_edge_to_a_method_of_an_unrelated_class():
    edges = resolve(
        {
            "a.py": """
class A:
    def go(self): pass
class B:
    def go(self): pass
def f(a: A):
    a.go()
"""
        }
    ).edges
    assert ("a.f", "a.A.go") in edges and ("a.f", "a.B.go") not in edges


def test_type_annotation_binds_the_class_and_a_plain_one_an_instance():
    source = (
        EXECUTOR
        + """
def f(a: type[Executor], b: Executor):
    a(1)
    b(2)
"""
    )
    edges = resolve({"a.py": source}).edges
    a_line = source.splitlines().index("    a(1)") + 1
    assert set(edges[("a.f", "a.Executor.__init__")]) == {a_line}  # b(2) calls an instance, not the class


def test_each_caller_of_a_layer_helper_gets_its_own_layers():
    edges = resolve({"m.py": MODULES + LAYERS}).edges
    assert ("m.QwenModel.forward", "m.QwenLayer.forward") in edges
    assert ("m.LlamaModel.forward", "m.LlamaLayer.forward") in edges
    assert ("m.QwenModel.forward", "m.LlamaLayer.forward") not in edges
    assert ("m.LlamaModel.forward", "m.QwenLayer.forward") not in edges
    assert ("m.make_layers", "m.QwenModel.__init__.<lambda1>") in edges  # the helper still calls every lambda


WORKERS = """
class WorkerBase:
    def execute_model(self): raise NotImplementedError
    def profile(self): pass
class Worker(WorkerBase):
    def execute_model(self): pass
class CPUWorker(Worker):
    def execute_model(self): pass
class Executor:
    def collective_rpc(self, method, args=()): pass
    def execute_model(self):
        return self.collective_rpc("execute_model", args=(1,))
    def profile(self):
        self.collective_rpc(method="profile")
    def dynamic(self, name):
        self.collective_rpc(name)
    def unknown(self):
        self.collective_rpc("no_such_method")
"""
RPC = DispatchRules(by_name=(ByName("collective_rpc", "method", ("w.WorkerBase",)),))


@pytest.mark.parametrize(
    "caller, callees",
    [
        (  # (not WorkerBase's, which only raises NotImplementedError: the workers that run implement it)
            "w.Executor.execute_model",
            {"w.Worker.execute_model", "w.CPUWorker.execute_model"},
        ),
        ("w.Executor.profile", {"w.WorkerBase.profile"}),  # the keyword form
        ("w.Executor.dynamic", set()),  # no string literal: nothing to follow
        ("w.Executor.unknown", set()),  # no worker method of that name
    ],
)
def test_string_dispatch_by_rule(caller, callees):
    edges = resolve({"w.py": WORKERS}, RPC).edges
    found = {b for (a, b), lines in edges.items() if a == caller and Provenance.STRING_DISPATCH in lines.values()}
    assert found == callees


def test_a_serving_loop_looking_up_a_received_name_reaches_the_methods_by_name_calls_send():
    """The worker side of an RPC: `getattr(worker, method)` with a name taken off a queue finds the methods the
    by-name calls name (and no other method of the worker); a getattr on another object finds nothing new."""
    serving = """
class WorkerProc:
    def __init__(self, queue):
        self.worker = Worker()
        self.queue = queue
        self.other = Executor()
    def busy_loop(self):
        method, args = self.queue.dequeue()
        func = getattr(self.worker, method)
        func(*args)
        getattr(self.other, method)()
class Wrapper:  # a __getattr__ looks up the name an attribute read asked for, not one received
    def __init__(self):
        self.worker = Worker()
    def __getattr__(self, attr):
        return getattr(self.worker, attr)
def profile_through_the_wrapper():
    Wrapper().profile()
def run_method(obj, method):  # each caller hands its own name, which no constant carries in: nothing to follow
    return getattr(obj, method)()
def call_helper():
    run_method(Worker(), "profile")
"""
    edges = resolve({"w.py": WORKERS + serving}, RPC).edges
    found = {b for a, b in edges if a == "w.WorkerProc.busy_loop"}
    assert found >= {"w.Worker.execute_model", "w.WorkerBase.profile"}
    assert not found & {"w.CPUWorker.execute_model", "w.Executor.execute_model", "w.Executor.profile"}
    through = {b for a, b in edges if a == "w.profile_through_the_wrapper"}
    assert "w.WorkerBase.profile" in through and "w.Worker.execute_model" not in through
    assert ("w.run_method", "w.Worker.execute_model") not in edges
    assert ("w.WorkerProc.busy_loop", "w.Worker.execute_model") not in resolve({"w.py": WORKERS + serving}).edges


def test_string_dispatch_needs_a_rule():
    edges = resolve({"w.py": WORKERS}).edges
    assert ("w.Executor.execute_model", "w.Worker.execute_model") not in edges


def test_instances_rule_makes_calls_through_the_attribute_dispatch_edges():
    files = {
        "m.py": MODULES
        + """
class Qwen(nn.Module):
    def forward(self, x): pass
    def compute_logits(self, h): pass
class Runner:
    def __init__(self, loader):
        self.model = loader.load()
    def run(self, x):
        self.model(x)
        self.model.compute_logits(x)
"""
    }
    rules = DispatchRules(instances=(Instances("m.Runner.model", ("m.Qwen", "m.Missing")),))
    edges = resolve(files, rules).edges
    assert set(edges[("m.Runner.run", "m.Qwen.forward")].values()) == {Provenance.DISPATCH}
    assert set(edges[("m.Runner.run", "m.Qwen.compute_logits")].values()) == {Provenance.DISPATCH}
    assert ("m.Runner.run", "m.Qwen.forward") not in resolve(files).edges


@pytest.mark.parametrize("line", ["    return a.g() or g(a)", "    return g(a) or a.g()"])
def test_a_site_reached_two_ways_keeps_the_surest_provenance(line):
    """`a.g()` reaches A.g by type, `g(a)` by name: the edge is static whichever the evaluation meets first."""
    source = "class A:\n    def g(self):\n        return 1\n\n\ng = A.g\n\n\ndef h(a: A):\n" + line + "\n"
    assert resolve({"m.py": source}).edges[("m.h", "m.A.g")] == {10: Provenance.STATIC}


def test_containers_of_one_annotation_are_not_shared_across_the_tree():
    """`dict[str, Any]` parameters of two functions are two containers: what one function puts in its own does not
    reach the other's reads (one container per annotated type once mixed whole trees together)."""
    out = resolve(
        {
            "a.py": """
from typing import Any
class Job:
    def run(self): pass
def fill(d: dict[str, Any]):
    d["k"] = Job()
def use(d: dict[str, Any]):
    d["k"].run()
def own(d: dict[str, Any]):
    d["k"] = Job()
    d["k"].run()
"""
        }
    )
    assert ("a.use", "a.Job.run") not in out.edges
    assert ("a.own", "a.Job.run") in out.edges


def test_one_application_of_a_decorator_gives_only_its_own_function():
    """An identity decorator reached through `*args` (a placeholder `triton.jit`) returns every function it was
    applied to, as one cell; each decorated name keeps only its own function and the wrappers the decorator makes."""
    out = resolve(
        {
            "a.py": """
def placeholder(*args, **kwargs):
    if args and callable(args[0]):
        return args[0]
    return lambda f: f
@placeholder
def first(): pass
@placeholder
def second(): pass
def main():
    first()
"""
        }
    )
    assert ("a.main", "a.first") in out.edges
    assert ("a.main", "a.second") not in out.edges


def test_a_function_returning_one_of_its_star_args_gives_each_call_its_own_argument():
    """`return args[0]` of a `*args` parameter is a pass-through: each call gets back what it passed, not what
    every call passed (the decorator factory's result below, applied as a decorator, is one function)."""
    out = resolve(
        {
            "a.py": """
def first_of(*args):
    return args[0]
def one(): pass
def two(): pass
def main():
    f = first_of(one)
    g = first_of(two)
    f()
"""
        }
    )
    assert ("a.main", "a.one") in out.edges
    assert ("a.main", "a.two") not in out.edges


def test_a_function_kept_on_a_class_through_staticmethod_is_called_unbound():
    """`init = staticmethod(init_manager)` in a class body: `self.init(args)` runs init_manager with args first (no
    receiver bound), and what it returns flows on."""
    edges = resolve(
        {
            "e.py": """
class Manager:
    def set_time(self, t): pass
class Args:
    def make(self): return Manager()
def init_manager(args):
    return args.make(), None
class Engine:
    init = staticmethod(init_manager)
    def start(self):
        manager, _ = self.init(Args())
        manager.set_time(1)
"""
        }
    ).edges
    assert ("e.Engine.start", "e.init_manager") in edges
    assert ("e.init_manager", "e.Args.make") in edges  # args is the Args given, not the engine
    assert ("e.Engine.start", "e.Manager.set_time") in edges


def test_a_staticmethod_called_through_the_class_takes_its_first_argument_as_no_receiver():
    """`cls._report(manager, ...)` on a staticmethod: one run for every manager given, not one per class of the
    first argument as for a method called through its class with the receiver passed (`Base.method(self)`)."""
    text = """
class TokenizerManager:
    def set_time(self, t): pass
class Router:
    def set_time(self, t): pass
class Engine:
    @staticmethod
    def _report(manager, t):
        manager.set_time(t)
    @classmethod
    def launch(cls, flag):
        manager = TokenizerManager() if flag else Router()
        cls._report(manager, 1)
"""
    solver = Solver([extract(text.encode(), "e.py", *module_name("e.py"))], rules=DispatchRules())
    edges = solver.solve().edges
    assert {("e.Engine._report", "e.TokenizerManager.set_time"), ("e.Engine._report", "e.Router.set_time")} <= set(
        edges
    )
    assert not solver.contexts.get("e.Engine._report")  # no run per class of the manager


def test_iterating_a_dict_gives_its_keys_never_its_values():
    """`for task in poolers` (and `set(poolers)`, `sorted(...)`) walks a dict's keys: the values reach the loop
    variable only through `poolers[task]` or `.values()`."""
    text = """
class Pooler:
    def name(self): pass
    def run(self): pass
def tasks():
    poolers = {"embed": Pooler()}
    for task in poolers:
        task.name()
        poolers[task].run()
def listed(d):
    for task in set(d):
        task.name()
    for pooler in d.values():
        pooler.run()
listed({"classify": Pooler()})
"""
    edges = set(Solver([extract(text.encode(), "p.py", *module_name("p.py"))], rules=DispatchRules()).solve().edges)
    assert ("p.tasks", "p.Pooler.run") in edges and ("p.listed", "p.Pooler.run") in edges
    assert ("p.tasks", "p.Pooler.name") not in edges
    assert ("p.listed", "p.Pooler.name") not in edges


def test_a_clone_made_during_a_declaring_pass_gets_no_promise_before_it_has_run():
    """A clone the declaring phase's flows make (a promised config's `get_method` run for an Attention layer) may
    be read by `declare` before it ran, or before the clones it calls returned: its return is empty then, which is
    no lost flow. The pass that made it leaves it alone; the next one declares it after it ran (a return of what the
    tree makes keeps only that, a library object gets what `-> Method` promises)."""
    text = """
import lib
class Method:
    def create(self): pass
class LinearMethod(Method):
    def create(self): pass
class KVMethod(Method):
    def create(self): pass
class Layer: pass
class Linear(Layer): pass
class Attention(Layer):
    def __init__(self, config: "Config"):
        self.method = config.get_method(self)
        self.method.create()
class Config:
    def get_method(self, layer) -> Method:
        if isinstance(layer, Linear):
            return LinearMethod()
        return lib.load(layer)
def setup():
    Config().get_method(Linear())
    KVMethod()
"""
    solver = Solver([extract(text.encode(), "t.py", *module_name("t.py"))], rules=DispatchRules())
    edges = set(solver.solve().edges)
    fid = "t.Config.get_method"
    assert "layer=t.Attention" in solver.contexts.get(fid, {})
    assert {("t.Attention.__init__", "t.KVMethod.create"), ("t.Attention.__init__", "t.LinearMethod.create")} <= edges
    # a clone entered by a call but not yet run when a pass declares: no promise for it
    fresh = fid + "@layer=t.Fresh"
    solver.contexts[fid]["layer=t.Fresh"] = fresh
    solver.roots.add(fresh)
    solver.given[fresh] = {}
    statements.declare(solver, solver.scopes[fid])
    assert not solver.cells.returned(fresh).union
    solver.settled.add(fresh)  # the next pass, once it ran (here: it returned nothing of the tree)
    statements.declare(solver, solver.scopes[fid])
    assert {v.name for v in solver.cells.returned(fresh).union} == {"t.LinearMethod", "t.KVMethod"}
