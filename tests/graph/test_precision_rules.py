"""The resolver's rules for edges an execution can take, each on a small package shaped like the engines' code: what
a receiver can hold (the classes the program makes), declared types only where nothing flows, a method analysed per
receiver class and a decorator per application (contexts), type checks, super(), and paths that follow contexts.
Each case fails without its rule."""

from test_resolve import resolve

from atlas.graph import AtlasGraph
from atlas.graph.resolve import Solver
from atlas.graph.resolve.limits import MAX_CONTEXTS
from atlas.graph.store import tabulate
from atlas.graph.table import EdgeBuilder
from atlas.model import Pin, Span, Symbol, SymbolKind, Unresolved
from atlas.parse.python import extract, module_name
from atlas.query.paths import _near

CUSTOM_OP = """
class CustomOp:
    def __init__(self):
        self._forward_method = self.dispatch_forward()
    def dispatch_forward(self):
        return self.forward_cuda
    def forward(self, x):
        return self._forward_method(x)
    def forward_cuda(self, x):
        raise NotImplementedError
class SiluAndMul(CustomOp):
    def forward_cuda(self, x): pass
class GeluAndMul(CustomOp):
    def forward_cuda(self, x): pass
class Layer:
    def __init__(self):
        self.act = SiluAndMul()
        self.other = GeluAndMul()
    def forward(self, x):
        return self.act.forward(x)
"""


POOLS = """
from typing import Optional
class KVCache:
    def get(self): pass
class MHAPool(KVCache):
    def get(self): pass
class SubPool(KVCache):
    def get(self): pass
class Owner:  # a SubPool is made and handed on by code that is no pool (not a part: declared.is_part)
    def make(self):
        return SubPool()
"""


def graph_of(files: dict[str, str]) -> AtlasGraph:
    """The graph `atlas index` would store for `files` (Python only)."""
    facts = []
    for path, text in files.items():
        module, is_package = module_name(path)
        facts.append(extract(text.encode(), path, module, is_package))
    solver = Solver(facts)
    resolution = solver.solve()
    symbols = {s.id: s for f in facts for s in f.symbols}
    path_of = {s.id: f.path for f in facts for s in f.scopes}
    g, _, clones = tabulate(resolution, symbols, path_of, solver.scopes)
    pin = Pin("vllm", "v0", "0" * 40, "https://example.com/x")
    return AtlasGraph(pin, None, symbols, [], {"clones": clones}, g.table())


def test_a_base_class_helper_runs_per_subclass_and_never_reaches_an_abstract_method():
    r = resolve({"ops.py": CUSTOM_OP})
    line = 8  # `return self._forward_method(x)`
    assert r.edges[("ops.CustomOp.forward", "ops.SiluAndMul.forward_cuda")]
    assert ("ops.CustomOp.forward", "ops.CustomOp.forward_cuda") not in r.edges  # CustomOp itself is never made
    silu = r.contexts[("ops.CustomOp.forward", "ops.SiluAndMul.forward_cuda", line)]
    gelu = r.contexts[("ops.CustomOp.forward", "ops.GeluAndMul.forward_cuda", line)]
    assert {caller for caller, _ in silu} == {"ops.SiluAndMul"}  # each subclass's helper calls its own override
    assert {caller for caller, _ in gelu} == {"ops.GeluAndMul"}


def test_a_path_follows_the_receiver_class_it_entered_with():
    g = graph_of({"ops.py": CUSTOM_OP})
    assert g.path("ops.Layer.forward", "ops.SiluAndMul.forward_cuda") == [
        "ops.Layer.forward",
        "ops.CustomOp.forward",
        "ops.SiluAndMul.forward_cuda",
    ]
    # Layer.forward runs the activation made as SiluAndMul: no execution reaches Gelu's override from there
    assert g.path("ops.Layer.forward", "ops.GeluAndMul.forward_cuda") == []


def test_a_helper_returning_a_bound_method_of_its_receiver_runs_per_receiver_class():
    # dispatch_forward reads no name a subclass defines, but `return self.forward_hip` binds the receiver: run
    # shared, every subclass's _forward_method would hold every subclass's bound forward_hip
    source = CUSTOM_OP.replace("return self.forward_cuda", "return self.forward_hip").replace(
        "    def forward_cuda(self, x):\n        raise",
        "    def forward_hip(self, x):\n        return self.forward_cuda(x)\n"
        "    def forward_cuda(self, x):\n        raise",
    )
    assert "return self.forward_hip" in source and "def forward_hip" in source
    r = resolve({"ops.py": source})
    assert {caller for caller, _ in r.contexts[("ops.CustomOp.forward", "ops.CustomOp.forward_hip", 8)]} == {
        "ops.SiluAndMul",
        "ops.GeluAndMul",
    }
    assert all(a == b for a, b in r.contexts[("ops.CustomOp.forward", "ops.CustomOp.forward_hip", 8)])
    g = graph_of({"ops.py": source})
    assert g.path("ops.Layer.forward", "ops.SiluAndMul.forward_cuda")
    assert g.path("ops.Layer.forward", "ops.GeluAndMul.forward_cuda") == []


def test_what_comes_nearest_to_a_target_reaches_it_by_a_path_an_execution_takes():
    g = graph_of({"ops.py": CUSTOM_OP})
    near = _near(g, "ops.Layer.forward", "ops.GeluAndMul.forward_cuda", frozenset())
    reaches = [n.symbol for n in near if n.kind == "reaches"]
    assert "ops.CustomOp.forward" in reaches
    assert "ops.Layer.forward" not in reaches  # its plain edges lead there, through hops that cannot follow each other


TYPE_GUARDS = """
from typing import ClassVar, Literal, Protocol, TypeGuard, overload
from typing_extensions import TypeIs
class SupportsMultiModal(Protocol):
    supports_multimodal: ClassVar[Literal[True]] = True
    def get_language_model(self): ...
@overload
def supports_multimodal(model: type[object]) -> TypeIs[type[SupportsMultiModal]]: ...
@overload
def supports_multimodal(model: object) -> TypeIs[SupportsMultiModal]: ...
def supports_multimodal(model) -> TypeIs[type[SupportsMultiModal]] | TypeIs[SupportsMultiModal]:
    return getattr(model, "supports_multimodal", False)
def looks_multimodal(model) -> TypeGuard[SupportsMultiModal]:
    return hasattr(model, "get_language_model")
def is_ready(model) -> bool:
    return True
class TextModel:
    def share(self): pass
class VisionModel(SupportsMultiModal):
    def get_language_model(self): return TextModel()
    def share(self): pass
class Wrapper:  # hands every attribute on to what it wraps, the check's probe too
    def __init__(self, inner):
        self.inner = inner
    def __getattr__(self, name):
        return getattr(self.inner, name)
def load(multimodal):
    return VisionModel() if multimodal else TextModel()
def vision_only(model):
    if supports_multimodal(model):
        model.get_language_model()
def language_model(model):
    if supports_multimodal(model):
        model = model.get_language_model()
    model.share()
def guarded_once(model):
    if not looks_multimodal(model):
        model.share()
def checked(model):
    if is_ready(model):
        model.share()
def convert(t, obj):  # called by a library: nothing flows to t
    if is_ready(t):
        return load(t.multimodal)
def main():
    vision_only(Wrapper(load(True)))
    for m in (load(True), load(False)):
        language_model(m)
        guarded_once(m)
        checked(m)
"""


def test_a_function_annotated_to_return_typeis_narrows_its_argument_both_ways_and_typeguard_when_true():
    edges = resolve({"guards.py": TYPE_GUARDS}).edges
    # true: only the multimodal model is asked for its language model; false (TypeIs): never a VisionModel
    assert {b for a, b in edges if a == "guards.language_model"} == {
        "guards.supports_multimodal",
        "guards.VisionModel.get_language_model",
        "guards.TextModel.share",
    }
    # a TypeGuard that is false says nothing; nor does a function returning a plain bool
    for caller in ("guards.guarded_once", "guards.checked"):
        assert {"guards.TextModel.share", "guards.VisionModel.share"} <= {b for a, b in edges if a == caller}
    assert ("guards.convert", "guards.load") in edges  # a check of a value nothing flowed to rules nothing out
    assert ("guards.vision_only", "guards.Wrapper.__getattr__") in edges  # it may pass: its __getattr__ answers


