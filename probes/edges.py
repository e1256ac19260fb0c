"""Call edges inside a running engine: a profile function (sys.setprofile, threading.setprofile) counts each Python
call whose caller and callee both lie in the engine's package, keyed by (caller code, call line, callee code);
written to `<trace>/edges/<process>-<pid>.json` (EDGES_SCHEMA) at each flush of the probe and at exit."""

from __future__ import annotations

import atexit
import importlib.util
import json
import multiprocessing
import os
import sys
import threading
import time

EDGES_SCHEMA = 1
EDGE_FIELDS = ("caller_path", "caller", "line", "callee_path", "callee", "callee_line", "count")
# Generated code standing between two engine frames that the recording looks through: the probes' own wrappers.
TRANSPARENT = "<atlas-probes wrapper"
OUTSIDE, INSIDE, THROUGH = 0, 1, 2
GENERATOR_FLAGS = 0x20 | 0x80 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR: a 'call' is a resumption
WRITE_EVERY_S = 5.0  # at most one write per this many seconds from the flusher (exit always writes)

_RECORDER = None


class EdgeRecorder:
    """`counts` maps (caller code, call line, callee code) -> calls. `start()` installs the profile function in
    this thread and in threads started later; `write()` puts the edges seen so far in `path`, atomically."""

    def __init__(self, package_dir: str, folder: str, framework: str = ""):
        self.package_dir = os.path.realpath(package_dir)
        self.root = os.path.dirname(self.package_dir)  # paths are written relative to it: vllm/v1/...
        self.folder = folder
        self.framework = framework
        self.counts: dict[tuple, int] = {}
        self.where: dict = {}  # code -> OUTSIDE / INSIDE / THROUGH, decided once per code object
        self.path = self._path()
        self._written = (-1, 0.0)  # (number of edges, monotonic time) of the last write
        self._lock = threading.Lock()

    def _path(self) -> str:
        proc = multiprocessing.current_process().name.replace(os.sep, "_").replace(" ", "_")
        return os.path.join(self.folder, f"{proc}-{os.getpid()}.json")

    def profile_function(self):
        """The function handed to setprofile: on a 'call' event, one dict lookup per end (code objects), one
        counter update; no string work on the hot path."""
        counts, where, prefix = self.counts, self.where, self.package_dir + os.sep
        get = counts.get

        def classify(code) -> int:
            name = code.co_filename
            side = (
                INSIDE
                if os.path.realpath(name).startswith(prefix)
                else THROUGH
                if name.startswith(TRANSPARENT)
                else OUTSIDE
            )
            where[code] = side
            return side

        def profile(frame, event, arg):
            if event != "call":
                return
            code = frame.f_code
            side = where.get(code)
            if side is None:
                side = classify(code)
            if side != INSIDE:
                return
            back = frame.f_back
            while back is not None:
                caller = back.f_code
                side = where.get(caller)
                if side is None:
                    side = classify(caller)
                if side != THROUGH:
                    break
                back = back.f_back
            if back is None or side != INSIDE:
                return
            key = (caller, back.f_lineno, code)
            counts[key] = get(key, 0) + 1

        return profile

    def start(self) -> None:
        profile = self.profile_function()
        sys.setprofile(profile)
        threading.setprofile(profile)
        if hasattr(threading, "setprofile_all_threads"):  # 3.12+: threads already running too
            threading.setprofile_all_threads(profile)

    def stop(self) -> None:
        sys.setprofile(None)
        threading.setprofile(None)

    def rows(self) -> list[list]:
        """The edges as rows of EDGE_FIELDS, sorted; caller and callee paths relative to the package's parent."""
        counts = dict(self.counts)  # one C-level copy: safe while the engine's threads go on counting
        merged: dict[tuple, int] = {}
        for (caller, line, callee), n in counts.items():
            key = (
                self.relative(caller.co_filename),
                qualname(caller),
                line,
                self.relative(callee.co_filename),
                qualname(callee),
                callee.co_firstlineno,
            )
            merged[key] = merged.get(key, 0) + n
        return [[*key, n] for key, n in sorted(merged.items())]

    def relative(self, filename: str) -> str:
        return os.path.relpath(os.path.realpath(filename), self.root).replace(os.sep, "/")

    def document(self) -> dict:
        resumed = sorted(
            {
                (self.relative(code.co_filename), qualname(code))
                for (_, _, code) in dict(self.counts)
                if code.co_flags & GENERATOR_FLAGS
            }
        )
        return {
            "schema": EDGES_SCHEMA,
            "kind": "edges",
            "framework": self.framework,
            "pid": os.getpid(),
            "proc": multiprocessing.current_process().name,
            "package_dir": self.package_dir,
            "python": sys.version.split()[0],
            "fields": list(EDGE_FIELDS),
            "edges": self.rows(),
            "generators": [list(g) for g in resumed],
        }

    def write(self) -> str:
        """The edges so far to `path`, through a temporary file and a rename (a reader never sees half a file)."""
        with self._lock:
            doc = self.document()
            os.makedirs(self.folder, exist_ok=True)
            tmp = f"{self.path}.tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(doc, f, separators=(",", ":"))
            os.replace(tmp, self.path)
            self._written = (len(self.counts), time.monotonic())
            return self.path

    def tick(self) -> None:
        """The probe's flusher calls this each flush: write when new edges appeared and the last write is old."""
        num, when = self._written
        if len(self.counts) != num and time.monotonic() - when >= WRITE_EVERY_S:
            self.write()

    def close(self) -> None:
        self.stop()
        try:
            self.write()
        except OSError:
            pass

    def after_fork(self) -> None:
        """A forked child records its own calls into its own file (the same dict: the profile function holds it)."""
        self.counts.clear()
        self.path = self._path()
        self._written = (-1, 0.0)
        self._lock = threading.Lock()


