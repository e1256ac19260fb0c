"""The precision and recall classes of issue 18, each as small real-shaped cases: the edges a rule must produce
(`found`) and those it must not (`not_found`), on packages written here in the engines' idioms."""

import pytest
from test_resolve import resolve

CASES = [
    (
        "context manager: `with C() as x` calls __enter__ and __exit__, x is what __enter__ returns",
        {
            "a.py": """
class Session:
    def run(self): pass
class Timer:
    def __enter__(self):
        return Session()
    def __exit__(self, *exc):
        return False
def main():
    with Timer() as s:
        s.run()
"""
        },
        {("a.main", "a.Timer.__enter__"), ("a.main", "a.Timer.__exit__"), ("a.main", "a.Session.run")},
        set(),
    ),
    (
        "context manager made by a generator (contextlib.contextmanager) yields the bound value",
        {
            "a.py": """
import contextlib
class Buffer:
    def flush(self): pass
@contextlib.contextmanager
def borrowed():
    yield Buffer()
def main():
    with borrowed() as b:
        b.flush()
"""
        },
        {("a.main", "a.borrowed"), ("a.main", "a.Buffer.flush")},
        set(),
    ),
    (
        "flow-sensitive: a reassignment replaces what a name held",
        {
            "a.py": """
class Prefill:
    def run(self): pass
class Decode:
    def run(self): pass
def main():
    batch = Prefill()
    batch.run()
    batch = Decode()
    batch.run()
"""
        },
        {("a.main", "a.Prefill.run"), ("a.main", "a.Decode.run")},
        set(),
    ),
    (
        "flow-sensitive: after the reassignment only the new value is called",
        {
            "a.py": """
class Prefill:
    def only_prefill(self): pass
class Decode:
    def only_prefill(self): pass
def main():
    batch = Prefill()
    batch = Decode()
    batch.only_prefill()
"""
        },
        {("a.main", "a.Decode.only_prefill")},
        {("a.main", "a.Prefill.only_prefill")},
    ),
    (
        "flow-sensitive: after a branch both values join",
        {
            "a.py": """
class A:
    def go(self): pass
class B:
    def go(self): pass
def main(flag):
    x = A()
    if flag:
        x = B()
    x.go()
"""
        },
        {("a.main", "a.A.go"), ("a.main", "a.B.go")},
        set(),
    ),
    (
        "container flow: dict.update carries the values into the dict",
        {
            "a.py": """
class Handler:
    def handle(self): pass
def main():
    table = {}
    table.update({"h": Handler()})
    table["h"].handle()
"""
        },
        {("a.main", "a.Handler.handle")},
        set(),
    ),
    (
        "container flow: nested containers and extended indexing",
        {
            "a.py": """
class Req:
    def finished(self): return True
def main():
    groups = [[Req()], [Req()]]
    groups[0][-1].finished()
    last = groups[-1]
    last[0].finished()
"""
        },
        {("a.main", "a.Req.finished")},
        set(),
    ),
    (
        "list elements: `reqs[i].finished()` on a list attribute filled elsewhere",
        {
            "a.py": """
class Req:
    def finished(self): return True
class Batch:
    def __init__(self):
        self.reqs = []
    def add(self, r: Req):
        self.reqs.append(r)
    def done(self):
        return [i for i in range(len(self.reqs)) if self.reqs[i].finished()]
"""
        },
        {("a.Batch.done", "a.Req.finished")},
        set(),
    ),
    (
        "a decorator returning a different function: the name calls the wrapper, the wrapper the function",
        {
            "a.py": """
import functools
def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper
@traced
def step(): pass
def main():
    step()
"""
        },
        {("a.main", "a.traced.wrapper@a.step"), ("a.traced.wrapper@a.step", "a.step")},
        set(),
    ),
    (
        "a package's __init__ re-exports a class: calls through the package reach it",
        {
            "pkg/__init__.py": "from pkg.impl import Scheduler\n__all__ = ['Scheduler']\n",
            "pkg/impl.py": "class Scheduler:\n    def schedule(self): pass\n",
            "user.py": "import pkg\nfrom pkg import Scheduler\ndef main():\n    Scheduler().schedule()\n"
            "    pkg.Scheduler().schedule()\n",
        },
        {("user.main", "pkg.impl.Scheduler.schedule")},
        set(),
    ),
    (
        "methods of builtin types are edges out of the tree, not into it",
        {
            "a.py": """
class Joiner:
    def join(self, parts): pass
def main(names: list[str]):
    sep = ", "
    return sep.join(names)
"""
        },
        set(),
        {("a.main", "a.Joiner.join")},
    ),
    (
        "enum members: a method reached through an attribute holding a member",
        {
            "a.py": """
import enum
class ForwardMode(enum.IntEnum):
    EXTEND = 1
    DECODE = 2
    def is_extend(self):
        return self == ForwardMode.EXTEND
class Batch:
    def __init__(self):
        self.forward_mode = ForwardMode.DECODE
    def run(self):
        return self.forward_mode.is_extend()
"""
        },
        {("a.Batch.run", "a.ForwardMode.is_extend")},
        set(),
    ),
    (
        "a component holding a back-reference calls into its owner",
        {
            "a.py": """
class Scheduler:
    def __init__(self):
        self.inquirer = LoadInquirer(self)
    def get_loads(self):
        return 0
class LoadInquirer:
    def __init__(self, scheduler):
        self.scheduler = scheduler
    def loads(self):
        return self.scheduler.get_loads()
"""
        },
        {("a.LoadInquirer.loads", "a.Scheduler.get_loads")},
        set(),
    ),
    (
        "an attribute whose type is set in another object's __init__",
        {
            "a.py": """
class Pool:
    def alloc(self): pass
class Runner:
    pool = None
class Worker:
    def __init__(self, runner: Runner):
        runner.pool = Pool()
        self.runner = runner
    def step(self):
        self.runner.pool.alloc()
"""
        },
        {("a.Worker.step", "a.Pool.alloc")},
        set(),
    ),
    (
        "a property with a setter: a read calls the getter, a store the setter, both bodies under the one id (their "
        "__qualname__)",
        {
            "a.py": """
class Tracker:
    def refresh(self): pass
    def record(self, v): pass
class Req:
    def __init__(self):
        self.tracker = Tracker()
    @property
    def finished(self):
        self.tracker.refresh()
        return False
    @finished.setter
    def finished(self, value):
        self.tracker.record(value)
def poll(r: Req):
    return r.finished
def finish(r: Req):
    r.finished = True
"""
        },
        {
            ("a.poll", "a.Req.finished"),
            ("a.finish", "a.Req.finished"),
            ("a.Req.finished", "a.Tracker.refresh"),
            ("a.Req.finished", "a.Tracker.record"),
        },
        set(),
    ),
    (
        "a function defined on both branches of an `if`: the calls of both bodies are kept",
        {
            "a.py": """
import os
def cuda_path(): pass
def cpu_path(): pass
if os.environ.get("CUDA"):
    def forward():
        cuda_path()
else:
    def forward():
        cpu_path()
def main():
    forward()
"""
        },
        {("a.main", "a.forward"), ("a.forward", "a.cuda_path"), ("a.forward", "a.cpu_path")},
        set(),
    ),
    (
        "an annotation naming a class the module defines further down (a string, or any name under `from __future__ "
        "import annotations`) promises an instance of it",
        {
            "a.py": """
from __future__ import annotations
class Compilation:
    def is_enabled(self, op): pass
def quoted(cfg: "Config"):
    return cfg.compilation.is_enabled("rms_norm")
def lazy(cfg: Config) -> Config:
    return cfg.compilation.is_enabled("silu")
class Config:
    compilation: Compilation = make_field(Compilation)
    def copy(self) -> Config: pass
def main(c: Config):
    c.copy().compilation.is_enabled("x")
"""
        },
        {
            ("a.quoted", "a.Compilation.is_enabled"),
            ("a.lazy", "a.Compilation.is_enabled"),
            ("a.main", "a.Config.copy"),
            ("a.main", "a.Compilation.is_enabled"),
        },
        set(),
    ),
    (
        "what a factory parameter makes, kept in a container an attribute holds, is what the factories passed make "
        "(vLLM's per-engine stat loggers)",
        {
            "a.py": """
class LoggingStatLogger:
    def record(self): pass
class Adapter:
    def __init__(self, indexes: list[int], factory):
        self.loggers = {}
        for index in indexes:
            self.loggers[index] = factory(index)
    def record(self, idx: int):
        self.loggers[idx].record()
def main():
    Adapter([0], LoggingStatLogger).record(0)
"""
        },
        {("a.Adapter.record", "a.LoggingStatLogger.record")},
        set(),
    ),
    (
        "typing.cast(T, x) is x and a T, copy.deepcopy(x) an object of x's classes, and a deque's appendleft/popleft "
        "move "
        "elements as a list's append/pop do (vLLM's batch queue of futures)",
        {
            "a.py": """
import copy
from collections import deque
from concurrent.futures import Future
from typing import cast
class Output:
    def result(self): pass
class Executor:
    def execute(self) -> "Future[int] | int":
        return Output()
class Core:
    def __init__(self):
        self.batch_queue = deque(maxlen=2)
        self.executor = Executor()
    def step(self):
        future = cast(Future[int], self.executor.execute())
        self.batch_queue.appendleft((future, 1))
        done, _ = self.batch_queue.popleft()
        done.result()
def snapshot(o: Output):
    copy.deepcopy(o).result()
def unknown(x):
    cast(Output, x).result()  # an x the tree cannot follow is still what the cast promises
"""
        },
        {("a.Core.step", "a.Output.result"), ("a.snapshot", "a.Output.result"), ("a.unknown", "a.Output.result")},
        set(),
    ),
    (
        "a priority queue kept with heapq gives back what was pushed; dataclasses.replace(x) is an object of x's class",
        {
            "a.py": """
import dataclasses
import heapq
@dataclasses.dataclass
class Request:
    priority: int = 0
    def finish(self): pass
class Scheduler:
    def __init__(self):
        self.waiting = []
    def add(self, r: Request):
        heapq.heappush(self.waiting, (r.priority, r))
    def step(self):
        _, r = heapq.heappop(self.waiting)
        r.finish()
    def bump(self, r: Request):
        dataclasses.replace(r, priority=1).finish()
"""
        },
        {("a.Scheduler.step", "a.Request.finish"), ("a.Scheduler.bump", "a.Request.finish")},
        set(),
    ),
    (
        "a plain property without a setter: a store does not call it",
        {
            "a.py": """
class Req:
    @property
    def size(self):
        return 1
def resize(r: Req):
    r.size = 2
"""
        },
        set(),
        {("a.resize", "a.Req.size")},
    ),
]


