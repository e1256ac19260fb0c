"""The kernel layer: Python -> torch ops -> C++ -> `__global__` kernels, and SGLang JIT exports, for one checkout.

`kernel_layer(checkout, manifest, symbols) -> KernelLayer` (symbols, edges, unresolved call sites, stats); the graph
builder calls it after the Python layer. Node ids (stable; they never collide with dotted Python ids):

- `op:<namespace>::<op>`            a torch op registered in the tree (C++ `TORCH_LIBRARY*`, TORCH_EXTENSION_NAME
                                    being the CMake target that compiles the file, or Python
                                    `direct_register_custom_op` / `torch.library.custom_op`), e.g.
                                    `op:_C_cache_ops::reshape_and_cache_flash`
- `ext:<namespace>.<op>`            a torch op nothing in the tree registers (`ext:sgl_kernel.rmsnorm`, `ext:aten.mm`)
- `cpp:<path>::<qualified name>`    a C++ function, e.g. `cpp:csrc/cache_kernels.cu::reshape_and_cache_flash`
- `cuda:<path>::<qualified name>`   a `__global__` kernel, e.g. `cuda:csrc/cache_kernels.cu::vllm::..._kernel`
- `jit:<marker>::<export>`          a function a SGLang `load_jit(marker, ...)` exports to Python (see jit.py)

Edges: Python function -> op it calls or keeps (STATIC; an op only compared against is none), op -> C++ impl or
Python function (REGISTRATION), C++ -> C++ by C++'s lookup rules (atlas.parse.kernels.lookup: STATIC when the callee
is defined in the caller's file or the files it includes, NAME_MATCH when in another file linked into the same
extension), C++ -> kernel (LAUNCH; a kernel a function only names and returns is the LAUNCH of its caller that
launches the pointer, NAME_MATCH of the function where no such caller is found), loader
-> JIT export -> C++ wrapper (REGISTRATION), caller of `.export(...)` -> JIT export (NAME_MATCH).
Triton launches are the Python layer's.
"""

from atlas.parse.kernels.layer import KernelLayer, kernel_layer, reaches_kernel
from atlas.parse.kernels.report import reason, unresolved_report

__all__ = ["KernelLayer", "kernel_layer", "reaches_kernel", "reason", "unresolved_report"]
