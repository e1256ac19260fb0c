"""Per-process buffered shard writer: bounded memory (drop and count when full, never block the engine), a
background flusher, and a flush on exit and on SIGTERM/SIGINT. Whatever was flushed stays readable after a kill."""

from __future__ import annotations

import atexit
import json
import os
import signal
import threading
import time
from collections import deque

from probes.schema import SCHEMA_VERSION


class Shard:
    def __init__(self, path: str, capacity: int = 200_000, interval_s: float = 0.5):
        self.path = path
        self.capacity = capacity
        self.interval_s = interval_s
        self.buffer: deque = deque()  # append (hot path) and popleft (flusher) are atomic
        self.num_events = 0
        self.num_dropped = 0
        self.tick_callbacks: list = []  # run by the flusher before each flush (resolve GPU times, poll control)
        self.stats_callback = None  # -> dict merged into each stats record
        self.encode = _encode  # record -> JSON line(s); the probe sets its own (compact hot-path tuples)
        # Records encoded between GIL hand-backs. Without them a flush holds the GIL for whole switch intervals
        # (5 ms), stalling an engine loop whose steps take 2 ms (measured: bench_probe_cost.py, stall section).
        self.yield_every = 4
        self._lock = threading.Lock()  # serialises flushes, never taken on the hot path
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def add(self, record) -> None:
        """Hot path: append, or count a drop when the buffer is full. Never blocks, never raises."""
        if len(self.buffer) >= self.capacity:
            self.num_dropped += 1
            return
        self.num_events += 1
        self.buffer.append(record)

    def flush(self) -> None:
        with self._lock:
            for tick in self.tick_callbacks:
                try:
                    tick()
                except Exception:  # a failing tick must not stop flushing
                    pass
            records = [self.buffer.popleft() for _ in range(len(self.buffer))]
            lines = []
            for index, record in enumerate(records):
                if index % self.yield_every == self.yield_every - 1:
                    time.sleep(0)  # hand the GIL back: the engine thread waits at most one chunk, not a whole flush
                try:
                    line = self.encode(record)
                except Exception:  # a value JSON cannot take: counted as dropped, the flush goes on
                    self.num_dropped += 1
                    continue
                if line:
                    lines.append(line)
            lines.append(self.encode(self._stats()))  # after encoding: it counts what encoding found
            with open(self.path, "a", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")

    def _stats(self) -> dict:
        stats = {"kind": "stats", "pid": os.getpid(), "ts_ns": time.time_ns(), "num_events": self.num_events,
                 "num_dropped": self.num_dropped, "capture_errors": {}, "disabled_hooks": []}
        if self.stats_callback is not None:
            stats.update(self.stats_callback())
        return stats

    def start(self) -> None:
        """Start the flusher thread and the exit/signal flushes."""
        self._thread = threading.Thread(target=self._run, name="atlas-probe-flush", daemon=True)
        self._thread.start()
        atexit.register(self.close)
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                _chain_signal(sig, self.flush)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._after_fork)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.flush()
            except OSError:
                pass

    def close(self) -> None:
        self._stop.set()
        try:
            self.flush()
        except OSError:
            pass

    def _after_fork(self) -> None:
        """A forked child gets its own shard (the parent's buffer is the parent's)."""
        root, _ = os.path.splitext(self.path)
        self.path = f"{root.rsplit('-', 1)[0]}-forked-{os.getpid()}.jsonl"
        self.buffer, self.num_events, self.num_dropped = deque(), 0, 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="atlas-probe-flush", daemon=True)
        self._thread.start()


def _encode(record: dict) -> str:
    record.setdefault("v", SCHEMA_VERSION)
    return json.dumps(record, separators=(",", ":"), default=str)


def _chain_signal(sig: int, flush) -> None:
    previous = signal.getsignal(sig)

    def handler(signum, frame):
        try:
            flush()
        except Exception:
            pass
        if callable(previous):
            return previous(signum, frame)
        if previous == signal.SIG_IGN:
            return None
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    try:
        signal.signal(sig, handler)
    except (ValueError, OSError):  # not the main thread, or a signal this platform refuses
        pass
