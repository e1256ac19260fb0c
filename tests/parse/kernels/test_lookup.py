"""atlas.parse.kernels.lookup through cpp_edges: which C++ function a name in a body reaches, on small files shaped
like vLLM's and SGLang's. Each table row is (files, caller, callee, provenance or None when there must be no edge)."""

import pytest

from atlas.model import Provenance
from atlas.parse.kernels.cpp import parse_cpp
from atlas.parse.kernels.cppedges import cpp_edges
from atlas.parse.kernels.cppindex import CppIndex

STATIC, NAME_MATCH, LAUNCH = Provenance.STATIC, Provenance.NAME_MATCH, Provenance.LAUNCH


def edges(files: dict[str, str], units: dict[str, list[str]] | None = None) -> dict[tuple[str, str], Provenance]:
    """(caller, callee) -> provenance, both as `path::qualname`."""
    index = CppIndex([parse_cpp(path, text) for path, text in files.items()])
    if units is not None:
        index.link_units(units)
    found, _ = cpp_edges(index)
    return {(e.caller.split(":", 1)[1], e.callee.split(":", 1)[1]): e.provenance for e in found}


SHM = "csrc/cpu/shm.cpp", "struct MemPiece {\n  void* data_ptr() { return ptr; }\n  void* ptr;\n};\n"
QUEUE = (
    "jit/csrc/ngram_corpus/queue.h",
    "namespace utils {\ntemplate <typename T> class Queue {\n public:\n  size_t size() const { return n; }\n};\n}\n",
)
HADACORE = (
    "csrc/hadamard/hadamard_transform_cuda.cu",
    "namespace hadacore {\nconstexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }\n}\n",
)
MATCHER = (
    "jit/include/sgl_kernel/tensor.h",
    "namespace host {\nstruct SymbolicSize {\n  int64_t unwrap() const { return v; }\n"
    "  bool verify(int64_t x) { return true; }\n};\n"
    "struct TensorMatcher {\n  TensorMatcher(std::initializer_list<int> s) {}\n"
    "  template <typename T> TensorMatcher&& with_dtype() && { return std::move(*this); }\n"
    "  auto with_device(int d) && -> TensorMatcher&& { return std::move(*this); }\n"
    "  void verify(TensorView t) && {}\n};\n}\n",
)


