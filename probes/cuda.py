"""Optional GPU timing with CUDA events (torch imported only if the engine already did, resolved by the flusher
thread off the hot path) and NVTX ranges for Nsight."""

from __future__ import annotations

import sys
from collections import deque


class CudaTimer:
    def __init__(self, max_pending: int = 4096):
        self.max_pending = max_pending
        self.pending: deque = deque()  # (seq, start event, end event), in stream order
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
        torch = self._cuda()
        if torch is None or len(self.pending) >= self.max_pending:
            return None
        event = torch.cuda.Event(enable_timing=True)
        event.record()
        return event

    def stop(self, seq: int, start) -> None:
        end = self._torch.cuda.Event(enable_timing=True)
        end.record()
        self.pending.append((seq, start, end))

    def resolve(self) -> list[tuple[int, int]]:
        """(seq, GPU nanoseconds) of every finished timing; unfinished ones wait for the next flush."""
        done = []
        while self.pending:
            seq, start, end = self.pending[0]
            if not end.query():
                break
            self.pending.popleft()
            done.append((seq, int(start.elapsed_time(end) * 1e6)))
        return done

    def nvtx_push(self, name: str) -> bool:
        torch = self._cuda()
        if torch is None:
            return False
        torch.cuda.nvtx.range_push(name)
        return True

    def nvtx_pop(self) -> None:
        self._torch.cuda.nvtx.range_pop()
