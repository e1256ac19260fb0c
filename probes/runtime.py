"""One probe per process: reads the spec (ATLAS_PROBES), opens this process's shard, installs the hooks, and turns
hooked calls into records. `install_from_env(framework)` is what the engines' plugin entry points call."""

from __future__ import annotations

import atexit
import gc
import json
import multiprocessing
import os
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

from probes import aggregate, captures, diagnostics, duty, patch, ranks, records
from probes.control import ControlFile
from probes.control import apply as apply_control
from probes.cuda import CudaTimer
from probes.diagnostics import GcPauses
from probes.duty import DutyWindow
from probes.guard import FileGuard, base_version
from probes.hooks import Call, Hook, forget_threads, make_hook, monotonic_ns, time_ns
from probes.records import CALL
from probes.sampler import Sampler, samples_record
from probes.schema import SHARD_SUFFIX
from probes.shard import Shard

if TYPE_CHECKING:  # probes.kernels is imported only when the spec asks for kernels
    from probes.kernels import KernelCapture

_PROBE = None


class Probe:
    """One process's probe: its hooks and shard, and the state the wrappers read on every call (the step clock,
    whether it records, duty-cycle counters, open aggregated rows); the other jobs live beside it: the control file
    (probes.control), duty cycling (probes.duty), aggregated rows (probes.aggregate), CUDA timing (probes.cuda),
    GC pauses (probes.diagnostics), the sampling profiler (probes.sampler), GPU kernels per step (probes.kernels,
    spec `kernels`)."""

    def __init__(self, spec: dict, shard: Shard):
        self.spec = spec
        self.shard = shard
        self.framework = spec["framework"]
        self.guard = FileGuard(spec.get("package", self.framework), spec.get("package_root", ""), spec.get("blobs", {}))
        self.pid = os.getpid()
        self.wall_offset_ns = time_ns() - monotonic_ns()  # wall = monotonic + offset, taken once per process
        self.rank: dict | None = None  # tensor/pipeline/data-parallel rank, once the engine has set it up
        table = captures.tables(self.framework)
        self.hooks = [make_hook(e, *captures.for_hook(table, e), index) for index, e in enumerate(spec["hooks"])]
        self.known_files: set[str] = set()  # call-site files whose "file" record is written
        self.packed_files: set = set()  # call-site files of packed rows, for the flusher's "file" records
        # read by the wrappers on every call
        self.is_active = bool(spec.get("active", True))
        self.is_attached = True  # wrappers on the hooked attributes (False in the 'absent' state)
        self.is_packing = False  # rows marshalled on the hot path (control option pack=1)
        self.step = 0
        self.step_leader: Hook | None = None
        self.seq = 0
        self.open_aggregates: list[Hook] = []  # aggregated hooks whose rows still take calls
        self.spec_gpu_every = max(int(spec.get("gpu_sample_every", 1)), 1)  # CUDA-event timing on every Nth call
        self.gpu_every = self.spec_gpu_every  # 0: no timing (control option gpu=0)
        self.gpu_calls = 0  # calls of CUDA-timed hooks (the wrapper counts them, gpu_start times every Nth)
        self.duty_steps = 0  # control option duty=N: on and off in turns of N steps (probes.duty)
        self.duty_count = 0
        # the other jobs
        self.cuda = CudaTimer()
        self.duty = DutyWindow()
        control = spec.get("control", "")
        path = os.path.join(trace_dir(spec), control) if control and not os.path.isabs(control) else control
        self.control = ControlFile(path, "on" if self.is_active else "off")
        self.gc = GcPauses() if spec.get("diagnostics") else None
        self.sample_hz = float(spec.get("sample_hz") or 0)  # > 0: a sampling profiler beside the engine
        self.sampler: Sampler | None = None
        self.kernels: KernelCapture | None = None  # spec `kernels`: set by install
        self._engine_version = ""

    # -- installing ------------------------------------------------------------------------------------------
    def try_patch(self, module: ModuleType, hook: Hook) -> None:
        """Install the hook's wrapper and write its static fields (its "hook" record) once."""
        if hook.is_installed:
            return
        try:
            patch.patch(self, module, hook)
        except Exception as exc:  # a symbol missing from this engine version: reported, never fatal
            hook.last_error = f"not installed: {type(exc).__name__}: {exc}"
            return
        self.shard.add_static(records.hook_record(self.pid, hook))

    # -- hot path --------------------------------------------------------------------------------------------
    def begin_step(self, hook: Hook) -> bool:
        """A step hook's call while recording (the generated wrappers do this inline once the leader is known):
        the first step hook to fire leads, and its calls count the engine's steps and, when duty cycling, the
        window's. True when the window turned off with this call: it passes through, the off window's first step."""
        if self.step_leader is None:
            self.step_leader = hook
        if hook is not self.step_leader:
            return False
        if self.duty_steps:
            self.duty_count += 1
            if self.duty_count > self.duty_steps:
                duty.end_window(self)
                self.duty_count = 1
                return True
        self.step += 1
        if self.open_aggregates:
            aggregate.close_rows(self)
        return False

    def undo_step(self, hook: Hook) -> None:
        if hook is self.step_leader:
            self.step -= 1
            if self.duty_steps:
                duty.untick(self, hook)

    def duty_tick(self, hook: Hook) -> bool:
        return duty.tick(self, hook)

    def duty_untick(self, hook: Hook) -> None:
        duty.untick(self, hook)

    def end_duty_window(self) -> None:
        duty.end_window(self)

    def aggregate(self, hook: Hook, t0: int, t1: int, values: object) -> None:
        aggregate.add(self, hook, t0, t1, values)

    def open_aggregate(self, hook: Hook) -> list:
        return aggregate.open_row(self, hook)

    def close_aggregates(self) -> None:
        aggregate.close_rows(self)

    def pack(self, row: tuple) -> object:
        return aggregate.pack(self, row)

    def take_before(self, hook: Hook, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any] | None:
        call = Call(args, kwargs, None, None)
        try:
            return {name: fn(call) for name, fn in hook.befores.items()}
        except Exception as exc:
            self.fail(hook, exc)
            return None

    @property
    def own_ns(self) -> int:
        """The probe's own time on the hooked threads: the wrappers' less the engine's calls, over every hook."""
        return sum(h.own_ns for h in self.hooks)

    def gpu_start(self, hook: Hook) -> object:
        """A started CUDA-event timing (the wrapper calls this on every Nth timed call), or None."""
        try:
            return self.cuda.start()
        except Exception as exc:
            self.fail(hook, exc)
            return None

    def nvtx_push(self, hook: Hook) -> bool:
        try:
            return self.cuda.nvtx_push(f"{hook.role}:{hook.entry['qualname']}")
        except Exception:
            return False

    def nvtx_pop(self) -> None:
        self.cuda.nvtx_pop()

    def fail(self, hook: Hook, exc: BaseException) -> None:
        """A capture raised: count it and switch the hook to pass-through for the rest of the run."""
        hook.num_errors += 1
        hook.is_disabled = hook.is_passing = True
        hook.last_error = f"{type(exc).__name__}: {exc}"

    # -- off the hot path (the flusher thread) ---------------------------------------------------------------
    def new_files(self, rows: list) -> list[dict]:
        """A "file" record for each call-site file not seen before in this process (the flusher's only pass over
        the rows, a set comprehension)."""
        files = {r[7] for r in rows if type(r) is tuple and r[0] == CALL}
        if self.packed_files:
            packed, self.packed_files = self.packed_files, set()
            files |= packed
        files -= self.known_files
        self.known_files |= files
        return [records.file_record(self.pid, f, self.guard) for f in sorted(files)]

    def tick(self) -> None:
        for seq, gpu_ns in self.cuda.resolve():
            self.shard.add(records.record("gpu", self.pid, seq=seq, gpu_ns=gpu_ns))
        self.add_samples()
        if self.rank is None:
            self.poll_rank()
        self.control.poll(self)

    def set_state(self, text: str) -> None:
        """Apply a control text as if the control file said it (probes.control.apply)."""
        apply_control(self, text)

    def poll_control(self) -> None:
        self.control.poll(self)

    def start_sampler(self) -> None:
        """The sampling profiler (spec `sample_hz`), skipping the probe's own threads."""
        if self.sample_hz > 0:
            self.sampler = Sampler(self.sample_hz)
            self.sampler.start(self.shard._thread)

    def add_samples(self) -> None:
        if self.sampler is not None:
            found = samples_record(self.sampler, self.pid, self.control.text)
            if found is not None:
                self.shard.add(found)

    def poll_rank(self) -> None:
        """A "rank" record once this process's parallel state exists (never raises: a rank is optional)."""
        try:
            rank = ranks.read_rank(self.framework)
        except Exception:
            return
        if rank is not None:
            self.rank = rank
            self.shard.add(records.record("rank", self.pid, **rank, **self.clock()))

    def clock(self) -> dict[str, int]:
        """ts_ns (wall) and mono_ns (monotonic) of now, for a record."""
        now = monotonic_ns()
        return {"ts_ns": now + self.wall_offset_ns, "mono_ns": now}

    def after_fork(self) -> None:
        """A forked child (vLLM's EngineCore can be one) is its own process: new pid, counters, process record."""
        self.pid = os.getpid()
        self.step, self.seq, self.step_leader, self.open_aggregates = 0, 0, None, []
        self.duty.own_ns = 0
        self.known_files = set()
        forget_threads()
        self.cuda = CudaTimer()
        self.rank = None
        self.start_sampler()  # threads do not survive a fork
        self.shard.add(self.process_record(self._engine_version))
        for hook in self.hooks:
            hook.agg_calls, hook.agg_step, hook.own_ns = None, -1, 0
            if hook.is_installed:  # the child's shard is a new file
                self.shard.add_static(records.hook_record(self.pid, hook))

    def stats(self) -> dict:
        return {
            "capture_errors": {h.symbol: h.num_errors for h in self.hooks if h.num_errors},
            "disabled_hooks": [h.symbol for h in self.hooks if h.is_disabled],
            "hooks": {
                h.symbol: {
                    "installed": h.is_installed,
                    "calls": h.num_calls + len(h.agg_calls or ()),
                    "at_pin": h.at_pin,
                    "own_ns": h.own_ns,
                    "run_path": h.run_path,
                    "run_line": h.run_line,
                    **({"error": h.last_error} if h.last_error else {}),
                    **({"stale_calls": h.num_stale_calls} if h.num_stale_calls else {}),
                }
                for h in self.hooks
            },
            "step": self.step,
            "is_active": self.is_active,
            "is_attached": self.is_attached,
            "own_ns": self.own_ns,
            **({"diag": diagnostics.sample(self.shard._thread, self.gc.ns)} if self.gc is not None else {}),
            **(self.kernels.stats() if self.kernels is not None else {}),
        }

    def process_record(self, engine_version: str) -> dict:
        self._engine_version = engine_version
        expected = self.spec.get("engine_version", "")
        unsupported = {
            h.symbol: [
                c
                for c in h.entry.get("capture", ())
                if c not in h.captures and c not in h.befores and c != "gpu_time" and not (h.later and c in h.later[0])
            ]
            for h in self.hooks
        }
        return records.record(
            "process",
            self.pid,
            ppid=os.getppid(),
            proc=multiprocessing.current_process().name,
            argv=sys.argv[:3],
            boot_id=ranks.boot_id(),
            framework=self.framework,
            commit=self.spec.get("commit", ""),
            pin_ref=self.spec.get("ref", ""),
            engine_version=engine_version,
            expected_version=expected,
            version_at_pin=bool(expected) and base_version(engine_version) == base_version(expected),
            hooks=[h.symbol for h in self.hooks],
            unsupported_captures={k: v for k, v in unsupported.items() if v},
            **self.clock(),
        )


