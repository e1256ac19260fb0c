"""Bad bytes and hostile YAML: annotations and manifests that are not UTF-8, hold NUL bytes, bomb with aliases, nest
deeply or are huge are refused with file:line in one line (exit 2) within a few seconds and bounded memory."""

from __future__ import annotations

import random
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from project import promise

from atlas import yamlio
from atlas.errors import ConfigError

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi")
)
HOSTILE = {
    "not-utf8": (b"id: a\nsummary: caf\xe9\n", 2),
    "nul": (b"id: a\n\nsummary: x\x00y\n", 3),
    "utf16": ("id: a\n".encode("utf-16"), 1),
    "alias-bomb": (BOMB.encode(), None),
    "deep-flow": (b"a: " + b"[" * 20000 + b"]" * 20000 + b"\n", 1),
    "deep-block": ("".join(" " * (2 * i) + f"k{i}:\n" for i in range(400)).encode(), None),
    "huge": (b"a: " + b"x" * (8 << 20) + b"\n", 1),
    "control-char": (b"id: a\nsummary: \x07bell\n", 2),
    "unclosed": (b"id: [a, b\nsummary: x\n", None),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("where", ["annotations/vllm/bad.yaml", "pinned_sources/vllm.yaml"])
def test_hostile_file_is_one_line_with_file_and_line(fresh, name, where):
    project = fresh
    data, line = HOSTILE[name]
    path = project.root / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    started = time.perf_counter()
    done = project.atlas("check", "vllm", timeout=60)
    assert time.perf_counter() - started < 15
    if where.startswith("annotations/"):  # check lists every annotation problem, file:line each, then a count
        assert done.returncode == 2 and "Traceback" not in done.stderr
        *problems, summary = done.stderr.strip().splitlines()
        assert problems and all(p.startswith(where + ":") for p in problems) and "problem(s)" in summary
    else:
        promise(done, (2,))
    assert Path(where).name in done.stderr
    if line is not None:
        assert f"{Path(where).name}:{line}:" in done.stderr, done.stderr


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_yaml_costs_little(tmp_path, name):
    path = tmp_path / "x.yaml"
    path.write_bytes(HOSTILE[name][0])
    code = (
        f"from atlas import yamlio; from pathlib import Path\ntry: yamlio.load(Path({str(path)!r}))\n"
        "except Exception as e: print(type(e).__name__)"
    )
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)),
    )
    assert time.perf_counter() - started < 5
    assert out.stdout.strip() == "ConfigError", out.stdout + out.stderr


def _random_yaml(rng: random.Random) -> bytes:
    pieces = [
        b"a: ",
        b"&x ",
        b"*x",
        b"[",
        b"]",
        b"{",
        b"}",
        b"- ",
        b"\n",
        b"  ",
        b"'",
        b'"',
        b"\\",
        b":",
        b",",
        b"#",
        b"!!python/object:os.system",
        b"<<: *x",
        b"\xff",
        b"\x00",
        b"\t",
        b"? ",
        b"|",
        b">",
        b"%YAML 1.2",
        b"---",
        b"...",
        b"&y [*x, *x, *x]",
        b"key",
        b"1e999",
        b"~",
    ]
    return b"".join(rng.choice(pieces) for _ in range(rng.randrange(1, 80)))


def test_random_hostile_yaml_is_loaded_or_refused_as_config_error(tmp_path):
    """Property: any byte soup either loads or is a ConfigError naming the file; nothing else escapes."""
    rng = random.Random(20)
    path = tmp_path / "soup.yaml"
    for _ in range(400):
        path.write_bytes(_random_yaml(rng))
        try:
            yamlio.load(path)
        except ConfigError as exc:
            assert str(exc).startswith(f"{path}:"), str(exc)