def test_hasattr_narrows_to_what_may_have_the_attribute_and_where_false_to_what_does_not_define_it():
    edges = resolve(
        {
            "share.py": """
class Module:  # stands for a library base, imported from outside the tree in the engines
    pass
class TextModel:
    def __init__(self):
        self.embed = Embedding()
    def share(self): pass
class VisionModel:
    def get_language_model(self): return TextModel()
    def share(self): pass
class Late:
    def share(self): pass
class Embedding:
    def tie(self): pass
def make(kind):
    late = Late()
    late.embed = Embedding()  # written from outside the class
    return VisionModel() if kind == 1 else TextModel() if kind == 2 else late
def share_embeddings(model):
    if hasattr(model, "get_language_model"):
        model.get_language_model().share()
    else:
        model.share()
    if hasattr(model, "embed"):
        model.embed.tie()
        model.share()
def main(kind):
    share_embeddings(make(kind))
"""
        }
    ).edges
    targets = {b for a, b in edges if a == "share.share_embeddings"}
    assert "share.VisionModel.get_language_model" in targets
    # where false, never a class that defines it; where true for an attribute written on instances, what wrote it
    assert {"share.TextModel.share", "share.Late.share", "share.Embedding.tie"} <= targets
    assert "share.VisionModel.share" not in targets


def test_a_receiver_holds_only_classes_the_program_makes():
    r = resolve(
        {
            "impl.py": """
class AttentionImpl:
    def forward(self): raise NotImplementedError
class FlashImpl(AttentionImpl):
    def forward(self): pass
class RocmImpl(AttentionImpl):
    def forward(self): pass
class Attention:
    def __init__(self):
        self.impl = FlashImpl()
    def run(self):
        self.impl.forward()
"""
        }
    )
    assert ("impl.Attention.run", "impl.FlashImpl.forward") in r.edges
    assert ("impl.Attention.run", "impl.RocmImpl.forward") not in r.edges  # every override of a base: no more
    assert ("impl.Attention.run", "impl.AttentionImpl.forward") not in r.edges


def test_an_annotation_is_used_only_where_nothing_flows():
    files = {
        "kv.py": """
class Spec:
    def size(self): return 0
class FullSpec(Spec):
    def size(self): return 1
class SlidingSpec(Spec):
    def size(self): return 2
def page_size(spec: Spec):
    return spec.size()
def orphan(spec: Spec):
    return spec.size()
def main():
    page_size(FullSpec())
    SlidingSpec()
"""
    }
    edges = resolve(files).edges
    assert ("kv.page_size", "kv.FullSpec.size") in edges
    assert ("kv.page_size", "kv.SlidingSpec.size") not in edges  # its only caller passes a FullSpec
    # nobody calls orphan: its annotation says a Spec, one of those the program makes
    assert {b for a, b in edges if a == "kv.orphan"} >= {"kv.FullSpec.size", "kv.SlidingSpec.size"}
    assert ("kv.orphan", "kv.Spec.size") not in edges  # Spec itself is never made


def test_classes_named_by_strings_and_made_through_a_classmethod_count_as_made():
    edges = resolve(
        {
            "reg.py": """
class Worker:
    def execute(self): raise NotImplementedError
class GPUWorker(Worker):
    def execute(self): pass
class CPUWorker(Worker):
    def execute(self): pass
    @classmethod
    def create(cls): return cls()
class TPUWorker(Worker):
    def execute(self): pass
REGISTRY = {"gpu": "reg:GPUWorker"}
def build():
    return CPUWorker.create()
def run(w: Worker):
    w.execute()
"""
        }
    ).edges
    targets = {b for a, b in edges if a == "reg.run"}
    assert {"reg.GPUWorker.execute", "reg.CPUWorker.execute"} <= targets
    assert "reg.TPUWorker.execute" not in targets  # named nowhere: never made


def test_a_class_named_only_in_an_inner_packages_export_list_is_not_made():
    edges = resolve(
        {
            "eng/__init__.py": """
from eng.stages.base import PublicStage
__all__ = ["PublicStage"]
""",
            "eng/stages/__init__.py": """
from eng.stages.base import Stage, TextStage, ImageStage, VideoStage
__all__ = ["Stage", "TextStage"]
__all__ += ["ImageStage"]
__all__.extend(["VideoStage"])
""",
            "eng/stages/base.py": """
class Stage:
    def forward(self): raise NotImplementedError
class TextStage(Stage):
    def forward(self): pass
class ImageStage(Stage):
    def forward(self): pass
class VideoStage(Stage):
    def forward(self): pass
class PublicStage(Stage):
    def forward(self): pass
STAGES = {"text": "TextStage"}
def run(stage: Stage):
    stage.forward()
""",
        }
    ).edges
    targets = {b for a, b in edges if a == "eng.stages.base.run"}
    assert {"eng.stages.base.TextStage.forward", "eng.stages.base.PublicStage.forward"} <= targets  # named by a
    # registry; exported by the root package, whose users make it
    assert not {"eng.stages.base.ImageStage.forward", "eng.stages.base.VideoStage.forward"} & targets  # re-exported


def test_an_attribute_annotated_where_it_starts_as_none_holds_what_other_statements_wrote():
    edges = resolve(
        {
            "spec.py": """
from concurrent.futures import Future
class Manager:
    def shutdown(self): raise NotImplementedError
class CPUManager(Manager):
    def shutdown(self): pass
class TierManager(Manager):
    def shutdown(self): pass
class Spec:
    def __init__(self):
        self._manager: Manager | None = None
        self.hook: Manager | None = None
        self.future_manager: Manager | None = None
    def get_manager(self) -> Manager:
        if not self._manager:
            self._manager = CPUManager()
        return self._manager
    def resolve_future(self, ready):
        try:
            self.future_manager = Future().result() if ready else CPUManager()
        except Exception:
            self.future_manager = CPUManager()
def make_tier():
    return TierManager()
def run(spec: Spec):
    spec.get_manager().shutdown()
def run_hook(spec: Spec):
    spec.hook.shutdown()
def run_future(spec: Spec):
    spec.future_manager.shutdown()
"""
        }
    ).edges
    assert {b for a, b in edges if a == "spec.run"} == {"spec.Spec.get_manager", "spec.CPUManager.shutdown"}
    hooked = {b for a, b in edges if a == "spec.run_hook"}  # only None was written: the annotation says what it is
    assert hooked == {"spec.CPUManager.shutdown", "spec.TierManager.shutdown"}
    resolved = {b for a, b in edges if a == "spec.run_future"}  # a library object was written: flow was lost there
    assert resolved == {"spec.CPUManager.shutdown", "spec.TierManager.shutdown"}


def test_a_type_check_on_an_attribute_of_a_parameter_narrows_it_until_it_is_written():
    edges = resolve(
        {
            "conn.py": """
class Worker:
    def start(self): raise NotImplementedError
class PullWorker(Worker):
    def start(self): pass
class PushWorker(Worker):
    def start(self): pass
class Connector:
    def __init__(self, pull):
        self.worker = PullWorker() if pull else PushWorker()
    def asserted(self):
        assert isinstance(self.worker, PullWorker)
        self.worker.start()
    def branch(self):
        if isinstance(self.worker, PushWorker):
            self.worker.start()
    def early_return(self):
        if not isinstance(self.worker, PushWorker):
            return
        self.worker.start()
    def written(self):
        assert isinstance(self.worker, PushWorker)
        self.worker = PullWorker()
        self.worker.start()
    def not_every_path(self, flag):
        if flag:
            assert isinstance(self.worker, PullWorker)
        self.worker.start()
def rebound(c: Connector, other: Connector):
    assert isinstance(c.worker, PullWorker)
    c = other
    c.worker.start()
"""
        }
    ).edges
    starts = {}
    for a, b in edges:
        if b.endswith(".start"):
            starts.setdefault(a.rpartition(".")[2], set()).add(b.split(".")[1])
    assert starts["asserted"] == {"PullWorker"}
    assert starts["branch"] == {"PushWorker"}
    assert starts["early_return"] == {"PushWorker"}
    assert starts["written"] == {"PullWorker", "PushWorker"}  # written after the check: what the attribute holds
    assert starts["not_every_path"] == {"PullWorker", "PushWorker"}
    assert starts["rebound"] == {"PullWorker", "PushWorker"}  # the check was on the object c named before


def test_an_isinstance_check_narrows_and_a_branch_no_value_takes_never_runs():
    edges = resolve(
        {
            "q.py": """
class LinearBase:
    def create(self): pass
class FusedMoE:
    def create(self): pass
class LinearMethod:
    def apply(self): pass
class MoEMethod:
    def apply(self): pass
def get_quant_method(layer):
    if isinstance(layer, LinearBase):
        layer.create()
        return LinearMethod()
    elif isinstance(layer, FusedMoE):
        layer.create()
        return MoEMethod()
def check(layer):
    assert isinstance(layer, FusedMoE)
    layer.create()
def main():
    m = get_quant_method(LinearBase())
    m.apply()
    check(LinearBase())
"""
        }
    ).edges
    assert ("q.get_quant_method", "q.LinearBase.create") in edges
    assert ("q.get_quant_method", "q.FusedMoE.create") not in edges
    assert ("q.get_quant_method", "q.MoEMethod") not in edges  # the FusedMoE branch never runs
    assert ("q.main", "q.LinearMethod.apply") in edges
    assert ("q.main", "q.MoEMethod.apply") not in edges
    assert ("q.check", "q.FusedMoE.create") not in edges  # after the assert no LinearBase remains


