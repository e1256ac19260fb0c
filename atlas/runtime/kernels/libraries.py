"""Kernels that come from libraries outside the pinned trees, named by the library that ships them. Each rule reads
the demangled signature (or the bare name a kernel without C++ linkage has); the first rule that matches names the
library. The patterns follow the libraries' own naming: cuBLAS's `nvjet_*` and `sm90_xmma_gemm_*` kernels, NCCL's
`ncclDevKernel_*`, FlashAttention's `flash::` templates inside `cutlass::device_kernel`, PyTorch's `at::native::`
templates, the `triton_{poi,red,per,...}_fused_*` kernels torch.compile (Inductor) generates, and the bare `triton_` its
generated source names a kernel when names are not made unique (seen on the H200 with vLLM 0.26.0 compiled)."""

from __future__ import annotations

import re

# (library, pattern on the demangled signature); order matters: FlashAttention and FlashInfer instantiate CUTLASS
# templates, and cuBLAS ships CUTLASS-named kernels, so the more specific rules come first.
LIBRARIES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (library, re.compile(pattern))
    for library, pattern in (
        ("CUDA memcpy/memset", r"^(Memcpy|Memset) "),
        ("NCCL", r"^(void )?nccl(Dev)?Kernel_|^ncclKernel|\bncclDevKernel"),
        ("Inductor (torch.compile)", r"^triton_((poi|red|per|tem|for|mm|bmm|spl|unk)_|$)"),
        ("FlashAttention", r"\bflash::|^(void )?flash_(fwd|bwd)_|\bpytorch_flash::"),
        ("FlashInfer", r"\bflashinfer::"),
        ("FlashMLA", r"\bflash_mla\b|^(void )?flash_fwd_splitkv_mla"),
        ("DeepGEMM", r"\bdeep_gemm::"),
        ("cuDNN", r"\bcudnn|^(void )?sm\d+_xmma_(fprop|dgrad|wgrad)|^(void )?xmma_cudnn"),
        (
            "cuBLAS",
            r"^nvjet_|^(void )?sm\d+_xmma_gemm|^(void )?(ampere|turing|volta|maxwell|sm\d+)_(s|h|bf16|fp16)?"
            r"\w*gemm|\bcublas|\bgemv2[NT]_kernel|\bgemvx?::kernel|\bgemmk1_kernel|\bsplitKreduce_kernel|"
            r"\bcutlass_\d+_(wmma_)?tensorop_|\bdot_kernel<|\breduce_1Block_kernel",
        ),
        ("CUTLASS", r"\bcutlass::|\bcute::"),
        ("CUB (CCCL)", r"\bcub::|\bthrust::"),
        ("PyTorch (ATen)", r"\bat::(native|cuda)::|\bat_cuda_detail::|\bc10::cuda::"),
    )
)


def library_of(signature: str) -> str:
    """The library whose naming the kernel follows, or '' when none does."""
    for library, pattern in LIBRARIES:
        if pattern.search(signature):
            return library
    return ""
