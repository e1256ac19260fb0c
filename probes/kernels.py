"""GPU kernels per engine step, inside the engine (spec `kernels`, `atlas trace --kernels`). Standard library at
import; torch and triton are used only once the engine has imported them. Without the spec key this module is never
imported: kernels off costs nothing.

On: the flusher thread switches torch.profiler's CUDA activity (CUPTI, through kineto) on for `window_s` every
`every_s` seconds and, when a window ends, writes its GPU activities (kernels, memcpy, memset: name, stream, start,
duration, CUPTI correlation id) and the CUDA API calls that launched them (cudaLaunchKernel, cudaGraphLaunch, ...:
the correlation id ties each kernel to its launch, so every kernel of one CUDA-graph replay to its cudaGraphLaunch)
as one "kernels" record, with the window's span and what reading it cost. atlas assigns the kernels to the engine's
steps offline (atlas.runtime.kernels.steps). A Triton compile hook writes, once per compiled kernel, the
`@triton.jit` function it came from (a "triton" record): launch names alone do not tell apart the tree's functions
that share a name."""

from __future__ import annotations

import importlib
import os
import sys
from time import monotonic_ns, time_ns
from typing import Any

from probes.records import record

EVERY_S = 2.0
WINDOW_S = 0.25
LAUNCHES = (
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "cuLaunchKernel",
    "cuLaunchKernelEx",
    "cudaGraphLaunch",
    "cuGraphLaunch",
    "cudaLaunchCooperativeKernel",
    "cudaMemcpyAsync",
    "cudaMemsetAsync",
)


class KernelCapture:
    """One per engine process; `tick` runs on the flusher thread at every flush."""

    def __init__(self, shard: Any, options: dict, is_stepping: Any = None) -> None:
        self.shard = shard
        # Windows open only once the engine runs steps: none during start-up, where CUDA graphs are captured (a
        # profiler started from another thread in the middle of a capture could break it) and no step is there
        # to assign kernels to.
        self.is_stepping = is_stepping or (lambda: True)
        self.has_stepped = False
        self.every_ns = int(float(options.get("every_s", EVERY_S)) * 1e9)
        self.window_ns = int(float(options.get("window_s", WINDOW_S)) * 1e9)
        self.profile: Any = None  # the running torch.profiler.profile, during a window
        self.window = 0
        self.begin_ns = 0
        self.next_ns = monotonic_ns() + self.every_ns
        self.errors = 0
        self.last_error = ""

    def tick(self) -> None:
        now = monotonic_ns()
        if not self.has_stepped:
            self.has_stepped = bool(self.is_stepping())
            if not self.has_stepped:
                return
        if self.profile is None and now >= self.next_ns:
            self.start(now)
        elif self.profile is not None and now >= self.begin_ns + self.window_ns:
            self.stop()
            self.next_ns = monotonic_ns() + self.every_ns

    def start(self, now: int) -> None:
        torch = sys.modules.get("torch")
        try:
            if torch is None or not torch.cuda.is_available() or not torch.cuda.is_initialized():
                return  # the engine has not set up CUDA yet: try at the next window
            profiler = importlib.import_module("torch.profiler")  # torch is loaded: reached, not imported anew
            self.profile = profiler.profile(activities=[profiler.ProfilerActivity.CUDA])
            self.profile.start()
            self.begin_ns = monotonic_ns()
        except Exception as exc:
            self.fail(exc)
            self.profile = None

    def stop(self) -> None:
        """End the window and write what it saw (times on this process's monotonic clock)."""
        profile, self.profile = self.profile, None
        stopped = monotonic_ns()
        try:
            profile.stop()
            offset = time_ns() - monotonic_ns()  # kineto's times are wall-clock nanoseconds
            activities = window_record(profile.profiler.kineto_results.events(), offset)
        except Exception as exc:
            self.fail(exc)
            return
        self.window += 1
        self.shard.add(
            record(
                "kernels",
                os.getpid(),
                window=self.window,
                begin_ns=self.begin_ns,
                end_ns=stopped,
                cost_ns=monotonic_ns() - stopped,
                **activities,
            )
        )

    def fail(self, exc: BaseException) -> None:
        self.errors += 1
        self.last_error = f"{type(exc).__name__}: {exc}"

    def stats(self) -> dict:
        return {"kernel_windows": self.window, "kernel_errors": self.errors, "kernel_error": self.last_error}


def window_record(events: Any, offset_ns: int) -> dict:
    """kineto's events of one window -> {"names", "gpu": [[name, stream, device, start, dur, correlation]],
    "launch": [[name, tid, start, dur, correlation]]}, names as indexes into "names", times monotonic."""
    names: dict[str, int] = {}
    gpu: list[list[int]] = []
    launch: list[list[int]] = []
    for e in events:
        name = e.name()
        on_gpu = "CUDA" in str(e.device_type())
        if not on_gpu and not is_launch(name):
            continue
        index = names.setdefault(name, len(names))
        start = int(e.start_ns()) - offset_ns
        correlation = int(e.correlation_id())
        if on_gpu:
            gpu.append(
                [index, int(e.device_resource_id()), int(e.device_index()), start, int(e.duration_ns()), correlation]
            )
        else:
            launch.append([index, int(e.start_thread_id()), start, int(e.duration_ns()), correlation])
    return {"names": list(names), "gpu": gpu, "launch": launch}


def is_launch(name: str) -> bool:
    """A CUDA runtime or driver call that puts work on the GPU (LAUNCHES, or one named like them, with or without a
    version suffix: `cudaLaunchKernelExC_v11060`)."""
    return name in LAUNCHES or (name.startswith("cu") and ("Launch" in name or name.startswith(LAUNCHES[-2:])))


def triton_hook(shard: Any) -> Any:
    """A Triton post-compile hook writing each compiled kernel's function once (chaining the hook before it), or
    None where this Triton has no runtime knobs."""
    try:
        knobs = importlib.import_module("triton.knobs")  # only with kernels on, as the hook must precede compiles
    except Exception:
        return None
    previous = knobs.runtime.jit_post_compile_hook
    seen: set[tuple[Any, Any]] = set()

    def hook(*args: Any, **kwargs: Any) -> Any:
        try:
            info = kwargs.get("fn")
            fn = getattr(getattr(info, "jit_function", None), "fn", None)
            name = getattr(info, "name", None) or getattr(fn, "__name__", "")
            module = getattr(info, "module", None) or getattr(fn, "__module__", "")
            if (module, name) not in seen:
                seen.add((module, name))
                code = getattr(fn, "__code__", None)
                shard.add(
                    record(
                        "triton",
                        os.getpid(),
                        name=name,
                        module=module,
                        qualname=getattr(fn, "__qualname__", name),
                        file=getattr(code, "co_filename", ""),
                        line=getattr(code, "co_firstlineno", 0),
                    )
                )
        except Exception:
            pass
        return previous(*args, **kwargs) if previous is not None else None

    knobs.runtime.jit_post_compile_hook = hook
    return hook


def install(probe: Any) -> KernelCapture:
    """Set kernel capture up in this engine process (probes.runtime.install calls it when the spec asks)."""
    capture = KernelCapture(probe.shard, probe.spec.get("kernels") or {}, lambda: probe.step > 0)
    probe.shard.tick_callbacks.append(capture.tick)
    triton_hook(probe.shard)
    return capture
