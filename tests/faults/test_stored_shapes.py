"""Stored things checked by shape, not only by checksum: a memo shard, a graph, a parse pack or the annotation cache
that is whole but not of the shape atlas stores there is rebuilt; a file where one of atlas's folders belongs (or a
folder where a file belongs) is cleared and made again. The result is the clean build's, byte for byte."""

from __future__ import annotations

import marshal
import shutil
import struct

import pytest
from project import files_of, promise

from atlas import stored
from atlas.graph import packs
from atlas.render import memo_files


def _shards(project):
    return sorted((project.root / "site_build" / ".memo" / "root").glob("*.pickle"))


def _to_folder(path):
    shutil.rmtree(path) if path.is_dir() else path.unlink()
    path.mkdir()
    (path / "inside").write_text("x")


def _to_file(path):
    shutil.rmtree(path) if path.is_dir() else path.unlink()
    path.write_text("not a folder")


SHAPES = [
    ["a list, not a mapping"],
    {"not-a-digest": ("value", ())},
    {"ff" + "0" * 62: "not a unit"},
    {"ff" + "0" * 62: ("value", ["not", "a", "tuple"])},
]


@pytest.mark.parametrize("payload", SHAPES)
def test_a_whole_memo_shard_of_another_shape_is_rebuilt(built, payload):
    html = built.root / "site_build" / "html"
    clean = files_of(html)
    for path in _shards(built):
        stored.dump(path, payload, memo_files.VERSION)  # header, length and checksum all valid
    promise(built.atlas("build", "--no-check"))
    assert files_of(html) == clean
    for path in _shards(built):
        assert memo_files._is_shard(stored.load(path, memo_files.VERSION), path.stem)


@pytest.mark.parametrize("value", [None, "a string", ("a", "tuple")])
def test_memo_units_whose_values_are_of_another_shape_cost_one_build_without_the_memo(built, value):
    """The shards' shape holds (key -> (value, keys)); the values inside are not what the build takes."""
    html = built.root / "site_build" / "html"
    clean = files_of(html)
    for path in _shards(built):
        units = stored.load(path, memo_files.VERSION)
        stored.dump(path, {key: (value, uses) for key, (_, uses) in units.items()}, memo_files.VERSION)
    done = built.atlas("build", "--no-check")
    promise(done)
    assert files_of(html) == clean and "building without it" in done.stderr
    again = built.atlas("build", "--no-check")
    promise(again)
    assert files_of(html) == clean and again.stderr == ""


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: [_to_folder(path) for path in _shards(p)],
        lambda p: _to_file(p.root / "site_build" / ".memo"),
        lambda p: _to_file(p.root / "site_build" / ".memo" / "root"),
        lambda p: _to_folder(p.root / "site_build" / ".atlas.lock"),
    ],
    ids=["shard-folders", "memo-file", "memo-set-file", "lock-folder"],
)
def test_the_wrong_kind_of_file_in_the_site_folder_is_cleared(built, damage):
    html = built.root / "site_build" / "html"
    clean = files_of(html)
    damage(built)
    for _ in range(2):  # rebuilt, then kept: the second build reads what the first stored
        promise(built.atlas("build", "--no-check"))
        assert files_of(html) == clean
    assert all(path.is_file() for path in _shards(built)) and _shards(built)


def _graph_folder(project):
    (folder,) = [p for p in (project.build / "graph").iterdir() if p.name.startswith("vllm-")]
    return folder


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: [
            stored.dump(path, ("a", "tuple", "of", "strings"), "6") for path in _graph_folder(p).glob("*.pickle")
        ],
        lambda p: [_to_folder(path) for path in _graph_folder(p).glob("*.pickle")],
        lambda p: _to_folder(_graph_folder(p) / "key"),
        lambda p: _to_file(_graph_folder(p)),
        lambda p: _to_file(p.build / "graph"),
        lambda p: _to_file(p.build / "pyfacts"),
        lambda p: [_to_folder(path) for path in p.build.glob("pyfacts/*/*.pack")],
        lambda p: _to_folder(p.build / ".atlas.lock"),
    ],
    ids=["graph-shape", "graph-folders", "key-folder", "graph-file", "graphs-file", "pyfacts-file", "packs", "lock"],
)
def test_the_wrong_shape_or_kind_in_the_build_folder_is_rebuilt(project, damage):
    damage(project)
    for _ in range(2):
        shown = project.atlas("show", "Scheduler.schedule", "--framework", "vllm")
        promise(shown)
        assert "allocate_slots" in shown.stdout
        promise(project.atlas("index", "--force"))