def test_super_looks_up_the_receivers_mro_after_the_calling_class():
    edges = resolve(
        {
            "m.py": """
class A:
    def step(self): pass
class B(A):
    def step(self):
        super().step()
class C(B):
    def step(self):
        super().step()
class D(A):
    def step(self):
        super().step()
def main():
    C().step()
    D().step()
"""
        }
    ).edges
    assert ("m.C.step", "m.B.step") in edges
    assert ("m.B.step", "m.A.step") in edges
    assert ("m.C.step", "m.C.step") not in edges and ("m.B.step", "m.D.step") not in edges


def test_a_decorator_wrapper_never_joins_functions_it_does_not_wrap():
    g = graph_of(
        {
            "k.py": """
import functools
def debug_kernel_api(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper
@debug_kernel_api
def rmsnorm(x): pass
@debug_kernel_api
def silu(x): pass
def norm_layer(x):
    return rmsnorm(x)
def act_layer(x):
    return silu(x)
"""
        }
    )
    assert g.path("k.norm_layer", "k.rmsnorm") == ["k.norm_layer", "k.debug_kernel_api.wrapper@k.rmsnorm", "k.rmsnorm"]
    assert g.path("k.norm_layer", "k.silu") == []
    assert "k.debug_kernel_api.wrapper" not in {n for n in g.table.nodes if g.callers(n) or g.callees(n)}
    assert g.symbol("k.debug_kernel_api.wrapper@k.silu").span == Span("k.py", 4, 6)


def test_a_function_set_on_an_instance_is_not_bound_and_one_set_on_the_class_is():
    """`self.fn = kernel` then `self.fn(x)` calls kernel(x): the instance is not passed (Python binds only what the
    class holds), so kernel's `x` never holds the runner and `x.step()` never reaches Runner.step; `Hooked.hook =
    on_hook` sets it on the class, and `Hooked().hook()` passes the instance as on_hook's first argument."""
    edges = resolve(
        {
            "m.py": """
def kernel(x):
    x.step()
def on_hook(me):
    me.step()
class Tensor:
    def step(self): pass
class Runner:
    def __init__(self):
        self.fn = kernel
    def step(self): pass
    def run(self):
        self.fn(Tensor())
class Hooked:
    def step(self): pass
Hooked.hook = on_hook
def main():
    Runner().run()
    Hooked().hook()
"""
        }
    ).edges
    assert ("m.Runner.run", "m.kernel") in edges and ("m.kernel", "m.Tensor.step") in edges
    assert ("m.kernel", "m.Runner.step") not in edges
    assert ("m.main", "m.on_hook") in edges and ("m.on_hook", "m.Hooked.step") in edges


def test_calling_a_module_whose_forward_was_replaced_on_the_instance_runs_the_replacement():
    """`self.o_proj.forward = gated` (SGLang's Kimi attention gating its output projection): calling the module runs
    `gated(x)`, which hands on to the original bound forward."""
    edges = resolve(
        {
            "m.py": """
import torch
class Linear(torch.nn.Module):
    def forward(self, x): pass
class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.o_proj = Linear()
        original = self.o_proj.forward
        def gated(x):
            return original(x)
        self.o_proj.forward = gated
    def forward(self, x):
        return self.o_proj(x)
"""
        }
    ).edges
    assert ("m.Attention.forward", "m.Attention.__init__.gated") in edges
    assert ("m.Attention.__init__.gated", "m.Linear.forward") in edges


def test_a_decorator_applied_more_often_than_a_function_has_contexts_still_wraps_each_function_apart():
    """MAX_CONTEXTS bounds the clones that values flowing into a function make; a decorator's applications are
    written in the tree, one clone each, so past the bound the last ones still get a wrapper of their own instead
    of sharing one that returns what every function past the bound returns (SGLang v0.5.23's 272 `@cache_once`)."""
    n = MAX_CONTEXTS + 8
    kernels = "".join(f"@cache_once\ndef k{i}():\n    return Module{i}()\n" for i in range(n))
    modules = "".join(f"class Module{i}:\n    def run(self): pass\n" for i in range(n))
    g = graph_of(
        {
            "j.py": "import functools\n"
            "def cache_once(fn):\n"
            "    @functools.wraps(fn)\n"
            "    def wrapper(*args):\n"
            "        return fn(*args)\n"
            "    return wrapper\n" + modules + kernels + f"def last():\n    k{n - 1}().run()\n",
        }
    )
    last = f"j.k{n - 1}"
    assert {callee for _, _, callee, _ in g.callees("j.last")} == {
        f"j.cache_once.wrapper@{last}",
        f"j.Module{n - 1}.run",
    }
    assert g.path(f"j.cache_once.wrapper@{last}", last) == [f"j.cache_once.wrapper@{last}", last]
    assert g.path("j.last", f"j.Module{n - 2}.run") == [] and g.path("j.last", f"j.k{n - 2}") == []


def test_a_decorator_handing_the_function_to_a_helper_gives_it_the_helpers_wrapper_for_it():
    """vLLM's `@instrument(span_name=...)`: the decorator (also through `functools.partial` of itself) hands the
    function to `instrument_otel`, which returns a wrapper of its own: the decorated name holds that wrapper's clone
    for the function, and no wrapper node joins two functions."""
    g = graph_of(
        {
            "tr/__init__.py": """
import functools
from .otel import instrument_otel
_BACKENDS = {"otel": (instrument_otel,)}
def instrument(obj=None, *, span_name=""):
    if obj is None:
        return functools.partial(instrument, span_name=span_name)
    (otel_instrument,) = _BACKENDS["otel"]
    return otel_instrument(func=obj, span_name=span_name)
""",
            "tr/otel.py": """
import functools
def instrument_otel(func, span_name):
    @functools.wraps(func)
    def sync_wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    return sync_wrapper
""",
            "m.py": """
from tr import instrument
class Loader:
    @instrument(span_name="Load model")
    def load_model(self): pass
@instrument
def plain(): pass
def main():
    Loader().load_model()
    plain()
""",
        }
    )
    wrapper = "tr.otel.instrument_otel.sync_wrapper"
    for f in ("m.Loader.load_model", "m.plain"):
        assert g.path("m.main", f) == ["m.main", f"{wrapper}@{f}", f]
        assert [e[2] for e in g.callees(f"{wrapper}@{f}")] == [f]
    assert not g.callees(wrapper)


def test_a_class_decorator_returning_its_argument_gives_each_class_itself():
    edges = resolve(
        {
            "c.py": """
def support_torch_compile(cls=None, *, dynamic_arg_dims=None):
    def cls_decorator_helper(cls):
        return _support_torch_compile(cls, dynamic_arg_dims)
    if cls is not None:
        return cls_decorator_helper(cls)
    return cls_decorator_helper
def _support_torch_compile(cls, dims):
    old_init = cls.__init__
    def __init__(self, **kwargs):
        old_init(self, **kwargs)
    cls.__init__ = __init__
    return cls
@support_torch_compile
class PhiModel:
    def __init__(self, **kwargs): pass
    def embed(self): pass
@support_torch_compile
class LlamaModel:
    def __init__(self, **kwargs): pass
    def embed(self): pass
class PhiForCausalLM:
    def __init__(self):
        self.model = PhiModel(prefix="model")
    def embed(self):
        return self.model.embed()
"""
        }
    ).edges
    assert ("c.PhiForCausalLM.embed", "c.PhiModel.embed") in edges
    assert ("c.PhiForCausalLM.embed", "c.LlamaModel.embed") not in edges
    assert ("c.PhiForCausalLM.__init__", "c._support_torch_compile.__init__@c.PhiModel") in edges
    assert not any(a == "c.PhiForCausalLM.__init__" and "LlamaModel" in b for a, b in edges)


def test_symbols_of_clone_nodes_copy_their_origin():
    sym = Symbol("k.f", SymbolKind.FUNCTION, Span("k.py", 3, 5))
    built = EdgeBuilder()
    built.add_edge("k.g", "k.f@x", "static", 1.0, "k.py", 9)
    g = AtlasGraph(
        Pin("vllm", "v0", "0" * 40, "u"), None, {"k.f": sym}, [], {"clones": {"k.f@x": "k.f"}}, built.table()
    )
    assert g.symbol("k.f@x") is sym and g.symbol("nowhere") is None
    assert g.node("k.f@x")["path"] == "k.py" and g.graph.nodes["k.f@x"]["start"] == 3


