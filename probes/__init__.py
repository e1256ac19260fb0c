"""Runtime probes for vLLM and SGLang: wrappers on the hooked methods that write typed events to per-process shards.

Standard library only (the engine, and torch for CUDA timing, are imported lazily); never imports atlas. The
engines load it through their general-plugin entry points (`vllm.general_plugins`, `sglang.srt.plugins`), which
call `install_from_env(framework)`: nothing happens unless `ATLAS_PROBES=<spec file>` is set.
"""

from probes.runtime import install_from_env

__all__ = ["install_from_env"]
