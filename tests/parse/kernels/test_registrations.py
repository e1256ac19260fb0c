"""atlas.parse.kernels.registrations: every torch op registration style vLLM uses."""

import pytest

from atlas.parse.kernels.registrations import find_registrations


@pytest.mark.parametrize("path, source, expected", [
    ("csrc/torch_bindings.cpp",
     'TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {\n  ops.def("silu(Tensor! out, Tensor x) -> ()");\n'
     '  ops.impl("silu", torch::kCUDA, &silu_and_mul);\n}',
     [("_C", "silu", "def", "", ""), ("_C", "silu", "impl", "CUDA", "silu_and_mul")]),
    ("csrc/moe/torch_bindings.cpp",
     'TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, m) {\n  m.def("topk(Tensor a) -> ()");\n}',
     [("_moe_C", "topk", "def", "", "")]),
    ("csrc/b.cpp",
     'STABLE_TORCH_LIBRARY_FRAGMENT(_C_cache_ops, ops) {\n  ops.def(\n      "reshape(Tensor key,"\n'
     '      "        Tensor! cache) -> ()");\n}\nSTABLE_TORCH_LIBRARY_IMPL(_C_cache_ops, CUDA, ops) {\n'
     '  ops.impl("reshape",\n           TORCH_BOX(&reshape));\n  ops.impl("quant.out", TORCH_BOX(&vllm::quant_out));\n}',
     [("_C_cache_ops", "reshape", "def", "", ""), ("_C_cache_ops", "reshape", "impl", "CUDA", "reshape"),
      ("_C_cache_ops", "quant", "impl", "CUDA", "vllm::quant_out")]),
    ("csrc/c.cpp",
     'TORCH_LIBRARY_FRAGMENT(CONCAT(TORCH_EXTENSION_NAME, _custom_ar), custom_ar) {\n'
     '  custom_ar.def("meta_size", &meta_size);\n}',
     [("_C_custom_ar", "meta_size", "def", "CompositeImplicitAutograd", "meta_size")]),
    ("csrc/core/registration.h",
     "#define TORCH_LIBRARY_EXPAND(NAME, MODULE) TORCH_LIBRARY(NAME, MODULE)\n", []),
    ("csrc/d.cu",
     '// ops.def("commented(Tensor a) -> ()");\nTORCH_LIBRARY_IMPL_EXPAND(TORCH_EXTENSION_NAME, CUDA, m) {\n'
     '  m.impl("real", &real_fn);\n}',
     [("_C", "real", "impl", "CUDA", "real_fn")]),
])
def test_registrations(path, source, expected):
    found = [(r.namespace, r.op, r.kind, r.dispatch_key, r.impl) for r in find_registrations(path, source)]
    assert found == expected


def test_schema_and_line_are_kept():
    source = 'STABLE_TORCH_LIBRARY_FRAGMENT(_C, ops) {\n\n  ops.def("f(Tensor a,"\n          " int b) -> Tensor");\n}'
    (reg,) = find_registrations("csrc/e.cpp", source)
    assert reg.line == 3 and reg.schema.startswith("f(Tensor a,") and reg.schema.endswith("-> Tensor")