def test_a_function_checking_a_parameters_type_is_analysed_per_class_given():
    edges = resolve(
        {
            "q.py": """
class LinearBase:
    def __init__(self, quant_config):
        self.quant_method = quant_config.get_quant_method(self, "prefix")
    def forward(self):
        self.quant_method.apply()
class RowLinear(LinearBase):
    pass
class FusedMoE:
    def __init__(self, quant_config):
        self.quant_method = quant_config.get_quant_method(self, "prefix")
    def forward(self):
        self.quant_method.apply()
class LinearMethod:
    def apply(self): pass
class MoEMethod:
    def apply(self): pass
class Fp8Config:
    def get_quant_method(self, layer, prefix):
        if isinstance(layer, LinearBase):
            return LinearMethod()
        elif isinstance(layer, FusedMoE):
            return MoEMethod()
def main():
    config = Fp8Config()
    RowLinear(config).forward()
    FusedMoE(config).forward()
"""
        }
    ).edges
    assert ("q.LinearBase.forward", "q.LinearMethod.apply") in edges
    assert ("q.LinearBase.forward", "q.MoEMethod.apply") not in edges  # a linear layer never gets a MoE method
    assert ("q.FusedMoE.forward", "q.MoEMethod.apply") in edges
    assert ("q.FusedMoE.forward", "q.LinearMethod.apply") not in edges


def test_a_check_after_a_branch_that_fell_through_for_no_value_rules_nothing_in():
    # `if isinstance(layer, LinearBase): return ...` then `if isinstance(layer, Head):` whose branch may fall
    # through: for a linear layer both branches are ruled out, so what reaches the next check is nothing (not
    # "nothing flowed here"), and the checks after it say nothing of an Embedding or a FusedMoE
    edges = resolve(
        {
            "q.py": """
class LinearBase:
    def __init__(self, quant_config):
        self.quant_method = quant_config.get_quant_method(self, "prefix")
    def forward(self):
        self.quant_method.apply(self)
class Head:
    def __init__(self, quant_config):
        self.quant_method = quant_config.get_quant_method(self, "")
    def forward(self):
        self.quant_method.apply(self)
class Embedding:
    def rows(self): pass
class FusedMoE:
    def experts(self): pass
class LinearMethod:
    def apply(self, layer): pass
class HeadMethod:
    def apply(self, layer): pass
class EmbeddingMethod:
    def apply(self, layer):
        layer.rows()
class MoEMethod:
    def apply(self, layer):
        layer.experts()
class Unquantized:
    def apply(self, layer): pass
class Config:
    def get_quant_method(self, layer, prefix):
        if isinstance(layer, LinearBase):
            return LinearMethod()
        if isinstance(layer, Head):
            if prefix:
                return HeadMethod()
        if isinstance(layer, Embedding):
            return EmbeddingMethod()
        elif isinstance(layer, FusedMoE):
            return MoEMethod()
        else:
            return Unquantized()
def main():
    config = Config()
    LinearBase(config).forward()
    Head(config).forward()
"""
        }
    ).edges
    assert {b for a, b in edges if a == "q.LinearBase.forward"} == {"q.LinearMethod.apply"}
    assert {b for a, b in edges if a == "q.Head.forward"} == {"q.HeadMethod.apply", "q.Unquantized.apply"}
    assert not {b for a, b in edges if a in ("q.EmbeddingMethod.apply", "q.MoEMethod.apply")}


def test_a_method_run_per_receiver_class_is_also_analysed_per_class_it_checks():
    edges = resolve(
        {
            "q.py": """
class LinearBase:
    def __init__(self, quant_config):
        self.quant_method = quant_config.get_quant_method(self)
    def forward(self):
        self.quant_method.apply()
class FusedMoE:
    def __init__(self, quant_config):
        self.quant_method = quant_config.get_quant_method(self)
    def forward(self):
        self.quant_method.apply()
class LMHead:
    def __init__(self, quant_config):
        self.quant_method = quant_config.get_quant_method(self) or Unquantized()
    def forward(self):
        self.quant_method.apply()
class Unquantized:
    def apply(self): pass
class LinearMethod:
    def apply(self): pass
class HybridLinearMethod:
    def apply(self): pass
class MoEMethod:
    def apply(self): pass
class Fp8Config:
    def get_quant_method(self, layer):
        if isinstance(layer, LinearBase):
            return self.linear_method()
        if isinstance(layer, FusedMoE):
            return MoEMethod()
        return None
    def linear_method(self):
        return LinearMethod()
class HybridConfig(Fp8Config):
    def linear_method(self):
        return HybridLinearMethod()
def main():
    for config in (Fp8Config(), HybridConfig()):
        LinearBase(config).forward()
        FusedMoE(config).forward()
        LMHead(config).forward()
"""
        }
    ).edges
    head = {b for a, b in edges if a == "q.LMHead.forward"}
    assert head == {"q.Unquantized.apply"}  # HybridConfig's run of get_quant_method gives an lm head nothing
    linear = {b for a, b in edges if a == "q.LinearBase.forward"}
    assert linear == {"q.LinearMethod.apply", "q.HybridLinearMethod.apply"}
    assert {b for a, b in edges if a == "q.FusedMoE.forward"} == {"q.MoEMethod.apply"}


def test_a_function_handing_a_parameter_to_one_that_checks_it_is_analysed_per_class_given():
    edges = resolve(
        {
            "q.py": """
class LinearBase:
    def __init__(self, cfg):
        self.quant_method = cfg.get_quant_method(self, "p")
    def forward(self):
        self.quant_method.apply()
class FusedMoE:
    def __init__(self, cfg):
        self.quant_method = cfg.get_quant_method(self, "p")
    def forward(self):
        self.quant_method.apply()
class LMHead:
    def __init__(self, cfg):
        self.quant_method = cfg.get_quant_method(self, "p") or Unquantized()
    def forward(self):
        self.quant_method.apply()
class Unquantized:
    def apply(self): pass
class Fp8Linear:
    def apply(self): pass
class Fp8MoE:
    def apply(self): pass
class Fp4Linear:
    def apply(self): pass
class Fp4MoE:
    def apply(self): pass
class AutoLinear:
    def apply(self): pass
class QuantConfig:
    def _get_quant_method(self, layer, prefix, Linear, Moe):
        if isinstance(layer, LinearBase):
            return Linear()
        elif isinstance(layer, FusedMoE):
            return Moe()
        return None
class Fp8Config(QuantConfig):
    def get_quant_method(self, layer, prefix):
        return self._get_quant_method(layer, prefix, Linear=Fp8Linear, Moe=Fp8MoE)
class Fp4Config(QuantConfig):
    def get_quant_method(self, layer, prefix):
        return self._get_quant_method(layer, prefix, Linear=Fp4Linear, Moe=Fp4MoE)
def pick(layer):
    if isinstance(layer, LinearBase):
        return AutoLinear()
    return None
class AutoConfig:
    def get_quant_method(self, layer, prefix):
        method = pick(layer)
        return method
def main():
    for cfg in (Fp8Config(), Fp4Config(), AutoConfig()):
        LinearBase(cfg).forward()
        FusedMoE(cfg).forward()
        LMHead(cfg).forward()
"""
        }
    ).edges

    def applied(caller: str) -> set[str]:
        return {b.split(".")[1] for a, b in edges if a == caller and b.endswith(".apply")}

    assert applied("q.LMHead.forward") == {"Unquantized"}
    assert applied("q.LinearBase.forward") == {"Fp8Linear", "Fp4Linear", "AutoLinear"}
    assert applied("q.FusedMoE.forward") == {"Fp8MoE", "Fp4MoE"}


def test_a_check_after_one_that_ruled_every_value_out_finds_nothing_to_promise():
    edges = resolve(
        {
            "pick.py": """
class Linear: pass
class MoE: pass
class LinearMethod:
    def apply(self): pass
class MoEMethod:
    def apply(self): pass
def pick(layer):
    if isinstance(layer, Linear):
        return LinearMethod()
    if isinstance(layer, MoE):
        return MoEMethod()
    return None
def make_moe():
    return MoE()
def main():
    pick(Linear()).apply()
"""
        }
    ).edges
    assert {b for a, b in edges if a == "pick.main"} == {"pick.Linear", "pick.pick", "pick.LinearMethod.apply"}


