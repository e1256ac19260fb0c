"""atlas.parse.kernels.cpp: kernels found, launches named, macros and aliases, one build's preprocessor branches."""

import pytest

from atlas.parse.kernels.cpp import parse_cpp
from atlas.parse.kernels.text import select_branches


def functions(source: str, path: str = "csrc/x.cu") -> dict:
    return {f.qualname: f for f in parse_cpp(path, source).functions}


@pytest.mark.parametrize(
    "source, qualname, is_kernel",
    [
        ("__global__ void k(int n) {}", "k", True),
        (
            "namespace vllm {\ntemplate <typename T, int N>\n"
            "__global__ void __launch_bounds__(256) k(const T* __restrict__ x)"
            " { x[0]; }\n}",
            "vllm::k",
            True,
        ),
        ("static __global__ __launch_bounds__(kThreads, 1) void topk(int a) {}", "topk", True),
        ("template <typename T>\n__global__ std::enable_if_t<(w > 0)>\nnorm(T* out) {}", "norm", True),
        ("#define MY_KERNEL __global__ __launch_bounds__(128, 4)\nMY_KERNEL void c4(int a) {}", "c4", True),
        ("__device__ __forceinline__ float f(float x) { return x; }", "f", False),
        ("void host(int n) {}", "host", False),
        ("struct K {\n  static void run(int a) {}\n};", "K::run", False),
        ("void Outer::method() {}", "Outer::method", False),
    ],
)
def test_kernels_are_the_global_functions(source, qualname, is_kernel):
    found = functions(source)
    assert qualname in found, sorted(found)
    assert found[qualname].is_kernel is is_kernel


def test_line_numbers_stay_after_an_attribute_over_two_lines():
    source = (
        "template <int N>\n__global__ void __launch_bounds__(\n    256, 1) router(float* x) {\n}\n\n"
        "void launch(float* x) {\n  router<4><<<1, 256>>>(x);\n}\n"
    )
    found = functions(source)
    assert (found["router"].start, found["router"].is_kernel) == (2, True)
    assert (found["launch"].start, found["launch"].end) == (6, 8)
    assert [(r.line, r.is_launch) for r in found["launch"].refs if r.name == "router"] == [(7, True)]


@pytest.mark.parametrize(
    "body, name, is_launch",
    [
        ("k<<<grid, block, 0, stream>>>(a);", "k", True),
        ("vllm::k<float, 4><<<grid, block>>>(a);", "k", True),
        ("LaunchKernel(blocks, threads, dev).enable_pdl(true)(kern, params);", "kern", True),
        ("LaunchKernel(blocks, threads, dev)(kern, params);", "params", False),
        ("cudaLaunchKernelEx(&config, kern, a, b);", "kern", True),
        ("cudaLaunchKernelEx(&config, kern, a, b);", "config", False),
        ("helper(a); k(b);", "helper", False),
    ],
)
def test_launch_sites_name_their_kernel(body, name, is_launch):
    (fn,) = functions(f"void launch(int a) {{ {body} }}").values()
    refs = {r.name: r for r in fn.refs}
    assert refs[name].is_launch is is_launch
    assert fn.has_launch is ("<<<" in body or "Launch" in body)


def test_a_launch_inside_a_macro_is_seen_through_line_continuations():
    source = (
        "#define CALL(T) \\\n  vllm::flash_kernel<T>    \\\n  <<<grid, block, 0, stream>>>(key);\n"
        "void run() { DISPATCH(dtype, CALL); }"
    )
    parsed = parse_cpp("csrc/c.cu", source)
    (macro,) = parsed.macros
    assert macro.name == "CALL" and macro.has_launch
    assert {r.name: r.is_launch for r in macro.refs}["flash_kernel"]
    (fn,) = parsed.functions
    assert "CALL" in {r.name for r in fn.refs}


def test_class_aliases_are_kept_as_macros():
    source = (
        "template <int B> struct S {\n  template <int K>\n  static constexpr auto kern = store<B, K>;\n"
        "  static void run() { LaunchKernel(1, 2, d)(kern<1>, p); }\n};"
    )
    parsed = parse_cpp("x.cuh", source)
    assert [(m.name, [r.name for r in m.refs][0]) for m in parsed.macros] == [("kern", "store")]


@pytest.mark.parametrize(
    "source, prefer_rocm, kept, dropped",
    [
        ("#ifdef USE_ROCM\nrocm();\n#else\ncuda();\n#endif", False, "cuda", "rocm"),
        ("#ifdef USE_ROCM\nrocm();\n#else\ncuda();\n#endif", True, "rocm", "cuda"),
        ("#ifndef USE_ROCM\ncuda();\n#endif", False, "cuda", None),
        ("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 750\nstub();\n#else\nreal();\n#endif", False, "real", "stub"),
        ("#if 0\nold();\n#elif defined(FOO)\nnew_();\n#endif", False, "new_", "old"),
        ("#if A\n#if B\ninner();\n#endif\n#else\nouter();\n#endif", False, "inner", "outer"),
    ],
)
def test_one_build_branches_are_kept(source, prefer_rocm, kept, dropped):
    out = select_branches(source, prefer_rocm)
    assert len(out) == len(source) and out.count("\n") == source.count("\n")
    assert kept in out
    assert dropped is None or dropped not in out