@pytest.mark.parametrize("name, files, found, not_found", CASES, ids=[c[0] for c in CASES])
def test_class(name, files, found, not_found):
    edges = resolve(files).edges
    assert found <= set(edges), sorted(found - set(edges))
    assert not (not_found & set(edges)), sorted(not_found & set(edges))


def test_a_name_declared_only_for_type_checkers_comes_from_the_module_getattr():
    """`if TYPE_CHECKING: VLLM_X: bool = False` declares a name that does not exist at run time: reading it calls
    the module's __getattr__ (vllm.envs); a name bound for real does not."""
    edges = resolve(
        {
            "envs.py": """
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    VLLM_X: bool = False
REAL = 1
def __getattr__(name):
    return 0
""",
            "user.py": """
import envs
def uses_declared():
    return envs.VLLM_X
def uses_real():
    return envs.REAL
""",
        }
    ).edges
    assert ("user.uses_declared", "envs.__getattr__") in edges
    assert ("user.uses_real", "envs.__getattr__") not in edges


def test_an_attribute_the_class_lacks_goes_through_its_getattr():
    """A wrapper class forwarding with __getattr__ (vLLM's WorkerWrapperBase): reading a name it lacks calls it;
    a name it has does not."""
    edges = resolve(
        {
            "w.py": """
class Wrapper:
    def __init__(self, inner):
        self.inner = inner
    def own(self): pass
    def __getattr__(self, attr):
        return getattr(self.inner, attr)
def main(w: Wrapper):
    w.load_model()
def other(w: Wrapper):
    w.own()
"""
        }
    ).edges
    assert ("w.main", "w.Wrapper.__getattr__") in edges
    assert ("w.other", "w.Wrapper.__getattr__") not in edges and ("w.other", "w.Wrapper.own") in edges


