"""`atlas trace` errors that must come before any engine starts: one line, exit 2, saying what to do."""

from __future__ import annotations

import time

import pytest

from atlas.cli import main


@pytest.mark.parametrize("argv, says", [
    (["--out", "{blocker}/trace"], "is not writable"),
    (["--python", "/nonexistent/python"], "pass --python or set ATLAS_ENGINE_PYTHON"),
    (["--model", "{tmp}"], "has no config.json"),
    (["--rounds", "on,maybe"], "round 'maybe' is not a probe state; give on/off/absent"),
    (["--rounds", "absent;on gpu=2"], "round 'on gpu=2' is not a probe state"),
    (["--rounds", "absent;on colour=red"], "round 'on colour=red' is not a probe state"),
    (["--device", "cpu", "--framework", "sglang"], "no engine recipe for sglang on cpu"),
    (["--tp", "0"], "give the tensor-parallel size, 1 or more"),
])
def test_bad_input_fails_fast_with_one_line(tmp_path, capsys, argv, says):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    argv = [a.format(blocker=blocker, tmp=tmp_path) for a in argv]
    base = ["trace", "--framework", "vllm", "--out", str(tmp_path / "out")]
    start = time.monotonic()
    assert main(base + argv) == 2
    assert time.monotonic() - start < 10  # no engine was started
    err = capsys.readouterr().err.strip()
    assert err.startswith("atlas: error:") and says in err and "\n" not in err
    assert not (tmp_path / "out" / "engine.log").exists()
