"""Optional GPU timing with CUDA events (torch imported only if the engine already did, resolved by the flusher
thread off the hot path) and NVTX ranges for Nsight."""

from __future__ import annotations

import sys
from collections import deque


class CudaTimer:
    """Start and end events are made once and reused: making a pair cost the H200 host's engine thread more than
    recording it (results/README.md, run 12)."""

    def __init__(self, max_pending: int = 4096, max_free: int = 64):
        self.max_pending = max_pending
        self.max_free = max_free
        self.pending: deque = deque()  # (seq, (start event, end event)), in stream order
        self.free: deque = deque()  # resolved pairs, ready to record again (the flusher returns them)
        self._torch = None
        self._checked = False

    def _cuda(self):
        if not self._checked:
            self._checked = True
            torch = sys.modules.get("torch")
            try:
                if torch is not None and torch.cuda.is_available():
                    self._torch = torch
            except Exception:
                self._torch = None
        return self._torch

    def start(self):
        """A (start, end) pair with the start recorded on the current stream, or None (no CUDA, or too many
        timings unresolved)."""
        torch = self._cuda()
        if torch is None or len(self.pending) >= self.max_pending:
            return None
        try:
            pair = self.free.pop()
        except IndexError:
            pair = (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
        pair[0].record()
        return pair

    def stop(self, seq: int, pair) -> None:
        pair[1].record()
        self.pending.append((seq, pair))

    def resolve(self) -> list[tuple[int, int]]:
        """(seq, GPU nanoseconds) of every finished timing; unfinished ones wait for the next flush."""
        done = []
        while self.pending:
            seq, pair = self.pending[0]
            if not pair[1].query():
                break
            self.pending.popleft()
            done.append((seq, int(pair[0].elapsed_time(pair[1]) * 1e6)))
            if len(self.free) < self.max_free:
                self.free.append(pair)
        return done

    def nvtx_push(self, name: str) -> bool:
        torch = self._cuda()
        if torch is None:
            return False
        torch.cuda.nvtx.range_push(name)
        return True

    def nvtx_pop(self) -> None:
        self._torch.cuda.nvtx.range_pop()
