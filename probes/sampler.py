"""A sampling profiler for what the probes cost (spec `sample_hz`, diagnostics only): a thread that, `hz` times a
second, reads every other thread's Python stack (sys._current_frames) and counts the function and line on top
(self) and each function on the stack once (inclusive). The probe drains the counts at each flush into a "samples"
record stamped with the control file's state, so that rounds with the probes on, off and absent can be compared
function by function. It costs the same in every state (it runs whatever the state is).
Blind spot: the sampler thread runs only when it gets the GIL, so it sees another thread where that thread lets the
GIL go (C calls that release it: CUDA launches, copies, waits), never inside pure-Python code that keeps it, such as
the probe's own wrappers (results/README.md, run 11). For the probe's own cost use its `own_ns` figures."""

from __future__ import annotations

import sys
import threading
from collections import Counter

from probes.hooks import monotonic_ns
from probes.records import record

MAX_DEPTH = 64


class Sampler:
    def __init__(self, hz: float):
        self.interval = 1.0 / hz
        self.hz = hz
        self.self_counts: Counter = Counter()  # (thread, file, function, line) -> samples on top of the stack
        self.incl_counts: Counter = Counter()  # (thread, file, function) -> samples anywhere on the stack
        self.num_samples = 0
        self.skip: set[int] = set()  # idents of the probe's own threads
        self._lock = threading.Lock()  # a sample and a drain never interleave
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, *own_threads: threading.Thread | None) -> None:
        self._thread = threading.Thread(target=self._run, name="atlas-probe-sampler", daemon=True)
        self._thread.start()
        self.skip = {t.ident for t in (*own_threads, self._thread) if t is not None and t.ident is not None}

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def sample(self) -> None:
        """One sample of every thread but the probe's own."""
        with self._lock:
            self._sample()

    def _sample(self) -> None:
        self.num_samples += 1
        for ident, frame in sys._current_frames().items():
            if ident in self.skip:
                continue
            code = frame.f_code
            self.self_counts[(ident, code.co_filename, code.co_name, frame.f_lineno)] += 1
            seen = set()
            depth = 0
            while frame is not None and depth < MAX_DEPTH:
                code = frame.f_code
                if code not in seen:
                    seen.add(code)
                    self.incl_counts[(ident, code.co_filename, code.co_name)] += 1
                frame = frame.f_back
                depth += 1

    def drain(self) -> tuple[int, list, list]:
        """(samples, self rows, inclusive rows) since the last drain, as plain lists; the counters start over."""
        with self._lock:
            taken, self.num_samples = self.num_samples, 0
            own, self.self_counts = self.self_counts, Counter()
            incl, self.incl_counts = self.incl_counts, Counter()
        return taken, [[*k, n] for k, n in own.items()], [[*k, n] for k, n in incl.items()]


def samples_record(sampler: Sampler, pid: int, state: str) -> dict | None:
    """The stacks sampled since the last drain, as one "samples" record under the probe state they ran in (a drain
    that straddles a state change gives its samples to the new state: a fraction of a flush interval)."""
    taken, own, incl = sampler.drain()
    if not taken:
        return None
    return record("samples", pid, mono_ns=monotonic_ns(), state=state, hz=sampler.hz, n=taken, self=own, incl=incl)
