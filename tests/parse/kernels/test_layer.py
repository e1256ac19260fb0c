"""atlas.parse.kernels.kernel_layer on a fixture tree: Python -> op -> C++ impl -> __global__, JIT, unresolved."""

from pathlib import Path

from gitfixtures import git

from atlas.model import Pin, Provenance, Span, Symbol, SymbolKind
from atlas.parse.kernels import kernel_layer, unresolved_report
from atlas.parse.kernels.cmake import extension_units
from atlas.sources import Checkout, load_manifest

FILES = {
    "csrc/torch_bindings.cpp": "STABLE_TORCH_LIBRARY_FRAGMENT(_C_cache_ops, ops) {\n"
    '  ops.def("write(Tensor k, Tensor! c) -> ()");\n'
    '  ops.def("lost(Tensor k) -> ()");\n}\nSTABLE_TORCH_LIBRARY_IMPL(_C_cache_ops, CUDA, ops) {\n'
    '  ops.impl("write", TORCH_BOX(&write));\n  ops.impl("lost", TORCH_BOX(&nowhere));\n}\n',
    "csrc/cache.cu": "namespace vllm {\ntemplate <typename T>\n__global__ void write_kernel(T* c) {}\n}\n"
    "#define CALL(T) vllm::write_kernel<T><<<grid, block, 0, stream>>>(ptr);\n"
    "static void helper(int n) { DISPATCH(n, CALL); }\nvoid write(Tensor& k, Tensor& c) { helper(1); }\n",
    "pkg/ops.py": "import torch\n\ndef write(k, c):\n    torch.ops._C_cache_ops.write(k, c)\n"
    "    torch.ops._C_cache_ops.gone(k)\n"
    "    torch.ops.sgl_kernel.rmsnorm(k)\n",
    "pkg/jit/csrc/store.cuh": "template <int B> __global__ void store_kernel(int x) {}\n"
    "template <int B> struct Store {\n  static void run(int x) { LaunchKernel(1, 2, d)(store_kernel<B>, x); }\n};\n",
    "pkg/store.py": 'def _module(b):\n    return load_jit("store", cuda_files=["store.cuh"], '
    'cuda_wrappers=[("store", f"Store<{b}>::run")])\n\ndef store(x):\n    _module(4).store(x)\n',
}
MANIFEST = (
    "schema: 1\nname: fixture\nurl: https://example.invalid/fixture\ninclude: [pkg/**, csrc/**]\n"
    "pins:\n  default:\n    ref: v1\n"
)


SYMBOLS = [
    ("pkg.ops.write", "pkg/ops.py", 3, 6),
    ("pkg.store._module", "pkg/store.py", 1, 2),
    ("pkg.store.store", "pkg/store.py", 4, 5),
]


def fixture(tmp_path: Path, files: dict = FILES, functions: list = SYMBOLS):
    repo = tmp_path / "repo"
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    (tmp_path / "fixture.yaml").write_text(MANIFEST)
    manifest = load_manifest(tmp_path / "fixture.yaml")
    checkout = Checkout(Pin("fixture", "v1", "0" * 40, manifest.url), "default", repo, "mirror", False)
    symbols = {sid: Symbol(sid, SymbolKind.FUNCTION, Span(path, a, b)) for sid, path, a, b in functions}
    return kernel_layer(checkout, manifest, symbols)


def test_the_chain_from_python_to_the_kernel(tmp_path):
    layer = fixture(tmp_path)
    edges = {(e.caller, e.callee): e.provenance for e in layer.edges}
    kernel = "cuda:csrc/cache.cu::vllm::write_kernel"
    assert edges[("pkg.ops.write", "op:_C_cache_ops::write")] == Provenance.STATIC
    assert edges[("op:_C_cache_ops::write", "cpp:csrc/cache.cu::write")] == Provenance.REGISTRATION
    assert edges[("cpp:csrc/cache.cu::write", "cpp:csrc/cache.cu::helper")] == Provenance.STATIC
    assert edges[("cpp:csrc/cache.cu::helper", kernel)] == Provenance.LAUNCH
    assert edges[("pkg.ops.write", "ext:sgl_kernel.rmsnorm")] == Provenance.STATIC
    kinds = {s.id: s.kind for s in layer.symbols}
    assert kinds[kernel] == SymbolKind.CUDA_KERNEL and kinds["ext:sgl_kernel.rmsnorm"] == SymbolKind.EXTERNAL
    assert layer.stats["cuda_ops"] == 2 and layer.stats["cuda_ops_reaching_kernel"] == 1