def test_a_type_check_on_a_value_nothing_flowed_to_keeps_its_branch_and_a_ruled_out_branch_says_why():
    r = resolve(
        {
            "m.py": """
import torch
class Helper:
    def run(self): pass
def pad(x):
    return x
def split(data):
    value = data.get("n")
    if isinstance(value, torch.Tensor):
        counts = pad(value.flatten())
    elif isinstance(value, list):
        counts = pad(value)
    return counts
def only_helpers(h):
    if isinstance(h, torch.Tensor):
        pad(h)
    h.run()
def main():
    only_helpers(Helper())
"""
        }
    )
    assert r.edges[("m.split", "m.pad")]  # nothing known of `value`: the check says what it is
    flatten = next(rec for (_, line, _), rec in r.sites.items() if line == 10 and "flatten" in rec.site.text)
    assert list(flatten.targets) == ["torch.<object>.flatten"]
    assert ("m.only_helpers", "m.pad") not in r.edges  # only a Helper reaches h: the branch never runs
    assert r.edges[("m.only_helpers", "m.Helper.run")]
    (ruled_out,) = [rec for (_, line, _), rec in r.sites.items() if line == 16]
    assert ruled_out.reason is Unresolved.RULED_OUT and not ruled_out.targets


def test_what_a_false_check_says_narrows_the_other_branches():
    edges = resolve(
        {
            "t.py": """
class Base:
    @classmethod
    def load(cls): pass
    def run(self): pass
class Fast(Base):
    @classmethod
    def load(cls): pass
    def run(self): pass
class Slow(Base):
    def run(self): pass
def pick(kind, cls=Base):
    if cls is Base:
        cls = registry(kind)
    return cls.load()
def registry(kind):
    return Fast
def pick_eq(cls=Base):
    if cls == Base:
        return None
    elif cls != Fast:
        cls.wrong()
    else:
        cls.load()
def step(x):
    if isinstance(x, Fast):
        return x.run()
    x.run()
def both(x, flag):
    if isinstance(x, Fast) and flag:
        return None
    x.run()
def either(x):
    if isinstance(x, Fast) or isinstance(x, Slow):
        return None
    else:
        x.run()
def main():
    pick("a")
    pick("b", Slow)
    pick_eq(Fast)
    step(Fast())
    step(Slow())
    both(Fast(), True)
    either(Fast())
    either(Slow())
"""
        }
    ).edges
    assert ("t.pick", "t.Fast.load") in edges  # `is Base`: rebound to what the registry gives
    assert ("t.pick", "t.Base.load") in edges  # Slow inherits load: the classmethod's one body
    calls_of_pick = {callee for caller, callee in edges if caller == "t.pick"}
    assert calls_of_pick == {"t.Fast.load", "t.Base.load", "t.registry"}
    assert ("t.pick_eq", "t.Fast.load") in edges  # the `else` of `!= Fast`: cls is Fast there
    assert ("t.pick_eq", "t.Base.load") not in edges  # `== Base` returned first
    assert edges[("t.step", "t.Fast.run")] and edges[("t.step", "t.Slow.run")]
    assert list(edges[("t.step", "t.Fast.run")]) == [27]
    assert list(edges[("t.step", "t.Slow.run")]) == [28]  # after the isinstance branch returned: not a Fast
    assert list(edges[("t.both", "t.Fast.run")]) == [32]  # `and` false: x may still be a Fast
    assert not any(caller == "t.either" and callee.endswith(".run") for caller, callee in edges)  # `or` false:
    # neither class is left


def test_either_of_two_checks_narrows_to_both_types_and_a_name_bound_to_a_check_makes_it():
    r = resolve(
        {
            "n.py": """
class Linear:
    def make(self): pass
class Head(Linear):
    def make(self): pass
class Attention:
    def make(self): pass
class Embedding:
    def make(self): pass
def build(layer, quantized):
    is_head = isinstance(layer, Head) and quantized
    if isinstance(layer, Linear) or is_head:
        layer.make()
def build_embedding(layer):
    if not (isinstance(layer, Embedding) or isinstance(layer, Attention)):
        return None
    layer.make()
def rebound(layer, other):
    ok = isinstance(layer, Head)
    layer = other
    if ok:
        layer.make()
def looped(layer, layers):
    ok = isinstance(layer, Head)
    for x in layers:
        if ok:
            layer.make()
        layer = x
def flagged(layer, flag):
    ok = flag
    if flag:
        ok = isinstance(layer, Head)
    if ok:
        layer.make()
def main():
    for layer in (Linear(), Head(), Attention(), Embedding()):
        build(layer, True)
        build_embedding(layer)
        rebound(layer, Attention())
        looped(layer, [Attention()])
        flagged(layer, False)
"""
        }
    )

    def callees(fn: str) -> set[str]:
        return {callee for caller, callee in r.edges if caller == fn and callee.endswith(".make")}

    assert callees("n.build") == {"n.Linear.make", "n.Head.make"}  # `or` true: a Linear, or a Head by the name
    assert callees("n.build_embedding") == {"n.Embedding.make", "n.Attention.make"}  # `not (... or ...)` false
    every = {"n.Linear.make", "n.Head.make", "n.Attention.make", "n.Embedding.make"}
    assert callees("n.rebound") == {"n.Attention.make"}  # bound again after the check: `ok` says nothing of it
    assert callees("n.looped") == every  # a loop body may run after its own rebinding of the checked name
    assert callees("n.flagged") == every  # `ok` was bound before: it may be true without the check


def test_a_run_returning_a_helpers_literal_none_gets_no_promise_from_its_annotation():
    r = resolve(
        {
            "c.py": """
from typing import Optional
class Method:
    def create(self, layer): pass
class LinearMethod(Method):
    def create(self, layer): pass
class KVMethod(Method):
    def create(self, layer): pass
class OtherMethod(Method):  # made elsewhere: what Optional[Method] would promise
    def create(self, layer): pass
class Linear:
    pass
class Attention:
    pass
def linear_method(layer):
    if isinstance(layer, Linear):
        return LinearMethod()
    return None
class Config:
    def get_method(self, layer) -> Optional[Method]:  # analysed per layer class: it checks the layer
        if isinstance(layer, Unsupported):
            raise TypeError("not supported")
        return linear_method(layer)
class Unsupported:
    pass
class KVConfig(Config):
    def get_method(self, layer) -> Optional[Method]:
        if isinstance(layer, Attention):
            return KVMethod()
        return linear_method(layer)
def build(config: Config, layer):
    method = config.get_method(layer)
    if method is not None:
        method.create(layer)
def main():
    for config in (Config(), KVConfig()):
        build(config, Attention())
        build(config, Linear())
    OtherMethod()
"""
        }
    )
    build = {callee for caller, callee in r.edges if caller == "c.build" and callee.endswith(".create")}
    # KVMethod for KVConfig's attention layer, LinearMethod for the linear layer; Config's run for an attention
    # layer returned the helper's None only, which is all it can return: Optional[Method] promises nothing there
    assert build == {"c.KVMethod.create", "c.LinearMethod.create"}


def test_a_function_only_an_annotated_caller_calls_waits_one_declaring_pass_for_what_its_promises_reach():
    """SGLang's `override_config(config: QuantizationConfig, ...)`: called only by `get_linear_quant_method`, in the
    branch its per-layer clones run once the first declaring pass has promised the layers; declared in that pass,
    its parameter would hold every config, where the calls hand it GPTQ's."""
    r = resolve(
        {
            "q.py": """
import torch
class QuantConfig:
    def get_name(self) -> str: raise NotImplementedError
class Fp8Config(QuantConfig):
    def get_name(self): return "fp8"
class AWQConfig(QuantConfig):
    def get_name(self): return "awq"
class GPTQConfig(QuantConfig):
    def get_name(self): return "gptq"
    def get_quant_method(self, layer, prefix):
        return get_linear_quant_method(self, layer, prefix)
REGISTRY = {"fp8": Fp8Config, "awq": AWQConfig, "gptq": GPTQConfig}
class LinearBase(torch.nn.Module):
    pass
def override_config(config: QuantConfig, prefix: str):
    return config.get_name()
def get_linear_quant_method(config: QuantConfig, layer: torch.nn.Module, prefix: str):
    if isinstance(layer, LinearBase):
        override_config(config, prefix)
    return None
def make_layer(config: GPTQConfig, layer: LinearBase):  # nothing calls it: its parameters are promised
    config.get_quant_method(layer, "model.layers.0")
def unseen(config: QuantConfig):  # called by name by no annotated function: declared in the first pass
    return config.get_name()
"""
        }
    )
    names = lambda caller: {b for a, b in r.edges if a == caller and b.endswith(".get_name")}  # noqa: E731
    assert names("q.override_config") == {"q.GPTQConfig.get_name"}
    assert names("q.unseen") == {"q.Fp8Config.get_name", "q.AWQConfig.get_name", "q.GPTQConfig.get_name"}