def trace_dir(spec: dict) -> str:
    return os.environ.get("ATLAS_TRACE_DIR") or spec["out"]


def install(spec: dict, engine_version: str) -> Probe:
    folder = os.path.join(trace_dir(spec), "shards")
    os.makedirs(folder, exist_ok=True)
    proc = multiprocessing.current_process().name.replace(os.sep, "_").replace(" ", "_")
    shard = Shard(
        os.path.join(folder, f"{proc}-{os.getpid()}{SHARD_SUFFIX}"),
        capacity=int(spec.get("capacity", 200_000)),
        interval_s=float(spec.get("flush_interval_s", 0.5)),
    )
    probe = Probe(spec, shard)
    shard.prepare = probe.new_files
    shard.tick_callbacks.append(probe.tick)
    shard.stats_callback = probe.stats
    shard.add(probe.process_record(engine_version))
    probe.poll_control()
    patch.install(probe, probe.hooks)
    if spec.get("kernels"):  # GPU kernels per step (spec `kernels`): the module is imported only then
        from probes import kernels

        probe.kernels = kernels.install(probe)
    if probe.gc is not None:
        gc.callbacks.append(probe.gc.on_gc)
    shard.start()
    probe.start_sampler()
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=probe.after_fork)  # runs after the shard's own fork handler
    atexit.register(probe.close_aggregates)  # runs before the shard's close (atexit is LIFO)
    return probe


def install_from_env(framework: str) -> Probe | None:
    """Install the probe described by $ATLAS_PROBES if it is for `framework`; idempotent; a no-op without it."""
    global _PROBE
    path = os.environ.get("ATLAS_PROBES")
    if not path or _PROBE is not None:
        return _PROBE
    with open(path, encoding="utf-8") as f:
        spec = json.load(f)
    if spec.get("framework") != framework:
        return None
    engine = sys.modules.get(framework)
    version = str(getattr(engine, "__version__", "")) if engine else ""
    _PROBE = install(spec, version)
    return _PROBE


def mark(name: str, **values: object) -> None:
    """A workload marker in this process's shard (the drivers call it: round begin/end, probes on/off). A mark named
    "barrier" with an `id`, written by every process right after they passed the same barrier, lets the merge
    align processes of different hosts and measure the residual skew (atlas.runtime.clock)."""
    if _PROBE is not None:
        _PROBE.shard.add(records.record("mark", _PROBE.pid, name=name, values=values, **_PROBE.clock()))