def test_the_jit_chain(tmp_path):
    edges = {(e.caller, e.callee): e.provenance for e in fixture(tmp_path).edges}
    assert edges[("pkg.store._module", "jit:store::store")] == Provenance.REGISTRATION
    assert edges[("jit:store::store", "cpp:pkg/jit/csrc/store.cuh::Store::run")] == Provenance.REGISTRATION
    assert (
        edges[("cpp:pkg/jit/csrc/store.cuh::Store::run", "cuda:pkg/jit/csrc/store.cuh::store_kernel")]
        == Provenance.LAUNCH
    )
    assert edges[("pkg.store.store", "jit:store::store")] == Provenance.NAME_MATCH


def test_what_cannot_be_linked_is_listed(tmp_path):
    rows = {(r["kind"], r["expression"]) for r in unresolved_report(fixture(tmp_path))}
    assert rows == {
        ("op not registered in the tree", "torch.ops._C_cache_ops.gone"),
        ("registered function not found", "CUDA impl nowhere"),
    }


def test_registration_styles_of_vllm_v0_33(tmp_path):
    """TORCH_EXTENSION_NAME is the CMake target that compiles the file (csrc/rocm/quickreduce is in _C, not
    _rocm_C); `@torch.library.custom_op("vllm::op")` registers the function it decorates."""
    files = {
        "CMakeLists.txt": 'set(VLLM_EXT_SRC\n  "csrc/rocm/quickreduce/torch_bindings.cpp")\n'
        "define_extension_target(_C DESTINATION vllm SOURCES ${VLLM_EXT_SRC} WITH_SOABI)\n",
        "csrc/rocm/quickreduce/torch_bindings.cpp": "int64_t qr_max_size() { return 1; }\n"
        "TORCH_LIBRARY_FRAGMENT(CONCAT(TORCH_EXTENSION_NAME, _custom_ar), custom_ar) {\n"
        '  custom_ar.def("qr_max_size", &qr_max_size);\n}\n',
        "pkg/ops.py": "import torch\n\ndef size():\n    return torch.ops._C_custom_ar.qr_max_size()\n\n"
        '@torch.library.custom_op("vllm::mm_fp4", mutates_args=[])\ndef mm_fp4(a):\n    return a\n\n'
        "def use(a):\n    return torch.ops.vllm.mm_fp4(a)\n",
    }
    layer = fixture(
        tmp_path,
        files,
        [
            ("pkg.ops.size", "pkg/ops.py", 3, 4),
            ("pkg.ops.mm_fp4", "pkg/ops.py", 6, 8),
            ("pkg.ops.use", "pkg/ops.py", 10, 11),
        ],
    )
    edges = {(e.caller, e.callee): e.provenance for e in layer.edges}
    assert edges[("pkg.ops.size", "op:_C_custom_ar::qr_max_size")] == Provenance.STATIC
    assert (
        edges[("op:_C_custom_ar::qr_max_size", "cpp:csrc/rocm/quickreduce/torch_bindings.cpp::qr_max_size")]
        == Provenance.REGISTRATION
    )
    assert edges[("pkg.ops.use", "op:vllm::mm_fp4")] == Provenance.STATIC
    assert edges[("op:vllm::mm_fp4", "pkg.ops.mm_fp4")] == Provenance.REGISTRATION
    assert not layer.unresolved


