"""The kernel join on recorded names (tests/runtime/data/kernel_names.json says where each name comes from):
demangling, a signature cut to its qualified name, tree kernels matched to their `__global__` and `@triton.jit`
nodes (template instances to their template), library kernels named by their library."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from atlas.model import SymbolKind
from atlas.runtime.kernels import KernelJoin, KernelNode, KernelNodes, Origin
from atlas.runtime.kernels.names import can_demangle, demangle, qualified_name

DATA = json.loads((Path(__file__).parent / "data" / "kernel_names.json").read_text())
FRAMEWORKS = ("vllm", "sglang")


def names(framework: str) -> list[dict]:
    return [row for row in DATA["names"] if row["framework"] == framework]


def node(node_id: str) -> KernelNode:
    """A node as the index holds it, read back from its id (line numbers do not matter to the join)."""
    if node_id.startswith("cuda:"):
        return KernelNode(node_id, SymbolKind.CUDA_KERNEL, node_id[5:].split("::", 1)[0], 1)
    return KernelNode(node_id, SymbolKind.TRITON_KERNEL, node_id.replace(".", "/") + ".py", 1)


# Nodes the join must not pick: a ROCm twin of a CUDA kernel, a second `_fwd_kernel`, a Triton function sharing a
# C++ kernel's name (all three exist at the pins).
DISTRACTORS = {
    "vllm": ("cuda:csrc/rocm/cache_kernels_hip.cu::vllm::reshape_and_cache_flash_kernel",),
    "sglang": (
        "sglang.kernels.ops.attention.prefill_attention._fwd_kernel",
        "sglang.kernels.ops.moe.fused_moe_triton_kernels.act_and_mul_kernel",
    ),
}


def joiner(framework: str) -> KernelJoin:
    expected = {row["expect"] for row in names(framework) if not row["expect"].startswith(("library:", "unknown"))}
    nodes = KernelNodes.of(node(i) for i in sorted(expected | set(DISTRACTORS[framework])))
    return KernelJoin(nodes, DATA["triton_sources"].get(framework, {}))


def label(match) -> str:
    if match.origin == Origin.TREE:
        return match.static_id
    return f"library:{match.library}" if match.origin == Origin.LIBRARY else "unknown"


@pytest.mark.skipif(not can_demangle(), reason="libstdc++ cannot be loaded here")
def test_demangles_like_cxxfilt():
    mangled = [row["name"] for row in DATA["names"] if row["name"].startswith("_Z")]
    assert len(mangled) == 8  # the nvcc stubs
    assert demangle(mangled[0]).startswith("void (anonymous namespace)::")
    if shutil.which("c++filt"):
        filt = subprocess.run(["c++filt"], input="\n".join(mangled), capture_output=True, text=True, check=True)
        assert [demangle(m) for m in mangled] == filt.stdout.splitlines()
    assert demangle("_fwd_kernel") == "_fwd_kernel"
    assert demangle("_Znot a symbol") == "_Znot a symbol"


@pytest.mark.parametrize(
    "signature, expected",
    [
        ("void vllm::rms_norm_kernel<c10::BFloat16, 8, 3, true>(c10::BFloat16*, float, int)", "vllm::rms_norm_kernel"),
        (
            "std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type "
            "vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8, true>(c10::BFloat16*, long)",
            "vllm::fused_add_rms_norm_kernel",
        ),
        ("void (anonymous namespace)::store_kvcache<256l, 256l, 1, false, long>(Params)", "store_kvcache"),
        (
            "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*)",
            "at::native::cunn_SoftMaxForward",
        ),
        ("void Outer<int>::run<float>(float)", "Outer::run"),
        (
            "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
            "ncclDevKernel_AllReduce_Sum_bf16_RING_LL",
        ),
        ("_fwd_grouped_kernel_stage1", "_fwd_grouped_kernel_stage1"),
    ],
)
def test_qualified_name(signature, expected):
    assert qualified_name(signature) == expected


@pytest.mark.skipif(not can_demangle(), reason="libstdc++ cannot be loaded here")
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_every_recorded_name_joins_where_the_data_says(framework):
    join = joiner(framework)
    got = {row["name"]: label(join(row["name"])) for row in names(framework)}
    assert got == {row["name"]: row["expect"] for row in names(framework)}


def test_shared_triton_name_goes_to_the_function_the_engine_compiled():
    join = joiner("sglang")
    match = join("_fwd_kernel")
    assert match.static_id == "sglang.kernels.ops.attention.extend_attention._fwd_kernel"
    assert match.how == "Triton kernel compiled from this function"
    unrecorded = KernelJoin(join.nodes)("_fwd_kernel")  # without the probe's record: both candidates listed
    assert len(unrecorded.candidates) == 2 and unrecorded.how == "Triton kernel name, 2 candidates"


def test_rocm_twin_is_never_picked():
    match = joiner("vllm")(
        "void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)0>(long)"
    )
    assert match.static_id == "cuda:csrc/libtorch_stable/cache_kernels.cu::vllm::reshape_and_cache_flash_kernel"
    assert match.candidates[-1].startswith("cuda:csrc/rocm/")


def test_a_name_is_joined_once():
    join = joiner("vllm")
    first = join("nvjet_tst_64x8_64x16_4x1_v_bz_TNT")
    assert join("nvjet_tst_64x8_64x16_4x1_v_bz_TNT") is first


def test_nodes_round_trip_through_json():
    nodes = joiner("sglang").nodes
    assert KernelNodes.from_json(json.loads(json.dumps(nodes.to_json()))).nodes == nodes.nodes


@pytest.mark.slow
@pytest.mark.skipif(not can_demangle(), reason="libstdc++ cannot be loaded here")
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_the_default_pins_hold_every_expected_node(framework):
    """Against the real index of the default pins: the same ids, the nodes the data names exist there."""
    from atlas.env import settings as load_settings
    from atlas.errors import AtlasError
    from atlas.graph import load_index

    os.environ.setdefault("ATLAS_MIRROR", "/work/shared/sources")
    try:
        index = load_index(load_settings(), framework)
    except AtlasError as exc:
        pytest.skip(f"{framework} not synced: {exc}")
    join = KernelJoin(KernelNodes.from_symbols(index.symbols.values()), DATA["triton_sources"].get(framework, {}))
    rows = names(framework)
    assert {row["name"]: label(join(row["name"])) for row in rows} == {row["name"]: row["expect"] for row in rows}
