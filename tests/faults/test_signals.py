"""Signals and pipes: SIGTERM, SIGINT or SIGKILL to a command ends its worker processes with it; a closed stdout
ends the command quietly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from project import ATLAS, group_alive, promise


def _workers_started(proc, timeout=20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(group_alive(proc.pid)) > 1:
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_workers_end_with_their_parent(project, signum):
    """Only the parent is signalled (as `timeout` and CI runners do); its forked workers must not outlive it."""
    env = {"ATLAS_NO_FORK": ""}
    for _attempt in range(5):
        proc = project.start("index", "--force", env=env)
        if _workers_started(proc):
            break
        proc.wait(timeout=60)
    else:
        pytest.skip("the build finished before its workers could be seen (machine too fast for this case)")
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err
    deadline = time.monotonic() + 5
    while group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not group_alive(proc.pid), "workers outlived their parent"
    promise(project.atlas("index"))


HALF_BUILT = """
import sys
import atlas.cli as cli
class Half:
    def __init__(self):
        raise KeyboardInterrupt  # Ctrl-C inside a library's __init__, before its fields are set
    def __del__(self):
        self.fields  # what gitpython's GitConfigParser.__del__ reads
def knobs():
    Half()
cli.check_knobs = knobs
sys.argv = ["atlas", "show", "Scheduler.schedule"]
cli.run()
"""


def test_an_interrupt_that_cuts_an_object_short_is_still_one_line():
    done = subprocess.run([sys.executable, "-c", HALF_BUILT], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130
    assert done.stderr == "atlas: interrupted; run the command again to finish (nothing half-written is kept)\n"


def test_closed_stdout_ends_quietly(project):
    shell = f"{' '.join(repr(a) for a in ATLAS)} graph export vllm --format json | head -c 10"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", shell],
        cwd=project.root,
        env=project.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.stderr.strip() == ""
    assert len(done.stdout) == 10


def test_closed_stdout_before_start(project):
    read, write = os.pipe()
    os.close(read)
    done = subprocess.run(
        [*ATLAS, "show", "Scheduler.schedule", "--framework", "vllm"],
        cwd=project.root,
        env=project.env,
        stdout=write,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
    )
    os.close(write)
    assert "Traceback" not in done.stderr and done.stderr.strip() == "", done.stderr


def test_a_build_process_killed_by_the_kernel_is_one_line_saying_what_to_do():
    """A graph build worker killed by SIGKILL (what the kernel's out-of-memory killer sends) is a BuildFailed, an
    AtlasError the CLI prints on one line (exit 2), naming the signal and how to build again."""
    import multiprocessing

    from atlas.errors import AtlasError, BuildFailed
    from atlas.graph.processes import _died

    proc = multiprocessing.get_context("fork").Process(target=time.sleep, args=(30,))
    proc.start()
    os.kill(proc.pid, signal.SIGKILL)
    message = _died(proc)
    assert issubclass(BuildFailed, AtlasError) and BuildFailed.exit_code == 2
    assert "signal 9" in message and "out of memory" in message and "ATLAS_NO_FORK=1" in message
    assert "\n" not in message