def test_a_mixin_after_an_external_base_gives_its_methods():
    """`class Model(nn.Module, EagleMixin)`: a method only the mixin defines is the mixin's (nn.Module has no such
    name), while a dunder stays the external base's (nn.Module.__init__ runs, not the mixin's)."""
    edges = resolve(
        {
            "m.py": """
from torch import nn
class EagleMixin:
    def __init__(self): pass
    def collect_aux(self): pass
class Model(nn.Module, EagleMixin):
    def forward(self, x):
        self.collect_aux()
def build():
    return Model()
"""
        }
    ).edges
    assert ("m.Model.forward", "m.EagleMixin.collect_aux") in edges
    assert ("m.Model.forward", "torch.nn.Module.collect_aux") not in edges
    assert ("m.build", "m.EagleMixin.__init__") not in edges


def test_a_condition_takes_the_truth_value_of_an_instance():
    """`if self.waiting:` calls the queue's __bool__ (else its __len__); a plain expression statement does not."""
    edges = resolve(
        {
            "q.py": """
class Queue:
    def __bool__(self):
        return True
class Sized:
    def __len__(self):
        return 0
class Scheduler:
    def __init__(self):
        self.waiting = Queue()
        self.running = Sized()
    def schedule(self):
        if self.waiting:
            pass
        while self.running:
            break
    def touch(self):
        self.waiting
"""
        }
    ).edges
    assert ("q.Scheduler.schedule", "q.Queue.__bool__") in edges
    assert ("q.Scheduler.schedule", "q.Sized.__len__") in edges
    assert ("q.Scheduler.touch", "q.Queue.__bool__") not in edges


