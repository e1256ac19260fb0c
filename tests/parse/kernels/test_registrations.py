"""atlas.parse.kernels.registrations: every torch op registration style vLLM uses."""

import pytest

from atlas.parse.kernels.registrations import find_registrations


@pytest.mark.parametrize(
    "path, source, expected",
    [
        (
            "csrc/torch_bindings.cpp",
            'TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {\n  ops.def("silu(Tensor! out, Tensor x) -> ()");\n'
            '  ops.impl("silu", torch::kCUDA, &silu_and_mul);\n}',
            [("_C", "silu", "def", "", ""), ("_C", "silu", "impl", "CUDA", "silu_and_mul")],
        ),
        (
            "csrc/moe/torch_bindings.cpp",
            'TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, m) {\n  m.def("topk(Tensor a) -> ()");\n}',
            [("_moe_C", "topk", "def", "", "")],
        ),
        (
            "csrc/b.cpp",
            'STABLE_TORCH_LIBRARY_FRAGMENT(_C_cache_ops, ops) {\n  ops.def(\n      "reshape(Tensor key,"\n'
            '      "        Tensor! cache) -> ()");\n}\nSTABLE_TORCH_LIBRARY_IMPL(_C_cache_ops, CUDA, ops) {\n'
            '  ops.impl("reshape",\n           TORCH_BOX(&reshape));\n'
            '  ops.impl("quant.out", TORCH_BOX(&vllm::quant_out));\n}',
            [
                ("_C_cache_ops", "reshape", "def", "", ""),
                ("_C_cache_ops", "reshape", "impl", "CUDA", "reshape"),
                ("_C_cache_ops", "quant", "impl", "CUDA", "vllm::quant_out"),
            ],
        ),
        (
            "csrc/c.cpp",
            "TORCH_LIBRARY_FRAGMENT(CONCAT(TORCH_EXTENSION_NAME, _custom_ar), custom_ar) {\n"
            '  custom_ar.def("meta_size", &meta_size);\n}',
            [("_C_custom_ar", "meta_size", "def", "CompositeImplicitAutograd", "meta_size")],
        ),
        ("csrc/core/registration.h", "#define TORCH_LIBRARY_EXPAND(NAME, MODULE) TORCH_LIBRARY(NAME, MODULE)\n", []),
        (
            "csrc/d.cu",
            '// ops.def("commented(Tensor a) -> ()");\nTORCH_LIBRARY_IMPL_EXPAND(TORCH_EXTENSION_NAME, CUDA, m) {\n'
            '  m.impl("real", &real_fn);\n}',
            [("_C", "real", "impl", "CUDA", "real_fn")],
        ),
    ],
)
def test_registrations(path, source, expected):
    found = [(r.namespace, r.op, r.kind, r.dispatch_key, r.impl) for r in find_registrations(path, source)]
    assert found == expected


def test_schema_and_line_are_kept():
    source = 'STABLE_TORCH_LIBRARY_FRAGMENT(_C, ops) {\n\n  ops.def("f(Tensor a,"\n          " int b) -> Tensor");\n}'
    (reg,) = find_registrations("csrc/e.cpp", source)
    assert reg.line == 3 and reg.schema.startswith("f(Tensor a,") and reg.schema.endswith("-> Tensor")


QUICKREDUCE = (
    "TORCH_LIBRARY_FRAGMENT(CONCAT(TORCH_EXTENSION_NAME, _custom_ar), custom_ar) {\n"
    '  custom_ar.def("qr_max_size", &qr_max_size);\n}'
)


@pytest.mark.parametrize(
    "extension, namespace",
    [
        ("_C", "_C_custom_ar"),  # CMake compiles csrc/rocm/quickreduce into the legacy _C target (vLLM v0.33)
        ("", "_rocm_C_custom_ar"),  # no CMake target lists it: guessed from the folder
    ],
)
def test_extension_name_from_the_cmake_target(extension, namespace):
    (reg,) = find_registrations("csrc/rocm/quickreduce/torch_bindings.cpp", QUICKREDUCE, extension)
    assert reg.namespace == namespace


CMAKE = """
set(VLLM_EXT_SRC
  "csrc/rocm/quickreduce/torch_bindings.cpp"  # a comment (with parens)
  "csrc/rocm/quickreduce/custom_quickreduce.cu")
if(VLLM_OCTAVE_KV)
  list(APPEND VLLM_EXT_SRC
    "csrc/attention/octave_torch_bindings.cpp")
endif()
set(ROCM_SRC "csrc/rocm/torch_bindings.cpp")
define_extension_target(
  _C
  DESTINATION vllm
  LANGUAGE ${VLLM_GPU_LANG}
  SOURCES ${VLLM_EXT_SRC}
  COMPILE_FLAGS ${VLLM_GPU_FLAGS}
  WITH_SOABI)
define_gpu_extension_target(_rocm_C DESTINATION vllm SOURCES ${ROCM_SRC} "csrc/rocm/extra.cu" USE_SABI 3)
define_extension_target(fs_io_C DESTINATION vllm LANGUAGE CXX SOURCES csrc/fs_io.cpp USE_SABI 3.11)
"""


def test_cmake_targets():
    from atlas.parse.kernels.cmake import extension_targets

    assert extension_targets([CMAKE]) == {
        "csrc/rocm/quickreduce/torch_bindings.cpp": "_C",
        "csrc/rocm/quickreduce/custom_quickreduce.cu": "_C",
        "csrc/attention/octave_torch_bindings.cpp": "_C",
        "csrc/rocm/torch_bindings.cpp": "_rocm_C",
        "csrc/rocm/extra.cu": "_rocm_C",
        "csrc/fs_io.cpp": "fs_io_C",
    }
