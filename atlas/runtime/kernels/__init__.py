"""GPU kernels at runtime: names as the profilers print them joined to the static kernel nodes of the pinned tree
or to the library that ships them (`join`), the probe's kernel records read back per engine step, CUDA-graph
replays included (`steps`), and their Perfetto tracks (`perfetto`)."""

from atlas.runtime.kernels.join import KernelJoin, KernelMatch, KernelNode, KernelNodes, Origin

__all__ = ["KernelJoin", "KernelMatch", "KernelNode", "KernelNodes", "Origin"]