def test_not_takes_the_truth_value_too():
    edges = resolve(
        {
            "q.py": """
class Queue:
    def __bool__(self):
        return False
    def peek(self):
        if not self:
            raise IndexError
def drain(q: Queue):
    while q and not q:
        pass
"""
        }
    ).edges
    assert ("q.Queue.peek", "q.Queue.__bool__") in edges and ("q.drain", "q.Queue.__bool__") in edges


def test_a_function_patched_into_a_library_module_is_what_its_readers_call():
    """`torch.accelerator.empty_cache = noop` (vLLM's CPU runner): later calls of it run noop; an attribute set on
    an object typed by a library class is not shared with every other such object."""
    edges = resolve(
        {
            "r.py": """
import torch
from torch import nn
def noop(*args, **kwargs):
    pass
def patch():
    torch.accelerator.empty_cache = noop
def cleanup():
    torch.accelerator.empty_cache()
class Job:
    def run(self): pass
def tag(m: nn.Module):
    m.job = Job()
def other(m: nn.Module):
    m.job.run()
"""
        }
    ).edges
    assert ("r.cleanup", "r.noop") in edges
    assert ("r.other", "r.Job.run") not in edges


def test_setattr_with_a_constant_name_patches_like_an_assignment():
    """`setattr(triton, "next_power_of_2", ours)` (SGLang's utils): later calls of it run ours, as with `=`; a
    `getattr` with a constant name reads the attribute."""
    edges = resolve(
        {
            "u.py": """
import triton
class Pool:
    def alloc(self): pass
class Holder:
    pass
def next_power_of_2(n):
    return n
setattr(triton, "next_power_of_2", next_power_of_2)
def blocks(n):
    return triton.next_power_of_2(n)
def fill(h: Holder):
    setattr(h, "pool", Pool())
    getattr(h, "pool").alloc()
"""
        }
    ).edges
    assert ("u.blocks", "u.next_power_of_2") in edges
    assert ("u.fill", "u.Pool.alloc") in edges