def test_a_method_called_through_its_class_with_the_receiver_first_runs_per_receiver_class():
    r = resolve(
        {
            "m.py": """
class Wrapper:
    def __call__(self, *args):
        return self.forward(*args)
def support(cls):
    def __call__(self, *args):
        return Wrapper.__call__(self, *args)
    cls.__call__ = __call__
    return cls
@support
class A:
    def forward(self, x): return x
@support
class B:
    def forward(self, x): return x
def main():
    A()(1)
    B()(2)
"""
        }
    )
    line = 4  # `return self.forward(*args)`
    assert r.contexts[("m.Wrapper.__call__", "m.A.forward", line)] == {("m.A", "m.A")}
    assert r.contexts[("m.Wrapper.__call__", "m.B.forward", line)] == {("m.B", "m.B")}


def test_a_helper_given_a_list_of_classes_is_analysed_per_list():
    edges = resolve(
        {
            "k.py": """
class A:
    def apply(self): pass
class B:
    def apply(self): pass
class C:
    def apply(self): pass
POSSIBLE_AB = [A, B]
POSSIBLE_C = [C]
def filter_kernels(kernels, backend):
    return [k for k in kernels if backend]
def choose_ab():
    return filter_kernels(POSSIBLE_AB, "x")[0]
def choose_c():
    return filter_kernels(POSSIBLE_C, "x")[0]
def main():
    choose_ab()().apply()
    choose_c()().apply()
"""
        }
    ).edges
    assert list(edges[("k.main", "k.A.apply")]) == list(edges[("k.main", "k.B.apply")]) == [17]
    assert list(edges[("k.main", "k.C.apply")]) == [18]  # the helper's result for one list is that list's classes


def test_a_method_returning_a_closure_over_a_function_it_is_given_runs_per_function():
    """CustomOp.maybe_compile(self.forward_native) returns a `wrapper` closing over `fn`: one wrapper per function
    given, as a decorator's, or every op's forward reaches every other op's forward_native."""
    g = graph_of(
        {
            "ops.py": """
import functools
class CustomOp:
    def __init__(self):
        self._forward_method = self.dispatch_forward()
    def dispatch_forward(self):
        return self.maybe_compile(self.forward_native)
    def maybe_compile(self, fn):
        @functools.wraps(fn)
        def wrapper(*args):
            return fn(*args)
        return wrapper
    def forward(self, x):
        return self._forward_method(x)
class RMSNorm(CustomOp):
    def forward_native(self, x): pass
class SiluAndMul(CustomOp):
    def forward_native(self, x): pass
class Layer:
    def __init__(self):
        self.norm = RMSNorm()
        self.act = SiluAndMul()
    def forward(self, x):
        return self.norm(x)
    def norm_only(self, x):
        return self.norm.forward(x)
"""
        }
    )
    wrappers = [n for n in g.table.nodes if ".wrapper" in n and g.callees(n)]
    assert sorted(wrappers) == [
        "ops.CustomOp.maybe_compile.wrapper@ops.RMSNorm.forward_native",
        "ops.CustomOp.maybe_compile.wrapper@ops.SiluAndMul.forward_native",
    ]
    assert g.path("ops.Layer.norm_only", "ops.RMSNorm.forward_native")
    assert g.path("ops.Layer.norm_only", "ops.SiluAndMul.forward_native") == []


def test_a_lambda_made_in_a_subclass_run_of_a_method_is_its_own_context():
    """LlamaModel.__init__ run for a subclass passes make_layers that run's own lambda (the subclass's layer type):
    make_layers then calls only that lambda, not the base class run's."""
    g = graph_of(
        {
            "m.py": """
def make_layers(layer_fn):
    return [layer_fn() for _ in range(2)]
class LayerA:
    def __init__(self): pass
class LayerB:
    def __init__(self): pass
class ModelA:
    def __init__(self, layer_type=LayerA):
        self.layers = make_layers(lambda: layer_type())
class ModelB(ModelA):
    def __init__(self):
        super().__init__(layer_type=LayerB)
def main():
    ModelA()
    ModelB()
"""
        }
    )
    assert g.path("m.ModelB.__init__", "m.LayerB.__init__")
    assert g.path("m.ModelB.__init__", "m.LayerA.__init__") == []
    assert g.path("m.main", "m.LayerA.__init__")


def test_a_parameters_default_reaches_a_clone_only_from_calls_that_leave_it_out():
    g = graph_of(
        {
            "d.py": """
class LayerA:
    def __init__(self): pass
class LayerB:
    def __init__(self): pass
class Base:
    def __init__(self, layer_type=LayerA):
        self.layer = layer_type()
class Passes(Base):
    def __init__(self):
        super().__init__(layer_type=LayerB)
class LeavesOut(Base):
    def __init__(self):
        super().__init__()
def main():
    Base()
    Passes()
    LeavesOut()
"""
        }
    )
    assert g.path("d.Passes.__init__", "d.LayerB.__init__")
    assert g.path("d.Passes.__init__", "d.LayerA.__init__") == []
    assert g.path("d.LeavesOut.__init__", "d.LayerA.__init__")
    assert g.path("d.main", "d.LayerA.__init__")


def test_an_annotation_adds_nothing_to_a_parameter_every_call_left_at_its_default():
    files = {
        "pool.py": POOLS
        + """class Hybrid:
    def __init__(self, pool_class=None, pool: Optional[KVCache] = None):
        if pool is not None:
            self.pool = pool
        elif pool_class is not None:
            self.pool = pool_class()
        else:
            self.pool = MHAPool()
    def get(self):
        return self.pool.get()
def helper(pool: Optional[KVCache] = None):
    if pool is not None:
        pool.get()
def lost(pool: Optional[KVCache] = None):
    if pool is not None:
        pool.get()
def default_pool():
    return MHAPool()  # made outside a Hybrid too: no part of one
def main(unknown):
    Hybrid(pool_class=MHAPool)
    Hybrid()
    default_pool()
    helper()
    lost(pool=unknown.pool)
    Owner()
"""
    }
    edges = resolve(files).edges
    assert ("pool.Hybrid.get", "pool.MHAPool.get") in edges
    assert ("pool.Hybrid.get", "pool.SubPool.get") not in edges  # no call gave `pool`: it is None in every run
    assert not {b for a, b in edges if a == "pool.helper"}  # called, never given one
    # a call gave `lost` a value nothing says more of: the annotation does
    assert {b for a, b in edges if a == "pool.lost"} >= {"pool.MHAPool.get", "pool.SubPool.get"}


def test_a_type_check_against_a_union_or_a_nested_tuple_passes_each_class_named():
    edges = resolve(
        {
            "u.py": """
class Spec:
    def size(self): pass
class Full(Spec):
    def size(self): pass
class Local(Spec):
    def size(self): pass
class Mamba(Spec):
    def size(self): pass
BASE = (Full,)
def helper(): pass
def f(spec):
    assert isinstance(spec, Full | Local)
    helper()
    spec.size()
def g(spec):
    if isinstance(spec, (Full, Local | Mamba)):
        spec.size()
def h(spec):
    if isinstance(spec, (*BASE, Local)):
        spec.size()
def main():
    f(Full())
    f(Mamba())
    g(Mamba())
    h(Full())
"""
        }
    ).edges
    assert ("u.f", "u.helper") in edges
    assert ("u.f", "u.Full.size") in edges
    assert ("u.f", "u.Mamba.size") not in edges  # a Mamba fails the union
    assert ("u.g", "u.Mamba.size") in edges
    assert ("u.h", "u.Full.size") in edges


def test_an_assert_no_flowed_value_passes_says_what_the_value_is_where_the_program_makes_one():
    edges = resolve(
        {
            "a.py": """
class Metadata:
    def build(self): pass
class GDNMetadata(Metadata):
    def build(self): pass
class FlashMetadata(Metadata):
    def build(self): pass
class Never:
    def build(self): pass
def helper(): pass
def kernel(metadata):
    assert isinstance(metadata, GDNMetadata)
    metadata.build()
    helper()
def checked(metadata):
    if isinstance(metadata, GDNMetadata):
        helper()
def never(metadata):
    assert isinstance(metadata, Never)
    helper()
def main():
    kernel(FlashMetadata())  # the flow the resolver found: the GDN metadata came by a way it lost
    checked(FlashMetadata())
    never(FlashMetadata())
    GDNMetadata()
"""
        }
    ).edges
    assert ("a.kernel", "a.helper") in edges
    assert ("a.kernel", "a.GDNMetadata.build") in edges
    assert ("a.kernel", "a.FlashMetadata.build") not in edges
    assert ("a.checked", "a.helper") not in edges  # an `if` no value takes: the branch never runs
    assert ("a.never", "a.helper") not in edges  # no Never is ever made: the assert always fails


