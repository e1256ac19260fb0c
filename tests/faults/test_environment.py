"""Environment: read-only caches for read-only verbs, a busy port, relative paths from a subfolder, one meaning of
--pins on every verb, --depth below 1, unknown options."""

from __future__ import annotations

import shlex
import socket
import subprocess

import pytest
from project import ATLAS, promise


def _read_only(project, *args: str) -> subprocess.CompletedProcess:
    """`atlas ARGS` with the cache mounted read-only, in a private mount namespace (nothing leaks out of it)."""
    cache = shlex.quote(str(project.cache))
    command = f"mount --bind {cache} {cache} && mount -o remount,bind,ro {cache} && exec " + " ".join(
        shlex.quote(a) for a in [*ATLAS, *args]
    )
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", command],
        cwd=project.root,
        env=project.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if "mount:" in done.stderr or "unshare:" in done.stderr:
        pytest.skip(f"cannot mount read-only here: {done.stderr.strip()}")
    return done


@pytest.mark.parametrize(
    "verb",
    [
        ("show", "Scheduler.schedule", "--framework", "vllm"),
        ("sync",),
        ("index",),
        ("check",),
        ("graph", "export", "sglang"),
    ],
)
def test_read_only_cache_serves_read_only_verbs(project, verb):
    promise(_read_only(project, *verb))


def test_read_only_cache_refuses_writes_in_one_line(project):
    done = _read_only(project, "sync", "--repair", "vllm")
    promise(done, (2,))
    assert "read-only" in done.stderr and "ATLAS_CACHE" in done.stderr


def test_serve_on_a_busy_port_is_one_line(built):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        done = built.atlas("serve", "--port", str(sock.getsockname()[1]), timeout=30)
    promise(done, (2,))
    assert "--port" in done.stderr


def test_relative_mirror_is_read_from_the_project_root(project):
    sub = project.root / "annotations" / "deeper"
    sub.mkdir(parents=True)
    relative = str(project.mirror.relative_to(project.root.parent))
    env = {"ATLAS_MIRROR": f"../{relative}"}
    promise(project.atlas("sync", env=env, cwd=sub))
    promise(
        project.atlas(
            "--root", str(project.root), "show", "Scheduler.schedule", "--framework", "vllm", env=env, cwd=sub
        )
    )


def test_pins_mean_the_same_on_every_verb(project):
    """A set only one manifest has: every verb skips the engines lacking it, as sync does; named, it is an error."""
    manifest = project.root / "pinned_sources" / "vllm.yaml"
    manifest.write_text(manifest.read_text() + "  cpu:\n    ref: v2\n")
    for verb in (("sync",), ("index",), ("check",)):
        promise(project.atlas(*verb, "--pins", "cpu"))
    shown = project.atlas("show", "Scheduler.schedule", "--pins", "cpu")
    promise(shown)
    assert "vllm v2" in shown.stdout
    for verb in (("sync", "sglang"), ("index", "sglang")):
        done = project.atlas(*verb, "--pins", "cpu")
        promise(done, (2,))
        assert "no pin set 'cpu'" in done.stderr
    none = project.atlas("index", "--pins", "nosuchset")
    promise(none, (2,))
    assert "choose one of" in none.stderr


def test_a_lost_mirror_setting_is_named(project):
    """Synced from the mirror, then run from a shell without ATLAS_MIRROR: the error says to set it again, not that
    nothing was synced (a sync would go to GitHub)."""
    promise(project.atlas("sync", "vllm"))
    env = {k: v for k, v in project.env.items() if k != "ATLAS_MIRROR"}
    done = subprocess.run(
        [*ATLAS, "show", "Scheduler.schedule", "--framework", "vllm"],
        cwd=project.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    promise(done, (2,))
    assert "synced from mirror" in done.stderr and "ATLAS_MIRROR" in done.stderr, done.stderr


def test_a_pin_set_named_twice_is_done_once(project):
    promise(project.atlas("sync", "--pins", "default"))
    done = project.atlas("index", "vllm", "--pins", "default, default,")
    promise(done)
    assert len([line for line in done.stdout.splitlines() if line.startswith("vllm")]) == 1, done.stdout


@pytest.mark.parametrize("depth", ["0", "-1", "x"])
def test_depth_below_one_is_refused(project, depth):
    done = project.atlas("graph", "callees", "Scheduler.schedule", "--depth", depth)
    promise(done, (2,))
    assert "--depth" in done.stderr


@pytest.mark.parametrize(
    "argv", [["--bogus-flag"], ["--bogus=1", "sync"], ["sync", "--bogus"], ["--root", ".", "--nope", "index"]]
)
def test_unknown_options_are_named(project, argv):
    done = project.atlas(*argv)
    promise(done, (2,))
    assert argv[[a.startswith("--b") or a == "--nope" for a in argv].index(True)].split("=")[0] in done.stderr
