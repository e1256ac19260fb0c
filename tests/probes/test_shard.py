"""Shard writer: bounded buffer (drop and count), flush format, torn lines; guard: git blob ids."""

from __future__ import annotations

import json
import subprocess

import pytest

from probes.guard import FileGuard, base_version, blob_id
from probes.schema import SCHEMA_VERSION
from probes.shard import Shard


@pytest.mark.parametrize("capacity, added, kept, dropped", [(3, 5, 3, 2), (10, 4, 4, 0), (0, 2, 0, 2)])
def test_buffer_is_bounded_and_counts_drops(tmp_path, capacity, added, kept, dropped):
    shard = Shard(str(tmp_path / "s.jsonl"), capacity=capacity)
    for i in range(added):
        shard.add({"kind": "mark", "i": i})
    shard.flush()
    rows = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
    assert [r["i"] for r in rows if r["kind"] == "mark"] == list(range(kept))
    assert rows[-1]["kind"] == "stats" and rows[-1]["num_dropped"] == dropped and rows[-1]["num_events"] == kept
    assert all(r["v"] == SCHEMA_VERSION for r in rows)


def test_blob_id_is_gits(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("print('hi')\n")
    expected = subprocess.run(["git", "hash-object", str(f)], capture_output=True, text=True).stdout.strip()
    assert blob_id(str(f)) == expected


@pytest.mark.parametrize("package, root, filename, path", [
    ("vllm", "", "/venv/lib/site-packages/vllm/v1/core/x.py", "vllm/v1/core/x.py"),
    ("sglang", "python", "/s/site_sgl/sglang/srt/managers/scheduler.py", "python/sglang/srt/managers/scheduler.py"),
    ("vllm", "", "/usr/lib/python3.11/threading.py", "/usr/lib/python3.11/threading.py"),
])
def test_guard_maps_running_files_to_repository_paths(package, root, filename, path):
    assert FileGuard(package, root, {}).locate(filename) == (path, False)


@pytest.mark.parametrize("version, base", [("0.32.0+cpu", "0.32.0"), ("v0.5.17", "0.5.17"), ("0.26.0", "0.26.0")])
def test_base_version(version, base):
    assert base_version(version) == base