def test_a_check_for_a_builtin_or_unknown_type_keeps_its_branch_where_only_instances_of_the_tree_flowed():
    edges = resolve(
        {
            "b.py": """
class LoRARef:
    def __init__(self, name): self.name = name
class Spec: pass
class Other: pass
TYPES = tuple(t for t in (Spec,))
class Args:
    def __init__(self):
        self.paths = [LoRARef("x")]  # what the code stores; the command line's strings are not followed
    def parse(self):
        for path in self.paths:
            if isinstance(path, str):
                LoRARef(path)
            elif isinstance(path, LoRARef):
                pass
def check(value):
    if isinstance(value, TYPES):
        helper()
    if isinstance(value, Spec):
        never()
def helper(): pass
def never(): pass
def main():
    Args().parse()
    check(Other())
"""
        }
    ).edges
    assert ("b.Args.parse", "b.LoRARef.__init__") in edges  # a str may come from what is not followed
    assert ("b.check", "b.helper") in edges  # a type the resolver cannot name: anything may pass
    assert ("b.check", "b.never") not in edges  # a class of the tree no value is an instance of


def test_a_check_against_a_protocol_passes_what_has_its_methods():
    edges = resolve(
        {
            "p.py": """
from typing import Protocol, runtime_checkable
@runtime_checkable
class SupportsMRoPE(Protocol):
    def get_mrope_input_positions(self): ...
class CombineInput(Protocol):
    def format(self): ...
class Qwen2VL:
    def get_mrope_input_positions(self): pass
class Llama:
    def forward(self): pass
class Nominal(SupportsMRoPE):
    pass
class LLInput:
    def format(self): pass
def helper(): pass
def other(): pass
def rope(model):
    if isinstance(model, SupportsMRoPE):
        model.get_mrope_input_positions()
def plain(model):
    if isinstance(model, SupportsMRoPE):
        other()
assert isinstance(LLInput, CombineInput)
def after(): helper()
def main():
    rope(Qwen2VL())
    rope(Llama())
    rope(Nominal())
    plain(Llama())
"""
        }
    ).edges
    assert ("p.rope", "p.Qwen2VL.get_mrope_input_positions") in edges  # has the method: passes
    assert ("p.rope", "p.SupportsMRoPE.get_mrope_input_positions") in edges  # derives from it
    assert ("p.plain", "p.other") not in edges  # a Llama has none of its methods
    assert ("p.after", "p.helper") in edges  # the module goes on past the check of a class object


def test_a_spread_dict_of_known_keys_passes_them_by_name_and_leaves_the_others_at_their_defaults():
    edges = resolve(
        {
            "k.py": POOLS
            + """class Rank:
    def run(self): pass
class Hybrid:
    def __init__(self, pool_class=None, pool: Optional[KVCache] = None, rank=None):
        if pool is not None:
            self.pool = pool
        else:
            self.pool = pool_class()
        if rank is not None:
            rank.run()
    def get(self):
        return self.pool.get()
def build(use_mla):
    extra = {}
    if use_mla:
        extra = {"rank": Rank()}
    return Hybrid(pool_class=MHAPool, **extra)
def main(unknown):
    build(True)
    Owner()
"""
        }
    ).edges
    assert ("k.Hybrid.__init__", "k.Rank.run") in edges  # passed through `**extra`
    assert ("k.Hybrid.get", "k.MHAPool.get") in edges
    assert ("k.Hybrid.get", "k.SubPool.get") not in edges  # `pool` is in no dict: left at its default


def test_what_a_call_that_always_raises_gives_is_no_lost_flow_for_an_annotation_to_fill():
    files = {
        "pool.py": POOLS
        + """class Platform:
    def pool_class(self) -> type:
        \"\"\"Out-of-tree platforms say which.\"\"\"
        raise NotImplementedError
    def checked(self, x) -> KVCache:
        if x:
            raise ValueError(x)
        return MHAPool()
class CudaPlatform(Platform):
    pass
platform = CudaPlatform()
def build_plugin_pool() -> KVCache:
    cls = platform.pool_class()
    pool = cls(8)
    return pool
def build_lost_pool(registry) -> KVCache:
    return registry.make()
def main(registry):
    build_plugin_pool().get()
    build_lost_pool(registry).get()
    platform.checked(1).get()
    Owner()
"""
    }
    r = resolve(files)
    at = {line: rec for (_, line, _), rec in r.sites.items() if rec.site.text.endswith(("get", "cls"))}
    # nothing of the tree returns from pool_class: the pool is no KVCache the annotation could promise
    assert not at[30].targets and at[30].reason is Unresolved.RAISES
    assert not at[25].targets and at[25].reason is Unresolved.RAISES  # cls(8)
    # a flow the resolver lost (an unknown parameter's method) still gets what the annotation promises
    assert set(at[31].targets) >= {"pool.MHAPool.get", "pool.SubPool.get"}
    # a function that raises on one branch only returns what its other branches do
    assert set(at[32].targets) == {"pool.MHAPool.get"}


def test_an_annotation_promises_no_class_made_only_as_a_part_of_another_of_its_cone():
    edges = resolve(
        {
            "kv.py": """
import torch
class KVCache:
    def get(self): pass
    @classmethod
    def default(cls):
        return MHAPool()  # a factory of the base: MHAPool is no part
class MHAPool(KVCache):
    def get(self): pass
class SinglePool(KVCache):
    def get(self): pass
class IndexerPool(KVCache):
    def get(self): pass
class DeepPool(KVCache):
    def __init__(self):
        self.inner = SinglePool()
        self.indexer = self._make()
    def _make(self):
        return IndexerPool()
    def get(self):
        return self.inner.get()
class ShardPool(KVCache):
    def get(self): pass
class KernelPool(KVCache):
    def get(self): pass
class PublicPool(KVCache):
    def get(self): pass
__all__ = ["PublicPool"]  # named as a value elsewhere (users make it): no part
class ModulePool(KVCache):
    def get(self): pass
class Holder(torch.nn.Module):  # the library's code may hand out what a module holds: no part
    def __init__(self):
        self.pool = ModulePool()
class Scheme:  # no pool, but it keeps the KernelPool it makes on itself: a part of the scheme
    def __init__(self):
        self.kernel = KernelPool()
        self.public = PublicPool()
    def run(self):
        return self.kernel.get()
class Tiered(KVCache):
    def __init__(self):
        self.shard = ShardPool()
    def get(self): pass
def build_shard():
    return ShardPool()  # also made outside any pool: no part
def backend(pool: KVCache):
    return pool.get()
def main():
    KVCache.default()
    DeepPool()
    Tiered()
    build_shard()
    Scheme().run()
    Holder()
"""
        }
    ).edges
    got = {b for a, b in edges if a == "kv.backend"}
    # SinglePool and IndexerPool are made only inside a DeepPool, KernelPool only on a Scheme's self: no function
    # handed a KVCache gets one
    assert got == {
        "kv.MHAPool.get",
        "kv.DeepPool.get",
        "kv.ShardPool.get",
        "kv.Tiered.get",
        "kv.PublicPool.get",
        "kv.ModulePool.get",
    }
    assert ("kv.DeepPool.get", "kv.SinglePool.get") in edges  # the part itself is still reached through its owner
    assert ("kv.Scheme.run", "kv.KernelPool.get") in edges


def test_a_clone_no_call_entered_gets_no_promise_for_its_parameters():
    """A method's clone for a subclass's instances runs for the calls on them; where none is made, its parameters
    stay empty rather than taking the annotation's promise (which would flow on into what the clone builds)."""
    edges = resolve(
        {
            "q.py": """
class LinearMethodBase:
    def apply(self): pass
class Unquantized(LinearMethodBase):
    def apply(self): pass
class Fp8(LinearMethodBase):
    def apply(self): pass
class Gptq(LinearMethodBase):
    def apply(self): pass
class Transform(LinearMethodBase):
    def __init__(self, inner: LinearMethodBase):
        self.inner = inner
    @classmethod
    def from_schemes(cls, inner: LinearMethodBase, fast: bool):
        if fast:
            return FastTransform(inner)
        return cls(inner)
    def apply(self):
        return self.inner.apply()
class FastTransform(Transform):
    pass
def choose(fast):
    return Transform.from_schemes(Unquantized(), fast)
def elsewhere():
    Fp8()
    Gptq()
def public(method: LinearMethodBase):
    return method.apply()
"""
        }
    ).edges
    got = {b for a, b in edges if a == "q.Transform.apply"}
    # FastTransform's clone of from_schemes is called by no one: it builds no FastTransform around a promise
    assert got == {"q.Unquantized.apply"}
    # a function no call reaches keeps what its annotation promises
    assert {b for a, b in edges if a == "q.public"} >= {"q.Unquantized.apply", "q.Fp8.apply", "q.Gptq.apply"}