def test_storing_an_attribute_or_item_calls_the_class_setattr_and_setitem():
    """`args.x = 1` on a class defining __setattr__ (SGLang's ServerArgs, a flag group) calls it; `table[k] = v`
    calls __setitem__; a class without them gets no such edge."""
    edges = resolve(
        {
            "a.py": """
class Args:
    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
class Table:
    def __setitem__(self, key, value): pass
class Plain:
    pass
def configure(args: Args, table: Table, plain: Plain):
    args.port = 1
    table["k"] = 2
    plain.port = 3
"""
        }
    ).edges
    assert ("a.configure", "a.Args.__setattr__") in edges and ("a.configure", "a.Table.__setitem__") in edges
    assert not any(callee.endswith("__setattr__") and callee != "a.Args.__setattr__" for _, callee in edges)


def test_formatting_and_slicing_call_the_instance_protocol():
    """An f-string formats each value: `{x}` runs `__format__`, else (object's) `__str__`; `{x!r}` and `{x=}` run
    `__repr__`; slicing an instance runs its `__getitem__` (SGLang's RadixKey)."""
    edges = resolve(
        {
            "k.py": """
class ArgList:
    def __str__(self): return ""
class Key:
    def __repr__(self): return ""
    def __getitem__(self, index): return self
class Spec:
    def __format__(self, spec): return ""
    def __str__(self): return ""
def render(args: ArgList, key: Key, spec: Spec):
    return f"-I{args} {key!r} {spec:>4}"
def debug(key: Key):
    return f"{key=}"
def split(key: Key, n: int):
    return key[:n]
"""
        }
    ).edges
    assert {
        ("k.render", "k.ArgList.__str__"),
        ("k.render", "k.Key.__repr__"),
        ("k.render", "k.Spec.__format__"),
        ("k.debug", "k.Key.__repr__"),
        ("k.split", "k.Key.__getitem__"),
    } <= set(edges)
    assert ("k.render", "k.Spec.__str__") not in edges


def test_augmented_assignment_runs_the_in_place_method_then_the_binary_one():
    """`a += b` runs a.__iadd__(b) where the class has one (SGLang's TypeBasedDispatcher, its frontend's program
    state), else a.__add__(b); `|=` likewise; on strings it still makes a string."""
    edges = resolve(
        {
            "d.py": """
class Dispatcher:
    def __init__(self, mapping): self.mapping = mapping
    def __iadd__(self, other): return self
    def __add__(self, other): return Dispatcher(other)
class Flags:
    def __or__(self, other): return self
class Name:
    def upper(self): return self
def main():
    d = Dispatcher([])
    d += Dispatcher([])
    f = Flags()
    f |= Flags()
    s = "a"
    s += "b"
    return s.upper()
"""
        }
    ).edges
    assert {("d.main", "d.Dispatcher.__iadd__"), ("d.main", "d.Flags.__or__")} <= set(edges)
    assert ("d.main", "d.Dispatcher.__add__") not in edges  # it has __iadd__: Python never falls back
    assert ("d.main", "d.Name.upper") not in edges


