"""What the probe's own cost shows in (spec `diagnostics`), sampled at each full flush: the process's CPU time, the
flusher thread's and the engine threads', and garbage collection."""

from __future__ import annotations

import gc
import os
import threading
import time

from probes.hooks import hook_threads, monotonic_ns


class GcPauses:
    """Garbage-collection pauses per generation (a gc.callbacks entry, with spec `diagnostics`)."""

    def __init__(self) -> None:
        self.ns = [0, 0, 0]
        self._start = 0

    def on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = monotonic_ns()
        elif self._start:
            self.ns[info["generation"]] += monotonic_ns() - self._start


def sample(flusher_thread, gc_ns: list[int]) -> dict:
    """The process's CPU time, the flusher thread's (`flusher_thread`) and the hooked threads' scheduler figures,
    collections per GC generation and their pauses (`gc_ns`, Probe.on_gc), on the monotonic clock."""
    flusher = getattr(flusher_thread, "native_id", None) or threading.get_native_id()
    threads = {tid: _schedstat(tid) for tid in set(hook_threads().values()) | {flusher}}
    return {
        "mono_ns": monotonic_ns(),
        "cpu_ns": time.process_time_ns(),
        "flusher_cpu_ns": threads[flusher][0],
        "flusher_tid": flusher,
        "gc": [g["collections"] for g in gc.get_stats()],
        "gc_ns": list(gc_ns),
        "threads": threads,
        "load": os.getloadavg()[0],
    }


def _schedstat(tid: int) -> list[int]:
    """[ns on a CPU, ns waiting for one, time slices, the CPU it last ran on] of a thread of this process (Linux
    /proc; zeros elsewhere): whether the probe's cost shows as more work, or as waiting for a CPU."""
    try:
        with open(f"/proc/self/task/{tid}/schedstat", encoding="ascii") as f:
            run_ns, wait_ns, slices = map(int, f.read().split()[:3])
        with open(f"/proc/self/task/{tid}/stat", encoding="ascii") as f:
            cpu = int(f.read().rsplit(")", 1)[1].split()[36])
    except (OSError, ValueError, IndexError):
        return [0, 0, 0, -1]
    return [run_ns, wait_ns, slices, cpu]