def test_a_return_of_none_where_type_checks_ruled_the_rest_out_is_no_lost_flow():
    """`get_quant_method(layer)` given a layer no check accepts returns None: the annotation `Optional[Base]`
    promises nothing there. A return whose value was lost (not a literal) still gets the promise."""
    edges = resolve(
        {
            "q.py": """
from typing import Optional
class QuantizeMethodBase:
    def apply(self): pass
class LinearMethod(QuantizeMethodBase):
    def apply(self): pass
class MoEMethod(QuantizeMethodBase):
    def apply(self): pass
class EmbeddingMethod(QuantizeMethodBase):
    def apply(self): pass
class Linear: pass
class MoE: pass
class Head: pass
class Config:
    def get_quant_method(self, layer) -> Optional[QuantizeMethodBase]:
        if isinstance(layer, Linear):
            return LinearMethod()
        elif isinstance(layer, MoE):
            return MoEMethod()
        return None
    def lost(self, registry) -> Optional[QuantizeMethodBase]:
        if registry:
            return registry.pick()
        return None
def head_forward(config: Config):
    method = config.get_quant_method(Head())
    if method is None:
        method = EmbeddingMethod()
    method.apply()
def linear_forward(config: Config):
    config.get_quant_method(Linear()).apply()
def moe_forward(config: Config):
    config.get_quant_method(MoE()).apply()
def lost_forward(config: Config, registry):
    config.lost(registry).apply()
"""
        }
    ).edges
    assert {b for a, b in edges if a == "q.head_forward" and b.endswith(".apply")} == {"q.EmbeddingMethod.apply"}
    assert {b for a, b in edges if a == "q.linear_forward" and b.endswith(".apply")} == {"q.LinearMethod.apply"}
    assert {b for a, b in edges if a == "q.lost_forward" and b.endswith(".apply")} >= {
        "q.LinearMethod.apply",
        "q.MoEMethod.apply",
    }


def test_a_dataclass_field_made_by_its_default_factory_holds_that_class():
    """`arch_config: DiTArchConfig = field(default_factory=ErnieArch)`: an instance made without the field holds an
    ErnieArch, not every arch config the annotation allows (whose missing fields would fall to `__getattr__`)."""
    edges = resolve(
        {
            "cfg.py": """
from dataclasses import dataclass, field
@dataclass
class ArchConfig:
    def __getattr__(self, name):
        raise AttributeError(name)
    def describe(self): pass
@dataclass
class DiTArchConfig(ArchConfig):
    def describe(self): pass
@dataclass
class ErnieArch(DiTArchConfig):
    in_channels: int = 128
    def describe(self): pass
@dataclass
class FluxArch(DiTArchConfig):
    patch_size: int = 2
    def describe(self): pass
@dataclass
class ModelConfig:
    arch_config: ArchConfig = field(default_factory=ArchConfig)
@dataclass
class DiTConfig(ModelConfig):
    arch_config: DiTArchConfig = field(default_factory=DiTArchConfig)
@dataclass
class ErnieConfig(DiTConfig):
    arch_config: DiTArchConfig = field(default_factory=ErnieArch)
class ErnieModel:
    def __init__(self, config: ErnieConfig):
        arch = config.arch_config
        self.channels = arch.in_channels
        arch.describe()
def elsewhere():
    FluxArch()
"""
        }
    ).edges
    got = {b for a, b in edges if a == "cfg.ErnieModel.__init__"}
    assert "cfg.ErnieArch.describe" in got
    assert not got & {"cfg.FluxArch.describe", "cfg.DiTArchConfig.describe", "cfg.ArchConfig.__getattr__"}


def test_a_function_every_call_runs_in_a_clone_promises_its_annotations_to_no_callee():
    """A helper given a class (a context per class given) whose calls all enter its clones: its own scope stands for
    no call, so what its annotation promises (every config) reaches no function it shares with the clones."""
    files = {
        "q.py": """
class Config:
    def name(self): raise NotImplementedError
class GPTQ(Config):
    def name(self): return "gptq"
    def method(self, layer): return build(self, layer, LinearMethod)
class FP8(Config):
    def name(self): return "fp8"
class LinearMethod:
    def __init__(self, cfg): self.cfg = cfg
def build(config: Config, layer, method_cls):
    adjust(config)
    return method_cls(config)
def adjust(config: Config):
    config.name()
def unseen(config: Config):
    adjust_unseen(config)
def adjust_unseen(config):
    config.name()
def main():
    FP8()
    GPTQ().method(1)
"""
    }
    edges = resolve(files).edges
    assert ("q.adjust", "q.GPTQ.name") in edges
    assert ("q.adjust", "q.FP8.name") not in edges  # only the origin of build, which no call entered, had an FP8
    assert ("q.build", "q.LinearMethod.__init__") in edges
    # a function no call of the tree reaches keeps its promise for the calls unseen
    assert {("q.adjust_unseen", "q.GPTQ.name"), ("q.adjust_unseen", "q.FP8.name")} <= edges.keys()


def test_a_loop_over_a_literal_keeps_what_each_element_pairs_together():
    # `for src, lora in supported.items(): if isinstance(layer, src): return lora(layer)`, `supported` a local dict
    # display nothing else reads: each wrapper is made only of its own layer class, so AWithLoRA's base layer is
    # never a B (one pass over all the pairs would give every wrapper every layer); a list of tuples written in the
    # loop pairs the same way, and the `else` of a loop that may break still runs
    edges = resolve(
        {
            "q.py": """
class A:
    def run_a(self): pass
class B:
    def run_b(self): pass
class AWithLoRA:
    def __init__(self, base_layer):
        self.base_layer = base_layer
    def forward(self):
        self.base_layer.run_a()
        self.base_layer.run_b()
class BWithLoRA:
    def __init__(self, base_layer):
        self.base_layer = base_layer
    def forward(self):
        self.base_layer.run_a()
        self.base_layer.run_b()
def fallback(layer): pass
def get_lora_layer(layer):
    supported: dict = {A: AWithLoRA, B: BWithLoRA}
    for src, lora in supported.items():
        if isinstance(layer, src):
            return lora(layer)
def on_a(): pass
def on_b(): pass
def pick(layer):
    for src, handler in [(A, on_a), (B, on_b)]:
        if isinstance(layer, src):
            handler()
            break
    else:
        fallback(layer)
def main():
    for layer in (A(), B()):
        get_lora_layer(layer).forward()
        pick(layer)
"""
        }
    ).edges
    assert {b for a, b in edges if a == "q.AWithLoRA.forward"} == {"q.A.run_a"}
    assert {b for a, b in edges if a == "q.BWithLoRA.forward"} == {"q.B.run_b"}
    assert {b for a, b in edges if a == "q.get_lora_layer"} >= {"q.AWithLoRA.__init__", "q.BWithLoRA.__init__"}
    assert {b for a, b in edges if a == "q.pick" and b.startswith("q.")} == {"q.on_a", "q.on_b", "q.fallback"}


def test_a_stub_that_only_raises_not_implemented_is_no_target_beside_an_implementation():
    # a receiver that may hold several classes: the base class's stub, which a made subclass inherits, is no target
    # where another class implements the method (a run that works holds a class that supports the call); a call whose
    # only callee is the stub keeps it, and a method that does more than raise (not only format its message) is no stub
    edges = resolve(
        {
            "q.py": '''
class Base:
    def add(self, x):
        """Not on this platform."""
        raise NotImplementedError(f"no add for {x}")
    def drop(self):
        raise NotImplementedError
    def log(self):
        print("unsupported")
        raise NotImplementedError
    def reset(self):
        raise NotImplementedError(
            f"{type(self).__name__} cannot {self.what()}"
        )
class Gpu(Base):
    def add(self, x): pass
    def log(self): pass
    def reset(self): pass
class Cpu(Base):
    pass
def make(flag):
    return Gpu() if flag else Cpu()
def use(flag):
    w = make(flag)
    w.add(1)
    w.drop()
    w.log()
    w.reset()
def only_cpu():
    Cpu().add(2)
'''
        }
    ).edges
    expected = {"q.make", "q.Gpu.add", "q.Base.drop", "q.Gpu.log", "q.Base.log", "q.Gpu.reset"}
    assert {b for a, b in edges if a == "q.use"} == expected  # a message formatted with calls is still a stub's
    assert "q.Base.add" in {b for a, b in edges if a == "q.only_cpu"}