def test_an_instances_class_attribute_is_its_class():
    """`self.__class__(...)` constructs another instance of the receiver's class, like `type(self)(...)`, also when
    the class has a library base (torch's `_DecoratorContextManager` under SGLang's DynamicGradMode)."""
    edges = resolve(
        {
            "g.py": """
from torch.utils._contextlib import _DecoratorContextManager
class GradMode(_DecoratorContextManager):
    def __init__(self, mode=True): self.mode = mode
    def clone(self):
        return self.__class__(self.mode)
class Plain:
    def copy(self):
        return self.__class__()
    def name(self):
        return self.__class__.__name__
"""
        }
    ).edges
    assert {("g.GradMode.clone", "g.GradMode.__init__"), ("g.Plain.copy", "g.Plain")} <= set(edges)


def test_defining_a_subclass_calls_the_base_init_subclass():
    """`class Causal(Base)` runs Base.__init_subclass__ (a registry, SGLang's TransformersBase) from the scope
    holding the class statement; the base's own definition does not."""
    edges = resolve(
        {
            "m.py": """
class Base:
    registry = []
    def __init_subclass__(cls, **kwargs):
        Base.registry.append(cls)
class Causal(Base):
    pass
def make():
    class Local(Causal):
        pass
    return Local
"""
        }
    ).edges
    assert ("m", "m.Base.__init_subclass__") in edges and ("m.make", "m.Base.__init_subclass__") in edges


def test_a_dataclass_constructor_gives_its_fields_the_arguments():
    """A component built as a dataclass with callables and collaborators as fields (SGLang's scheduler components):
    its generated __init__ sets each field from the argument of that name or position, so calls through the
    fields reach what was passed; __post_init__ runs on the new instance. A plain class without __init__ does not
    bind its annotated names."""
    edges = resolve(
        {
            "c.py": """
from dataclasses import dataclass
from typing import Callable, NamedTuple
class Pool:
    def available_size(self): return 0
@dataclass(kw_only=True, frozen=True)
class Inquirer:
    pool: Pool
    get_queue: Callable
    def load(self):
        self.get_queue()
        return self.pool.available_size()
@dataclass
class Params:
    n: int
    def __post_init__(self): pass
class Row(NamedTuple):
    pool: Pool
class Plain:
    get_queue: Callable
    def load(self):
        self.get_queue()
class Scheduler:
    def queue(self): return []
    def init(self, pool: Pool):
        self.inquirer = Inquirer(pool=pool, get_queue=lambda: self.queue())
        Plain().load()
        Params(1)
        Row(Pool()).pool.available_size()
"""
        }
    ).edges
    assert {
        ("c.Inquirer.load", "c.Scheduler.init.<lambda1>"),
        ("c.Inquirer.load", "c.Pool.available_size"),
        ("c.Scheduler.init", "c.Params.__post_init__"),
        ("c.Scheduler.init", "c.Pool.available_size"),
    } <= set(edges)
    assert not any(caller == "c.Plain.load" and "lambda" in callee for caller, callee in edges)


def test_a_partial_called_runs_its_function():
    """`nvtx_method = partial(profile_method, enabled=...)`, then `@nvtx_method("name")` on methods (SGLang's
    scheduler): the decorator is profile_method's, so calls of the methods go through its wrapper."""
    edges = resolve(
        {
            "p.py": """
from functools import partial, wraps
def profile_method(name, *, enabled=False):
    def decorator(func):
        @wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)
        return wrapper
    return decorator
nvtx_method = partial(profile_method, enabled=True)
class Scheduler:
    @nvtx_method("run")
    def run_batch(self): pass
    def loop(self):
        self.run_batch()
"""
        }
    ).edges
    wrapper = "p.profile_method.decorator.wrapper@p.Scheduler.run_batch"  # the closure its application made
    assert ("p.Scheduler.loop", wrapper) in edges
    assert (wrapper, "p.Scheduler.run_batch") in edges


