"""Environment errors as errors: a cache or build folder that cannot be created, a full disk under any verb (and a
sync that ran out of space succeeding once there is space), a stdout that cannot encode, hold or take the output,
an empty HOME or XDG_CACHE_HOME, and settings checked when the command starts."""

from __future__ import annotations

import shlex
import subprocess
import types

import pytest
from project import ATLAS, ENGINE, make_project, promise

from atlas import env
from atlas.errors import ConfigError

SHOW = ("show", "Scheduler.schedule", "--framework", "vllm")


@pytest.mark.parametrize(
    "variable, where, verbs",
    [
        ("ATLAS_CACHE", "{file}/cache", [("sync",), ("index",), SHOW]),
        ("ATLAS_CACHE", "/proc/atlas-cache", [("sync",)]),
        ("ATLAS_BUILD", "{file}", [("index",), SHOW]),
        ("ATLAS_BUILD", "/proc/atlas-build", [("index",), SHOW]),
    ],
)
def test_a_folder_that_cannot_be_made_is_one_line_naming_its_setting(project, variable, where, verbs):
    file = project.root.parent / "a-file"
    file.write_text("x")
    for verb in verbs:
        done = project.atlas(*verb, env={variable: where.format(file=file)})
        promise(done, (2,))
        assert variable in done.stderr, (verb, done.stderr)


def test_a_site_folder_that_cannot_be_made_is_one_line(project):
    file = project.root.parent / "a-file"
    file.write_text("x")
    for out in (str(file / "site"), "/proc/atlas-site"):
        done = project.atlas("build", "--out", out)
        promise(done, (2,))
        assert "--out" in done.stderr