@pytest.mark.parametrize(
    "files, caller, callee, provenance",
    [
        pytest.param(
            [
                ("csrc/cpu/sgl-kernels/gemm.h", "constexpr int block_size_n() { return 32; }\n"),
                (
                    "csrc/cpu/sgl-kernels/gemm_fp8.cpp",
                    '#include "gemm.h"\nvoid apply() {\n  constexpr int BLOCK_N = block_size_n();\n}\n',
                ),
            ],
            "csrc/cpu/sgl-kernels/gemm_fp8.cpp::apply",
            "csrc/cpu/sgl-kernels/gemm.h::block_size_n",
            STATIC,
            id="a function of an included header is seen: quoted includes are read",
        ),
        pytest.param(
            [
                SHM,
                (
                    "csrc/quant/mxfp4_experts_quant.cu",
                    "void quant(Tensor& output) {\n  auto p = output.data_ptr();\n}\n",
                ),
            ],
            "csrc/quant/mxfp4_experts_quant.cu::quant",
            "csrc/cpu/shm.cpp::MemPiece::data_ptr",
            None,
            id="a member call on an object of a library type reaches no tree method of that name",
        ),
        pytest.param(
            [
                QUEUE,
                (
                    "jit/csrc/ngram_corpus/ngram.cpp",
                    '#include "queue.h"\nnamespace ngram {\nvoid insert(const std::vector<int>& tokens) {\n'
                    "  for (size_t i = 0; i < tokens.size(); ++i) {}\n}\n}\n",
                ),
            ],
            "jit/csrc/ngram_corpus/ngram.cpp::ngram::insert",
            "jit/csrc/ngram_corpus/queue.h::utils::Queue::size",
            None,
            id="a std::vector's size() is not the included Queue's",
        ),
        pytest.param(
            [
                QUEUE,
                (
                    "jit/csrc/sparse_mla/helpers.h",
                    "namespace sm90 {\ntemplate <typename T> void gemm_ss(T& sA) {\n"
                    "  for (int k = 0; k < size<2>(sA); ++k) {}\n}\n}\n",
                ),
            ],
            "jit/csrc/sparse_mla/helpers.h::sm90::gemm_ss",
            "jit/csrc/ngram_corpus/queue.h::utils::Queue::size",
            None,
            id="a plain call never reaches a method of an unrelated class",
        ),
        pytest.param(
            [
                HADACORE,
                (
                    "csrc/attention/mla/sm100_fmha_mla.hpp",
                    "namespace cutlass::fmha::kernel {\nstruct MlaKernel {\n"
                    "  void mma(int k) { int tiles = ceil_div(k, 64); }\n};\n}\n",
                ),
            ],
            "csrc/attention/mla/sm100_fmha_mla.hpp::cutlass::fmha::kernel::MlaKernel::mma",
            "csrc/hadamard/hadamard_transform_cuda.cu::hadacore::ceil_div",
            None,
            id="a plain call never reaches a function of a namespace around neither caller nor a using",
        ),
        pytest.param(
            [
                HADACORE,
                (
                    "csrc/hadamard/hadamard_entry.cu",
                    "using namespace hadacore;\nvoid entry(int k) { ceil_div(k, 8); }\n",
                ),
            ],
            "csrc/hadamard/hadamard_entry.cu::entry",
            "csrc/hadamard/hadamard_transform_cuda.cu::hadacore::ceil_div",
            NAME_MATCH,
            id="a using directive opens a namespace; a definition in another file of the unit links by name",
        ),
        pytest.param(
            [
                ("csrc/cpu/shm.cpp", "namespace shm_cc_ops {\nvoid memcpy(void* d, void* s, int n) {}\n}\n"),
                ("csrc/cpu/hf3fs_utils.cpp", "void write_shm(char* d, char* s) { std::memcpy(d, s, 4); }\n"),
            ],
            "csrc/cpu/hf3fs_utils.cpp::write_shm",
            "csrc/cpu/shm.cpp::shm_cc_ops::memcpy",
            None,
            id="a call naming a library namespace reaches no tree function of another namespace",
        ),
        pytest.param(
            [
                (
                    "csrc/quant/quant_utils.cuh",
                    "namespace vllm {\nnamespace fp8 {\n"
                    "template <typename T> T scaled_convert(T x) { return x; }\n}\n}\n",
                ),
                (
                    "csrc/cache_kernels_fused.cu",
                    '#include "quant/quant_utils.cuh"\nnamespace vllm {\n'
                    "__global__ void concat_kernel(float* x) { x[0] = fp8::scaled_convert<float>(x[0]); }\n}\n",
                ),
            ],
            "csrc/cache_kernels_fused.cu::vllm::concat_kernel",
            "csrc/quant/quant_utils.cuh::vllm::fp8::scaled_convert",
            STATIC,
            id="a qualified call reaches the function of that name in a namespace around the caller",
        ),
        pytest.param(
            [
                MATCHER,
                (
                    "jit/csrc/elementwise/rmsnorm.cuh",
                    "#include <sgl_kernel/tensor.h>\nusing namespace host;\nstruct RMSNormKernel {\n"
                    "  static void run(TensorView input, int device) {\n    auto N = SymbolicSize{};\n"
                    "    TensorMatcher({N}).with_dtype<float>().with_device(device).verify(input);\n"
                    "    const auto num_tokens = N.unwrap();\n  }\n};\n",
                ),
            ],
            "jit/csrc/elementwise/rmsnorm.cuh::RMSNormKernel::run",
            "jit/include/sgl_kernel/tensor.h::host::TensorMatcher::verify",
            STATIC,
            id="a chain of calls is typed by the methods' declared return types",
        ),
        pytest.param(
            [
                MATCHER,
                (
                    "jit/csrc/elementwise/rmsnorm.cuh",
                    "#include <sgl_kernel/tensor.h>\nusing namespace host;\nstruct RMSNormKernel {\n"
                    "  static void run(TensorView input, int device) {\n    auto N = SymbolicSize{};\n"
                    "    TensorMatcher({N}).with_dtype<float>().with_device(device).verify(input);\n"
                    "    const auto num_tokens = N.unwrap();\n  }\n};\n",
                ),
            ],
            "jit/csrc/elementwise/rmsnorm.cuh::RMSNormKernel::run",
            "jit/include/sgl_kernel/tensor.h::host::SymbolicSize::verify",
            None,
            id="the same-named method of another class of the included header is not reached",
        ),
        pytest.param(
            [
                (
                    "jit/include/sgl_kernel/distributed/communicator.cuh",
                    "namespace device::distributed {\nstruct Semaphore {\n"
                    "  uint32_t get_relaxed() const { return 0; }\n};\n}\n",
                ),
                (
                    "jit/csrc/kimi_k3/comm/sp_collective.cuh",
                    "#include <sgl_kernel/distributed/communicator.cuh>\nnamespace sglang::sp_collective {\n"
                    "using device::distributed::Semaphore;\nstruct Params {\n  Semaphore* sem_local;\n};\n"
                    "__global__ void reduce_scatter_kernel(const Params params) {\n"
                    "  auto* semaphore = &params.sem_local[blockIdx.x];\n"
                    "  while (semaphore->get_relaxed() < 2) ;\n}\n}\n",
                ),
            ],
            "jit/csrc/kimi_k3/comm/sp_collective.cuh::sglang::sp_collective::reduce_scatter_kernel",
            "jit/include/sgl_kernel/distributed/communicator.cuh::device::distributed::Semaphore::get_relaxed",
            STATIC,
            id="an auto variable is typed by its initializer, through a parameter's class member",
        ),
        pytest.param(
            [
                (
                    "trtllm/launcher.cu",
                    "struct FusedMoeLauncher {\n  virtual void prepare_routing() = 0;\n"
                    "  void run() { prepare_routing(); }\n};\n"
                    "struct Fp8Launcher : public FusedMoeLauncher {\n  void prepare_routing() override {}\n};\n",
                )
            ],
            "trtllm/launcher.cu::FusedMoeLauncher::run",
            "trtllm/launcher.cu::Fp8Launcher::prepare_routing",
            STATIC,
            id="a virtual method called in its class reaches the overrides of the classes deriving from it",
        ),
        pytest.param(
            [
                (
                    "csrc/quickreduce/quick_reduce_impl.cuh",
                    "namespace quickreduce {\nstruct CodecQ4 {\n  void send(int* p) {}\n};\n"
                    "template <typename Codec>\nstruct AllReduceTwoshot {\n"
                    "  static void run(int* p) {\n    Codec codec(p);\n    codec.send(p);\n  }\n};\n}\n",
                )
            ],
            "csrc/quickreduce/quick_reduce_impl.cuh::quickreduce::AllReduceTwoshot::run",
            "csrc/quickreduce/quick_reduce_impl.cuh::quickreduce::CodecQ4::send",
            STATIC,
            id="on a receiver of a template parameter's type, the methods of the classes the caller sees",
        ),
        pytest.param(
            [
                (
                    "csrc/cpu/sgl-kernels/gemm.cpp",
                    "template <typename T, int BLOCK_N>\nstruct tinygemm_kernel_nn {\n"
                    "  static void apply(T* a) {}\n};\n"
                    "#define LAUNCH_TINYGEMM_KERNEL_NN(NB) tinygemm_kernel_nn<T, NB>::apply(A);\n"
                    "template <typename T> void tinygemm_kernel(T* A) {\n  LAUNCH_TINYGEMM_KERNEL_NN(32);\n}\n",
                )
            ],
            "csrc/cpu/sgl-kernels/gemm.cpp::tinygemm_kernel",
            "csrc/cpu/sgl-kernels/gemm.cpp::tinygemm_kernel_nn::apply",
            STATIC,
            id="a class named with template arguments qualifies the call (in a macro the caller uses)",
        ),
        pytest.param(
            [
                (
                    "jit/include/sgl_kernel/utils.cuh",
                    "namespace host {\nstruct LaunchKernel {\n  void launch(int k) {}\n};\n}\n",
                ),
                (
                    "jit/csrc/attention/fused_fp8_qkv_kv_cache.cuh",
                    "#include <sgl_kernel/utils.cuh>\nusing namespace host;\nstruct FusedFp8QkvKvCache {\n"
                    "  static void run(int n) {\n    auto launch = [&](auto kernel) { kernel(n); };\n"
                    "    launch(n);\n  }\n};\n",
                ),
            ],
            "jit/csrc/attention/fused_fp8_qkv_kv_cache.cuh::FusedFp8QkvKvCache::run",
            "jit/include/sgl_kernel/utils.cuh::host::LaunchKernel::launch",
            None,
            id="a call of the caller's own variable (a lambda) is not a call of a function of that name",
        ),
    ],
)
def test_what_a_name_reaches(files, caller, callee, provenance):
    assert edges(dict(files)).get((caller, callee)) == provenance