def qualname(code) -> str:
    return getattr(code, "co_qualname", code.co_name)  # co_qualname: Python 3.11+


def package_dir(framework: str) -> str | None:
    """The folder of the engine's package in this interpreter, without importing it when it is not yet imported."""
    module = sys.modules.get(framework)
    if module is not None and getattr(module, "__file__", None):
        return os.path.dirname(module.__file__)
    spec = importlib.util.find_spec(framework)
    locations = list(spec.submodule_search_locations or ()) if spec else []
    return locations[0] if locations else None


def is_requested(spec: dict | None) -> bool:
    """Edges are recorded when the probe spec says `"edges": true` or ATLAS_EDGES=1 is set."""
    return bool((spec or {}).get("edges")) or os.environ.get("ATLAS_EDGES", "") not in ("", "0")


def install(framework: str, trace_folder: str, probe=None) -> EdgeRecorder | None:
    """Start recording in this process (idempotent); written at each flush of `probe` (when given) and at exit."""
    global _RECORDER
    if _RECORDER is not None:
        return _RECORDER
    where = package_dir(framework)
    if where is None:
        return None
    recorder = EdgeRecorder(where, os.path.join(trace_folder, "edges"), framework)
    if probe is not None:
        probe.shard.tick_callbacks.append(recorder.tick)
    atexit.register(recorder.close)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=recorder.after_fork)
    recorder.start()
    _RECORDER = recorder
    return recorder


def install_from_env(framework: str, probe=None) -> EdgeRecorder | None:
    """What the plugins call after the probe: recording starts when the probe's spec or ATLAS_EDGES asks, into the
    trace folder (ATLAS_TRACE_DIR, else the spec's `out`); a no-op otherwise."""
    spec = getattr(probe, "spec", None)
    folder = os.environ.get("ATLAS_TRACE_DIR") or (spec or {}).get("out")
    if not folder or not is_requested(spec):
        return None
    return install(framework, folder, probe)