def test_constructing_a_class_runs_the_tree_new():
    """vLLM's CustomOp defines __new__ (it picks the op's implementation): every layer built runs it first."""
    edges = resolve(
        {
            "op.py": """
class CustomOp:
    def __new__(cls, *args, **kwargs):
        return super().__new__(cls)
    def __init__(self): pass
class RMSNorm(CustomOp):
    def __init__(self, size):
        super().__init__()
class Plain:
    def __init__(self): pass
def build():
    RMSNorm(8)
    Plain()
"""
        }
    ).edges
    assert ("op.build", "op.CustomOp.__new__") in edges and ("op.build", "op.RMSNorm.__init__") in edges
    assert sum(callee.endswith("__new__") for caller, callee in edges if caller == "op.build") == 1


def test_from_import_of_a_plain_module_with_getattr_runs_it():
    """`from M import x` first looks up `M.__path__` (is M a package?): a plain module defining __getattr__ (vLLM's
    torch_utils, for its lazy PIN_MEMORY) has it run at every such import; a package's does not."""
    edges = resolve(
        {
            "lazy.py": """
def helper(): pass
def __getattr__(name):
    raise AttributeError(name)
""",
            "pkg/__init__.py": """
def __getattr__(name):
    raise AttributeError(name)
def tool(): pass
""",
            "user.py": """
from lazy import helper
from pkg import tool
""",
        }
    ).edges
    assert ("user", "lazy.__getattr__") in edges and ("user", "pkg.__getattr__") not in edges


def test_a_torch_function_given_a_tensor_subclass_runs_its_torch_function():
    """`torch.empty_like(param)` with a Parameter subclass of the tree defining __torch_function__ (vLLM's
    BasevLLMParameter) runs it; a plain tensor argument does not, nor does calling a module with it."""
    edges = resolve(
        {
            "p.py": """
import torch
class BasevLLMParameter(torch.nn.Parameter):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)
def load(weight: BasevLLMParameter, plain: torch.Tensor):
    torch.empty_like(weight)
def other(plain: torch.Tensor):
    torch.empty_like(plain)
class Concat(torch.nn.Module):
    def forward(self, a, b):
        return a
class Layer(torch.nn.Module):
    def __init__(self):
        self.concat = Concat()
        self.scale = BasevLLMParameter()
def module_call(layer: Layer, x: torch.Tensor):
    layer.concat(x, layer.scale)
"""
        }
    ).edges
    assert ("p.load", "p.BasevLLMParameter.__torch_function__") in edges
    assert ("p.other", "p.BasevLLMParameter.__torch_function__") not in edges
    # calling a module with a parameter runs its forward; the call itself is no torch function
    assert ("p.module_call", "p.Concat.forward") in edges
    assert ("p.module_call", "p.BasevLLMParameter.__torch_function__") not in edges


def test_a_forwarding_getattr_reads_the_name_on_what_it_wraps():
    """`def __getattr__(self, attr): return getattr(self.worker, attr)` (vLLM's WorkerWrapperBase): a method the
    wrapper lacks is the wrapped worker's; two wrappers forwarding to each other end."""
    edges = resolve(
        {
            "w.py": """
class Worker:
    def load_model(self): pass
class WorkerWrapper:
    def __init__(self):
        self.worker = Worker()
    def __getattr__(self, attr):
        return getattr(self.worker, attr)
class Ping:
    def __init__(self):
        self.other = Pong()
    def __getattr__(self, name):
        return getattr(self.other, name)
class Pong:
    def __init__(self):
        self.other = Ping()
    def __getattr__(self, name):
        return getattr(self.other, name)
def run(w: WorkerWrapper, p: Ping):
    w.load_model()
    p.missing()
"""
        }
    ).edges
    assert ("w.run", "w.WorkerWrapper.__getattr__") in edges and ("w.run", "w.Worker.load_model") in edges
