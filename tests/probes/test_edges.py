"""probes.edges in a fresh interpreter on a small pure-Python package: which calls become edges (both ends inside the
package, through the probes' own wrappers, in other threads and forked children; not through outside code), their
fields and counts, and the file written at exit, at each flush and after a kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.probes.fakeengine import REPO

CORE = """\
import threading

from edgepkg import util


def traced(fn):
    def wrapper(*args):
        return fn(*args)
    return wrapper


class Engine:
    def __init__(self):
        self.n = 0

    def step(self, i):
        self.n += util.add(i, 1)
        return self.helper()

    def helper(self):
        def inner():
            return self.n
        return inner()

    def numbers(self):
        yield 1
        yield 2

    @traced
    def decorated(self):
        return util.add(0, 0)


def drive(times, outside):
    e = Engine()
    for i in range(times):
        e.step(i)
    total = sum(e.numbers())
    e.decorated()
    outside.call_back(e.helper)
    t = threading.Thread(target=lambda: util.add(2, 2))
    t.start()
    t.join()
    return total
"""

UTIL = """\
def add(a, b):
    return a + b
"""

OUTSIDE = """\
def call_back(fn):
    return fn()
"""


def make_package(root: Path) -> None:
    pkg = root / "edgepkg"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "core.py").write_text(CORE)
    (pkg / "util.py").write_text(UTIL)
    (root / "outside.py").write_text(OUTSIDE)


def line(text: str, source: str = CORE) -> int:
    return next(i for i, s in enumerate(source.splitlines(), 1) if s.strip().startswith(text))


def run(root: Path, body: str, env: dict | None = None, wait: bool = True):
    script = root / "main.py"
    script.write_text("import outside\nfrom edgepkg import core\nfrom probes import edges\n" + body)
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("ATLAS_TRACE_DIR", "ATLAS_EDGES", "ATLAS_PROBES")},
        "PYTHONPATH": f"{REPO}{os.pathsep}{root}",
        **(env or {}),
    }
    if not wait:
        return subprocess.Popen([sys.executable, str(script)], env=env)
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done


def documents(out: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((out / "edges").glob("*.json"))]


def test_calls_inside_the_package_become_counted_edges(tmp_path):
    make_package(tmp_path)
    run(tmp_path, f"edges.install('edgepkg', {str(tmp_path / 'out')!r})\ncore.drive(3, outside)\n")
    (doc,) = documents(tmp_path / "out")
    assert (doc["schema"], doc["kind"], doc["framework"], doc["pid"] > 0) == (1, "edges", "edgepkg", True)
    assert doc["fields"] == ["caller_path", "caller", "line", "callee_path", "callee", "callee_line", "count"]
    core, util = "edgepkg/core.py", "edgepkg/util.py"
    add = [util, "add", 1]
    expected = [
        [core, "Engine.step", line("self.n += util.add"), *add, 3],
        [core, "Engine.step", line("return self.helper()"), core, "Engine.helper", line("def helper"), 3],
        # 3 from step, 1 from helper's call by outside.call_back (that call itself is not an edge: outside caller)
        [core, "Engine.helper", line("return inner()"), core, "Engine.helper.<locals>.inner", line("def inner"), 4],
        [core, "drive", line("e = Engine()"), core, "Engine.__init__", line("def __init__"), 1],
        [core, "drive", line("e.step(i)"), core, "Engine.step", line("def step"), 3],
        # a generator: each resumption is a call from where it was resumed (sum() is C: no frame between)
        [core, "drive", line("total = sum"), core, "Engine.numbers", line("def numbers"), 3],
        # through the decorator's wrapper, itself in the package: two edges, as the interpreter ran it
        [core, "drive", line("e.decorated()"), core, "traced.<locals>.wrapper", line("def wrapper"), 1],
        [core, "traced.<locals>.wrapper", line("return fn(*args)"), core, "Engine.decorated", line("@traced"), 1],
        [core, "Engine.decorated", line("return util.add(0, 0)"), *add, 1],
        # the thread's lambda is called by threading (outside): only its own call into the package is an edge
        [core, "drive.<locals>.<lambda>", line("t = threading.Thread"), *add, 1],
    ]
    assert doc["edges"] == sorted(expected)  # outside.call_back -> Engine.helper: its caller is outside
    assert doc["generators"] == [[core, "Engine.numbers"]]


def test_probe_wrappers_are_looked_through_and_a_killed_process_keeps_its_flushed_edges(tmp_path):
    """With the hook probe on Engine.step (spec `edges`: true), drive -> Engine.step is still one edge; the probe's
    flusher writes the file while the process runs, so a SIGKILL loses only the last seconds."""
    make_package(tmp_path)
    out = tmp_path / "out"
    step = line("def step")
    spec = {
        "framework": "edgepkg",
        "package": "edgepkg",
        "package_root": "",
        "commit": "0" * 40,
        "ref": "v0",
        "engine_version": "0",
        "out": str(out),
        "blobs": {},
        "flush_interval_s": 0.1,
        "edges": True,
        "hooks": [
            {
                "symbol": "edgepkg.core.Engine.step",
                "module": "edgepkg.core",
                "qualname": "Engine.step",
                "role": "plan",
                "path": "edgepkg/core.py",
                "line": step,
                "end_line": step + 2,
                "capture": [],
            }
        ],
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    body = (
        "from probes.runtime import install_from_env\nimport time\n"
        "assert edges.install_from_env('edgepkg', install_from_env('edgepkg')) is not None\n"
        "core.drive(2, outside)\nprint('ready', flush=True)\ntime.sleep(60)\n"
    )
    proc = run(tmp_path, body, {"ATLAS_PROBES": str(tmp_path / "spec.json")}, wait=False)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(
            e[1] == "drive" and e[4] == "Engine.step" for d in documents(out) for e in d["edges"]
        ):
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    (doc,) = documents(out)
    core = "edgepkg/core.py"
    assert [core, "drive", line("e.step(i)"), core, "Engine.step", step, 2] in doc["edges"]
    assert not any("atlas-probes" in e[1] or "atlas-probes" in e[0] for e in doc["edges"])
    assert not list((out / "edges").glob("*.tmp"))


def test_a_forked_child_writes_its_own_edges(tmp_path):
    make_package(tmp_path)
    body = (
        f"import os\nedges.install('edgepkg', {str(tmp_path / 'out')!r})\ncore.Engine().helper()\n"
        "pid = os.fork()\nif pid == 0:\n    core.drive(1, outside)\n    edges._RECORDER.write()\n"
        "    os._exit(0)\nos.waitpid(pid, 0)\n"
    )
    run(tmp_path, body)
    docs = {d["pid"]: d for d in documents(tmp_path / "out")}
    assert len(docs) == 2
    helper = ["edgepkg/core.py", "Engine.helper", line("return inner()")]
    for doc in docs.values():
        calls = {tuple(e[:3]) + (e[4],): e[-1] for e in doc["edges"]}
        if len(doc["edges"]) == 1:  # the parent: only its own call before the fork
            assert calls == {(*helper, "Engine.helper.<locals>.inner"): 1}
        else:  # the child: drive's two helper calls (step, call_back), without the parent's one
            assert calls[(*helper, "Engine.helper.<locals>.inner")] == 2
            assert any(e[1] == "drive" for e in doc["edges"])


def test_nothing_is_recorded_unless_asked(tmp_path):
    make_package(tmp_path)
    run(
        tmp_path,
        "assert edges.install_from_env('edgepkg') is None\ncore.drive(1, outside)\n",
        {"ATLAS_TRACE_DIR": str(tmp_path / "out")},
    )
    assert not (tmp_path / "out").exists()
    run(
        tmp_path,
        "assert edges.install_from_env('edgepkg') is not None\ncore.drive(1, outside)\n",
        {"ATLAS_TRACE_DIR": str(tmp_path / "out"), "ATLAS_EDGES": "1"},
    )
    assert len(documents(tmp_path / "out")) == 1