def test_an_alias_is_expanded_only_in_its_class():
    """`static constexpr auto kernel = ...` of one struct is not the kernel another struct, or another file's
    function with a local `kernel`, launches; the edge's site is the line of the use."""
    rmsnorm = (
        "template <int D> __global__ void rmsnorm_warp(float* x) {}\n"
        "template <int D> __global__ void rmsnorm_cta(float* x) {}\n"
        "template <int D>\nstruct RMSNormWarpKernel {\n  static constexpr auto kernel = rmsnorm_warp<D>;\n"
        "  static void run(float* x) { LaunchKernel(1, 32, 0)(kernel, x); }\n};\n"
        "template <int D>\nstruct RMSNormKernel {\n  static constexpr auto kernel = rmsnorm_cta<D>;\n"
        "  static void run(float* x) {\n    LaunchKernel(1, 256, 0)(kernel, x);\n  }\n};\n"
    )
    sparse = (
        "__global__ void sparse_mla_kernel(float* x) {}\n"
        "struct SparseMlaKernel {\n  static void run(float* x) {\n"
        "    auto kernel = &sparse_mla_kernel;\n    kernel<<<1, 128>>>(x);\n  }\n};\n"
    )
    found = edges({"jit/csrc/rmsnorm.cuh": rmsnorm, "jit/csrc/sparse_mla/kernel.cuh": sparse})
    cta = ("jit/csrc/rmsnorm.cuh::RMSNormKernel::run", "jit/csrc/rmsnorm.cuh::rmsnorm_cta")
    assert found[cta] == LAUNCH
    assert ("jit/csrc/rmsnorm.cuh::RMSNormKernel::run", "jit/csrc/rmsnorm.cuh::rmsnorm_warp") not in found
    assert found[("jit/csrc/rmsnorm.cuh::RMSNormWarpKernel::run", "jit/csrc/rmsnorm.cuh::rmsnorm_warp")] == LAUNCH
    sparse_run = "jit/csrc/sparse_mla/kernel.cuh::SparseMlaKernel::run"
    assert {callee for caller, callee in found if caller == sparse_run} == {
        "jit/csrc/sparse_mla/kernel.cuh::sparse_mla_kernel"
    }
    index = CppIndex([parse_cpp("jit/csrc/rmsnorm.cuh", rmsnorm)])
    (site,) = [
        e.site.start for e in cpp_edges(index)[0] if (e.caller.split(":", 1)[1], e.callee.split(":", 1)[1]) == cta
    ]
    assert site == 12


def test_a_definition_elsewhere_links_only_within_its_extension():
    """A function declared in a header and defined in another translation unit links (NAME_MATCH) when both are
    compiled into one extension; never into another extension (the CPU build's `_C` is not the CUDA one)."""
    files = {
        "csrc/ops.h": "void rms_norm(Tensor& out);\n",
        "csrc/layernorm_kernels.cu": "void rms_norm(Tensor& out) {}\n",
        "csrc/cpu/layernorm.cpp": "void rms_norm(Tensor& out) {}\n",
        "csrc/fused.cu": '#include "ops.h"\nvoid fused(Tensor& out) { rms_norm(out); }\n',
    }
    units = {
        "CMakeLists.txt:_C": ["csrc/layernorm_kernels.cu", "csrc/fused.cu"],
        "cmake/cpu_extension.cmake:_C": ["csrc/cpu/layernorm.cpp"],
    }
    found = edges(files, units)
    assert found[("csrc/fused.cu::fused", "csrc/layernorm_kernels.cu::rms_norm")] == NAME_MATCH
    assert ("csrc/fused.cu::fused", "csrc/cpu/layernorm.cpp::rms_norm") not in found
