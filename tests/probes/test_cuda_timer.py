"""CUDA-event timing (probes/cuda.py) against a stand-in for torch.cuda: pairs of events are made once and reused
after the flusher resolved them; unfinished timings wait; no CUDA, no timing."""

from __future__ import annotations

import sys
import types

from probes.cuda import CudaTimer


class Event:
    made = 0
    clock = 0.0  # the stand-in GPU's time, ms

    def __init__(self, enable_timing: bool = False):
        assert enable_timing
        Event.made += 1
        self.at = None

    def record(self):
        self.at = None  # recorded: done once the stand-in GPU reaches it (finish())

    def finish(self):
        self.at = Event.clock

    def query(self) -> bool:
        return self.at is not None

    def elapsed_time(self, end) -> float:
        return end.at - self.at


def fake_torch(available: bool = True):
    cuda = types.SimpleNamespace(Event=Event, is_available=lambda: available)
    return types.SimpleNamespace(cuda=cuda)


def test_pairs_are_reused_once_resolved(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", fake_torch())
    Event.made = 0
    timer = CudaTimer()
    first = timer.start()
    timer.stop(1, first)
    second = timer.start()
    timer.stop(2, second)
    assert Event.made == 4 and first is not second
    first[0].finish()
    Event.clock = 2.5
    first[1].finish()
    assert timer.resolve() == [(1, 2_500_000)]  # the second is still running: it waits
    third = timer.start()
    assert third is first and Event.made == 4  # the resolved pair records again, nothing new made
    second[0].finish(), second[1].finish()
    timer.stop(3, third)
    assert timer.resolve() == [(2, 0)] and len(timer.pending) == 1


def test_no_cuda_no_timing(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", fake_torch(available=False))
    assert CudaTimer().start() is None
