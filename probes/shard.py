"""Per-process buffered shard writer: bounded memory (drop and count when full, never block the engine), a
background flusher writing marshal frames (probes.records), and a flush on exit and on SIGTERM/SIGINT. Whatever was
flushed stays readable after a kill."""

from __future__ import annotations

import atexit
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable

from probes.records import encode_frame, frame, record
from probes.schema import SHARD_SUFFIX


class Shard:
    def __init__(self, path: str, capacity: int = 200_000, interval_s: float = 0.5):
        self.path = path
        self.capacity = capacity
        self.interval_s = interval_s
        self.buffer: deque = deque()  # append (hot path) and popleft (flusher) are atomic; wrappers hold it
        self.static: deque = deque()  # shard-only records (hooks' static fields), written before the rows
        self.num_events = 0  # records taken from the buffer by flushes
        self.num_dropped = 0
        self.num_converted = 0  # records written through the slow path (values marshal cannot take)
        self.tick_callbacks: list = []  # run by the flusher before each flush (resolve GPU times, poll control)
        self.stats_callback: Callable[[], dict] | None = None  # -> dict merged into each stats record
        self.prepare: Callable[[list], list[dict]] | None = (
            None  # records -> records to write before them (the probe's call-site file records)
        )
        # Records per frame: marshal holds the GIL for a whole frame (~0.5 us a record), and the flusher hands the
        # GIL back between frames, so the engine thread waits at most one frame (bench_probe_cost.py, stall lines).
        self.frame_records = 64
        # Rows held between flushes are objects the engine's garbage collector scans again and again (and vLLM
        # freezes its own heap, so they are most of what it scans): the row that makes `flush_rows` wakes the
        # flusher, whatever the interval, so a few dozen steps' rows wait at most (bench_probe_cost.py, "of which
        # garbage collection").
        self.wake_rows = 256
        self.flush_rows = self.wake_rows  # -1: the hot path never wakes the flusher (control option wake=0)
        self.is_writing = True  # False (control option write=0): rows wait in memory, ticks and stats go on
        self.wake = threading.Event()
        self._last_stats: dict | None = None
        self._lock = threading.Lock()  # serialises flushes, never taken on the hot path
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def add(self, record) -> None:
        """Append, or count a drop when the buffer is full. Never blocks, never raises. (The call wrappers append
        their rows to `buffer` themselves, the same way.)"""
        size = len(self.buffer)
        if size >= self.capacity:
            self.num_dropped += 1
            return
        self.buffer.append(record)
        if size == self.flush_rows:
            self.wake.set()

    def add_static(self, record: dict) -> None:
        """A shard-only record (a hook's static fields): a few per process, never dropped, not an event."""
        self.static.append(record)

    def flush(self, full: bool = True, last: bool = False) -> None:
        """Write what the buffer holds (while writing is on, or `last`) as frames and, in a full flush, run the
        ticks first and add a stats record if anything changed; one append. Rows are taken, encoded and let go one
        frame at a time, handing the GIL back between frames: the engine thread waits at most one frame's work
        (bench_probe_cost.py, stall lines)."""
        with self._lock:
            if full:
                for tick in self.tick_callbacks:
                    try:
                        tick()
                    except Exception:  # a failing tick must not stop flushing
                        pass
            static, buffer, size = self.static, self.buffer, self.frame_records
            frames = [encode_frame([static.popleft() for _ in range(len(static))])] if static else []
            left = len(buffer) if self.is_writing or last else 0
            self.num_events += left
            while left:
                rows = [buffer.popleft() for _ in range(min(left, size))]
                left -= len(rows)
                if self.prepare is not None:
                    rows[:0] = self.prepare(rows)
                data, converted = frame(rows)
                frames.append(data)
                self.num_converted += converted
                del rows
                time.sleep(0)
            if full:
                stats = self._stats()
                if frames or stats != self._last_stats:
                    self._last_stats = stats
                    frames.append(encode_frame([dict(stats, ts_ns=time.time_ns())]))
            if frames:
                with open(self.path, "ab") as f:
                    f.write(b"".join(frames))

    def _stats(self) -> dict:
        stats = record(
            "stats",
            os.getpid(),
            num_events=self.num_events,
            num_dropped=self.num_dropped,
            converted_records=self.num_converted,
            capture_errors={},
            disabled_hooks=[],
        )
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
                _chain_signal(sig, self.flush_all)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._after_fork)

    def _run(self) -> None:
        """Every interval a full flush (ticks, rows, stats); in between, the rows alone whenever `flush_rows` wait."""
        due = time.monotonic() + self.interval_s
        while not self._stop.is_set():
            self.wake.wait(max(due - time.monotonic(), 0.0))
            self.wake.clear()
            full = time.monotonic() >= due
            if full:
                due = time.monotonic() + self.interval_s
            try:
                self.flush(full)
            except OSError:
                pass

    def flush_all(self) -> None:
        """Everything the buffer holds, writing paused or not (exit and signals)."""
        self.flush(last=True)

    def close(self) -> None:
        self._stop.set()
        self.wake.set()
        try:
            self.flush_all()
        except OSError:
            pass

    def _after_fork(self) -> None:
        """A forked child gets its own shard (the parent's buffer is the parent's)."""
        root = self.path[: -len(SHARD_SUFFIX)] if self.path.endswith(SHARD_SUFFIX) else self.path
        self.path = f"{root.rsplit('-', 1)[0]}-forked-{os.getpid()}{SHARD_SUFFIX}"
        self.buffer.clear()  # the same deque: the wrappers hold it
        self.static.clear()
        self.num_events, self.num_dropped, self.num_converted, self._last_stats = 0, 0, 0, None
        self.wake = threading.Event()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="atlas-probe-flush", daemon=True)
        self._thread.start()


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