def test_two_loads_exporting_a_name_are_two_nodes(tmp_path):
    """SGLang's dsv4 `elementwise.py`: loads whose markers are computed (`make_name(...)`) both export `forward`,
    each another C++ function; each export is its own node, so one loader never reaches the other's kernel."""
    files = {
        "pkg/jit/csrc/rope.cuh": "struct FusedQKRopeKernel {\n  static void forward(int x) {}\n};\n",
        "pkg/jit/csrc/quant.cuh": "struct FusedQuantKernel {\n  static void forward(int x) {}\n};\n",
        "pkg/elementwise.py": "def _rope():\n"
        '    return load_jit(make_name("fused_rope"), cuda_files=["rope.cuh"],\n'
        '                    cuda_wrappers=[("forward", "FusedQKRopeKernel::forward")])\n'
        "def _quant():\n"
        '    return load_jit(make_name("quant"), cuda_files=["quant.cuh"],\n'
        '                    cuda_wrappers=[("forward", "FusedQuantKernel::forward")])\n',
    }
    symbols = [
        ("pkg.elementwise._rope", "pkg/elementwise.py", 1, 3),
        ("pkg.elementwise._quant", "pkg/elementwise.py", 4, 6),
    ]
    edges = {(e.caller, e.callee) for e in fixture(tmp_path, files, symbols).edges}
    assert ("pkg.elementwise._rope", "jit:fused_rope::forward") in edges
    assert ("pkg.elementwise._quant", "jit:quant::forward") in edges
    assert ("jit:quant::forward", "cpp:pkg/jit/csrc/quant.cuh::FusedQuantKernel::forward") in edges
    assert ("jit:fused_rope::forward", "cpp:pkg/jit/csrc/quant.cuh::FusedQuantKernel::forward") not in edges


def test_each_cmake_file_defines_its_own_extensions():
    """The CPU build's `_C` (cmake/cpu_extension.cmake) and the CUDA build's (CMakeLists.txt) are two units."""
    files = [
        (
            "CMakeLists.txt",
            'set(VLLM_EXT_SRC "csrc/cache_kernels.cu")\ndefine_extension_target(_C SOURCES ${VLLM_EXT_SRC})\n',
        ),
        (
            "cmake/cpu_extension.cmake",
            'set(CPU_SRC "csrc/cpu/shm.cpp")\ndefine_extension_target(_C SOURCES ${CPU_SRC})\n',
        ),
    ]
    assert extension_units(files) == {
        "CMakeLists.txt:_C": ["csrc/cache_kernels.cu"],
        "cmake/cpu_extension.cmake:_C": ["csrc/cpu/shm.cpp"],
    }


def test_a_kernel_a_function_only_hands_out_is_launched_by_the_caller_that_launches_the_pointer(tmp_path):
    files = {
        "csrc/gemm.cu": "typedef void (*fp_kernel)(int);\n"
        "template <bool A> __global__ void gemm_a_kernel(int x) {}\n"
        "template <bool A> __global__ void gemm_b_kernel(int x) {}\n"
        "fp_kernel pick_kernel(int bits) {\n  if (bits == 4) return gemm_a_kernel<true>;\n"
        "  return gemm_b_kernel<true>;\n}\n"
        "void gemm_part(int x, int bits) {\n  fp_kernel kernel = pick_kernel(bits);\n"
        "  kernel<<<1, 1, 0, 0>>>(x);\n}\n"
        "fp_kernel table_entry(int bits) { return gemm_a_kernel<false>; }\n",
    }
    layer = fixture(tmp_path, files, [])
    edges = {(e.caller, e.callee): e.provenance for e in layer.edges}
    part, pick = "cpp:csrc/gemm.cu::gemm_part", "cpp:csrc/gemm.cu::pick_kernel"
    a, b = "cuda:csrc/gemm.cu::gemm_a_kernel", "cuda:csrc/gemm.cu::gemm_b_kernel"
    assert edges[(part, pick)] == Provenance.STATIC
    assert edges[(part, a)] == Provenance.LAUNCH and edges[(part, b)] == Provenance.LAUNCH
    assert (pick, a) not in edges and (pick, b) not in edges  # it only returns their pointers
    assert edges[("cpp:csrc/gemm.cu::table_entry", a)] == Provenance.NAME_MATCH  # no caller launches what it returns
    assert not [site for site in layer.unresolved if site.caller == part]