def test_a_pack_whose_header_is_not_a_mapping_of_entries_is_passed_over(tmp_path):
    store = packs.Packs(tmp_path)
    store.write({"a": b"alpha"})
    header = marshal.dumps(["not", "a", "mapping"])
    (tmp_path / "odd.pack").write_bytes(packs.MAGIC + struct.pack("<Q", len(header)) + header)
    beyond = marshal.dumps({"b": (0, 10_000, b"x" * 20)})  # an entry past the end of the file
    (tmp_path / "short.pack").write_bytes(packs.MAGIC + struct.pack("<Q", len(beyond)) + beyond + b"beta")
    assert packs.Packs(tmp_path).read(["a", "b"]) == {"a": b"alpha"}


def test_a_pack_entry_whose_bytes_changed_is_left_out(tmp_path):
    store = packs.Packs(tmp_path)
    store.write({"a": b"alpha", "b": b"beta"})
    (pack,) = tmp_path.glob("*.pack")
    pack.write_bytes(pack.read_bytes().replace(b"beta", b"BETA"))  # same length: only a digest sees it
    assert packs.Packs(tmp_path).read(["a", "b"]) == {"a": b"alpha"}


def test_an_annotation_cache_of_another_shape_is_rebuilt(project):
    (project.root / "annotations" / "vllm").mkdir()
    (project.root / "annotations" / "vllm" / "fixture.yaml").write_text(
        "schema: 1\nframework: vllm\nannotations:\n  - id: vllm.prefix-cache.allocate\n    mechanism: prefix-cache\n"
        "    symbol: pkg.kv.KVCacheManager.allocate_slots\n    role: allocate\n    summary: Takes blocks.\n"
    )
    promise(project.atlas("check"))
    cache = project.build / "annotations.pickle"
    from atlas.annotate.loader import _CACHE_KEY

    stored.dump(cache, {"key": "not an entry"}, _CACHE_KEY[:16])
    promise(project.atlas("check"))
    _to_folder(cache)
    promise(project.atlas("check"))
    assert cache.is_file()


@pytest.mark.parametrize("text", ['{"framework": "vllm", "annotations": [', "[1, 2]", ""])
def test_a_damaged_results_file_of_the_build_folder_is_left_out(built, text):
    promise(built.atlas("diff", "vllm", "default", "latest"), (0, 1))
    (built.build / "diff" / "last-vllm.json").write_text(text)
    done = built.atlas("build", "--no-check")
    promise(done)
    assert "last-vllm.json is damaged" in done.stderr and "atlas diff" in done.stderr


def _writable_tree(path):
    for p in [path, *path.rglob("*")]:
        if p.is_dir() and not p.is_symlink():
            p.chmod(0o755)


@pytest.mark.parametrize(
    "damage",
    [
        lambda c: (_writable_tree(c / "checkouts" / "sglang"), _to_file(c / "checkouts" / "sglang")),
        lambda c: _to_file(c / "repos" / "sglang.git"),
        lambda c: _to_file(c / "verified"),
        lambda c: [_to_folder(marker) for marker in (c / "checkouts" / "sglang").glob("*.ok")],
    ],
    ids=["checkouts-file", "repository-file", "verified-file", "marker-folders"],
)
def test_the_wrong_kind_of_file_in_the_cache_is_cleared_by_sync(project, damage):
    damage(project.cache)
    done = project.atlas("show", "Scheduler.schedule", "--framework", "sglang")
    promise(done, (0, 2))
    if done.returncode == 2:
        assert "atlas sync" in done.stderr
    for _ in range(2):
        promise(project.atlas("sync", "--pins", "default,latest"))
        shown = project.atlas("show", "Scheduler.schedule", "--framework", "sglang")
        promise(shown)
        assert "allocate_slots" in shown.stdout


@pytest.mark.parametrize("name", ["html", "docs", "html/index.html", "html/assets"])
def test_the_wrong_kind_of_file_in_the_site_is_replaced_by_the_build(built, name):
    html = built.root / "site_build" / "html"
    clean = files_of(html)
    path = built.root / "site_build" / name
    (_to_file if path.is_dir() else _to_folder)(path)
    promise(built.atlas("build", "--no-check"))
    assert files_of(html) == clean