def _in_namespace(project, script: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """`script` (bash; `atlas` runs atlas) in a private mount namespace, where it may mount a small tmpfs."""
    done = subprocess.run(
        ["unshare", "-m", "bash", "-c", f'atlas() {{ {shlex.join(ATLAS)} "$@"; }}\n{script}'],
        cwd=project.root,
        env={**project.env, **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
    )
    if "unshare:" in done.stderr or "mount:" in done.stderr:
        pytest.skip(f"cannot mount a small disk here: {done.stderr.strip()}")
    return done


def _steps(done: subprocess.CompletedProcess) -> list[tuple[int, str]]:
    """The (exit code, stderr) of each step a namespace script reported (`step` below)."""
    out = []
    for block in done.stdout.split("<<step ")[1:]:
        code, _, err = block.partition(">>")
        out.append((int(code), err.strip()))
    return out


STEP = 'step() { "$@" >/dev/null 2>"$T/err"; printf "<<step %d>>%s" $? "$(cat "$T/err")"; }\n'


def _full_disk(project, folder, size: str, free_kb: int, verb: tuple[str, ...], env: dict) -> list[tuple[int, str]]:
    """Mount a tmpfs of `size` at `folder`; run `atlas index`, then `verb`, fill the disk to `free_kb` and run `verb`,
    free it and run `verb` and `atlas show`: the (exit code, stderr) of each."""
    script = (
        f"T=$(mktemp -d)\n{STEP}mount -t tmpfs -o size={size} tmpfs {folder} || exit 1\n"
        f"step atlas index\nstep atlas {shlex.join(verb)}\n"
        f"fill=$(( $(df -k --output=avail {folder} | tail -1) - {free_kb} ))\n"
        f"[ $fill -gt 0 ] && dd if=/dev/zero of={folder}/filler bs=1k count=$fill 2>/dev/null\n"
        f"step atlas {shlex.join(verb)}\nrm -f {folder}/filler\n"
        f"step atlas {shlex.join(verb)}\nstep atlas {shlex.join(SHOW)}\n"
    )
    steps = _steps(_in_namespace(project, script, env))
    assert len(steps) == 5, steps
    return steps


def _held(steps: list[tuple[int, str]]) -> None:
    """The run on the full disk ends in a result or in one line saying so; every run after it works."""
    promise(steps[2], (0, 1, 2))
    if steps[2][0] == 2:
        assert "no space left" in steps[2][1], steps[2]
    for step in steps[3:]:
        promise(step, (0, 1))


@pytest.mark.parametrize("free_kb", [0, 8, 24])
def test_index_on_a_full_disk_is_one_line_then_the_next_run_works(project, free_kb):
    small = project.root.parent / "small"
    small.mkdir()
    _held(_full_disk(project, small, "2m", free_kb, ("index", "--force"), {"ATLAS_BUILD": f"{small}/build"}))


@pytest.mark.parametrize("free_kb", [0, 512])
def test_build_on_a_full_disk_is_one_line_then_the_next_run_works(built, free_kb):
    small = built.root.parent / "small"
    small.mkdir()
    _held(_full_disk(built, small, "24m", free_kb, ("build", "--no-check", "--out", f"{small}/site"), {}))


def test_a_sync_that_ran_out_of_space_succeeds_once_there_is_room(tmp_path):
    """git's leftovers (a temporary object, a commit fetched without its files) are cleared or fetched again."""
    import os

    from gitfixtures import make_remote, write_manifest

    project = make_project(tmp_path, frameworks=("sglang",))
    make_remote(project.mirror, {"v1": {**ENGINE, "pkg/data.txt": os.urandom(1_500_000).hex()}}, name="vllm")
    write_manifest(project.root, "vllm", "https://example.invalid/vllm", "v1")
    cache = tmp_path / "small"
    cache.mkdir()
    for fill_mb in (9, 6):  # out of space while fetching, then while checking out
        script = (
            f"T=$(mktemp -d)\n{STEP}mount -t tmpfs -o size=10m tmpfs {cache} || exit 1\n"
            f"dd if=/dev/zero of={cache}/filler bs=1M count={fill_mb} 2>/dev/null\n"
            f"step atlas sync vllm\nrm -f {cache}/filler\nstep atlas sync vllm\nstep atlas index vllm\n"
        )
        steps = _steps(_in_namespace(project, script, {"ATLAS_CACHE": f"{cache}/cache"}))
        assert len(steps) == 3, steps
        promise(steps[0], (2,))
        assert "no space left" in steps[0][1], steps[0]
        for step in steps[1:]:
            promise(step)


@pytest.mark.parametrize("encoding", [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "PYTHONUTF8": "0"}])
def test_a_stdout_that_cannot_encode_the_output_gets_it_escaped(tmp_path, encoding):
    """An ASCII stdout: what it cannot hold is escaped. Names the locale cannot hold at all (Python's C locale
    without UTF-8 mode reads them as ASCII) are one line saying which locale to use."""
    project = make_project(tmp_path / "项目 café")
    for verb in (("sync",), ("sync", "--format", "json")):
        done = project.atlas(*verb, env=encoding)
        promise(done, (0, 2) if "LC_ALL" in encoding else (0,))
        assert "\\u" in done.stdout or "UTF-8" in done.stderr, (verb, done.stdout, done.stderr)
    promise(project.atlas("sync"))
    for verb in (("index",), SHOW, ("show", "调度器", "--framework", "vllm"), ("check", "--format", "json")):
        promise(project.atlas(*verb, env=encoding), (0, 2))


def test_annotation_text_in_chinese_reaches_an_ascii_stdout_escaped(project):
    (project.root / "annotations" / "vllm").mkdir()
    (project.root / "annotations" / "vllm" / "fixture.yaml").write_text(
        "schema: 1\nframework: vllm\nannotations:\n  - id: vllm.prefix-cache.allocate\n    mechanism: prefix-cache\n"
        "    symbol: pkg.kv.KVCacheManager.allocate_slots\n    role: allocate\n    summary: 分配块 → pool\n"
        '    claims:\n      - id: takes\n        article: "从池中取块"\n        claim: 取块\n        verdict: holds\n'
        '        evidence:\n          - pattern: "return self.pool.get_new_blocks(n)"\n',
        encoding="utf-8",
    )
    for encoding in ({"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "PYTHONUTF8": "0"}):
        for verb in (("check", "--claims"), ("check", "--claims", "--format", "json")):
            done = project.atlas(*verb, env=encoding)
            promise(done)
            assert "\\u53d6" in done.stdout, done.stdout


@pytest.mark.parametrize(
    "redirect, name, code",
    [(">&-", "Scheduler.schedule", 0), ("2>&-", "Nope", 2), (">/dev/full", "Scheduler.schedule", 2)],
)
def test_a_closed_or_full_stdout_ends_in_one_line(project, redirect, name, code):
    command = f"{shlex.join(ATLAS)} show {name} --framework vllm {redirect}"
    done = subprocess.run(["bash", "-c", command], cwd=project.root, env=project.env, capture_output=True, text=True)
    assert done.returncode == code and "Traceback" not in done.stderr, done.stderr
    if redirect != "2>&-":
        promise(done, (code,))


def test_an_empty_home_and_cache_home_read_as_unset(monkeypatch, tmp_path):
    import pwd

    monkeypatch.setattr(pwd, "getpwuid", lambda uid: types.SimpleNamespace(pw_dir=str(tmp_path / "home")))
    (tmp_path / "project" / "pinned_sources").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "project")
    monkeypatch.delenv("ATLAS_CACHE", raising=False)
    for home, cache_home in (("", ""), ("", "relative/cache"), ("relative", "")):
        monkeypatch.setenv("HOME", home)
        monkeypatch.setenv("XDG_CACHE_HOME", cache_home)
        assert env.settings().cache == tmp_path / "home" / ".cache" / "atlas"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert env.settings().cache == tmp_path / "xdg" / "atlas"


@pytest.mark.parametrize(
    "variable, value",
    [
        ("ATLAS_LOCK_WAIT", "nan"),
        ("ATLAS_LOCK_WAIT", "inf"),
        ("ATLAS_LOCK_WAIT", "-5"),
        ("ATLAS_LOCK_WAIT", "soon"),
        ("ATLAS_NO_FORK", "maybe"),
        ("SOURCE_DATE_EPOCH", "yesterday"),
    ],
)
def test_every_setting_is_checked_when_the_command_starts(project, monkeypatch, variable, value):
    """Refused in one line by a verb that would never use it (no lock is contended, nothing is built)."""
    done = project.atlas(*SHOW, env={variable: value})
    promise(done, (2,))
    assert variable in done.stderr
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError):
        env.check_knobs()


def test_settings_that_mean_unset_are_taken(project):
    for variable, value in (("ATLAS_LOCK_WAIT", ""), ("ATLAS_LOCK_WAIT", " 30 "), ("ATLAS_NO_FORK", "0")):
        promise(project.atlas(*SHOW, env={variable: value}))
