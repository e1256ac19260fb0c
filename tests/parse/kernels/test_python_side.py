"""atlas.parse.kernels.python_side: torch.ops uses, Python-made ops and SGLang load_jit calls."""

import pytest

from atlas.parse.kernels.python_side import python_facts


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import torch\ndef f(x):\n    torch.ops._C.silu(x)\n", [("_C", "silu", 3, True)]),
        ("def f(x):\n    return torch.ops._C_cache_ops.reshape.default(x)\n", [("_C_cache_ops", "reshape", 2, True)]),
        ("OPS = [torch.ops.vllm.unified_attention]\n", [("vllm", "unified_attention", 1, False)]),
        ("def f():\n    my.ops._C.silu()\n", []),
    ],
)
def test_op_uses(source, expected):
    facts = python_facts("vllm/x.py", source)
    assert [(u.namespace, u.op, u.line, u.is_call) for u in facts.op_uses] == expected


def test_custom_ops_and_their_library():
    source = (
        'from torch.library import Library\naiter = Library("vllm_aiter", "FRAGMENT")\n'
        'direct_register_custom_op(op_name="attn", op_func=attn_impl, fake_impl=fake)\n'
        'direct_register_custom_op("fused", (fused_impl), target_lib=aiter)\n'
    )
    facts = python_facts("vllm/x.py", source)
    assert [(c.namespace, c.op, c.func, c.line) for c in facts.custom_ops] == [
        ("vllm", "attn", "attn_impl", 3),
        ("vllm_aiter", "fused", "fused_impl", 4),
    ]


def test_load_jit_follows_local_strings_and_marks_unknowns():
    source = """
def _module(ratio, *args):
    kernel_class = f"FlashCompress{ratio}Kernel<{args}>"
    return load_jit(
        "compress",
        *args,
        cuda_files=[f"deepseek_v4/c{ratio}.cuh", "common.cuh"],
        cuda_wrappers=[("decode", f"&{kernel_class}::run_decode"), ("plan", "plan_fn")],
    )

def _dynamic(names):
    return load_jit("dyn", cuda_files=names, cuda_wrappers=[(n, n) for n in names])
"""
    first, second = python_facts("python/sglang/k.py", source).jit_loads
    assert first.marker == "compress" and first.line == 4 and not first.is_dynamic
    assert first.files == ("deepseek_v4/c*.cuh", "common.cuh")
    assert first.wrappers == (("decode", "FlashCompress*Kernel::run_decode"), ("plan", "plan_fn"))
    assert second.is_dynamic


@pytest.mark.parametrize(
    "source, expected",
    [
        (
            'if ok:\n    @torch.library.custom_op(\n        "vllm::mm_fp4",\n        mutates_args=[],\n    )\n'
            "    def mm_fp4(a):\n        return a\n",
            [("vllm", "mm_fp4", "mm_fp4", 2, 6)],
        ),
        (
            "from torch.library import custom_op\n"
            '@custom_op("mylib::rearrange.default", mutates_args=())\ndef r(x): pass\n',
            [("mylib", "rearrange", "r", 2, 3)],
        ),
        (
            'def g(x): return x\ntorch.library.custom_op("mylib::g_op", g, mutates_args=())\n',
            [("mylib", "g_op", "g", 2, 0)],
        ),
        ('@torch.library.register_fake("vllm::mm_fp4")\ndef fake(a): pass\n', []),  # not a registration
        ("@torch.library.custom_op(name, mutates_args=())\ndef f(a): pass\n", []),  # the name is not a literal
    ],
)
def test_torch_library_custom_op(source, expected):
    facts = python_facts("vllm/x.py", source)
    assert [(c.namespace, c.op, c.func, c.line, c.defined_at) for c in facts.custom_ops] == expected


@pytest.mark.parametrize(
    "source, expected",
    [
        ("def f(node):\n    if node.target == torch.ops._C.silu_and_mul.default:\n        pass\n", []),
        ("def f(op):\n    return op is torch.ops.vllm.moe_forward\n", []),
        ("def f(node):\n    return node.target in (torch.ops._C.rms_norm.default, torch.ops._C.silu.default)\n", []),
        ("def f(x):\n    return torch.ops._C.rms_norm(x) == x\n", [("_C", "rms_norm", 2, True)]),
        (
            "class A:\n    def __init__(self):\n        self.op = torch.ops._C.gelu_and_mul\n",
            [("_C", "gelu_and_mul", 3, False)],
        ),
    ],
)
def test_an_op_only_compared_against_is_no_use(source, expected):
    facts = python_facts("vllm/compilation/passes/x.py", source)
    assert [(u.namespace, u.op, u.line, u.is_call) for u in facts.op_uses] == expected


def test_a_computed_marker_is_spelled():
    source = (
        'def _a():\n    return load_jit(make_name("fused_rope"), cuda_files=["r.cuh"],\n'
        '                    cuda_wrappers=[("forward", "A::f")])\n'
        'def _b(n):\n    return load_jit(f"set_kv_{n}", cuda_files=["s.cuh"], cuda_wrappers=[("run", "B::run")])\n'
        'def _c(name):\n    return load_jit(name, cuda_files=["t.cuh"], cuda_wrappers=[("run", "C::run")])\n'
    )
    assert [load.marker for load in python_facts("python/sglang/k.py", source).jit_loads] == [
        "fused_rope",
        "set_kv_*",
        "",
    ]
