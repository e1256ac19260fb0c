"""The store of `atlas diff`'s changes in the build folder (atlas.query.diffs): read only when it holds what `keep`
writes; one of another shape, or a thing of the wrong kind in its place, is made again from a fresh diff."""

from types import SimpleNamespace

import pytest

from atlas import stored
from atlas.model import Change, ChangeKind, Pin
from atlas.query import diffs

OLD, NEW = Pin("vllm", "default", "a" * 40, "u"), Pin("vllm", "latest", "b" * 40, "u")
CHANGES = (Change(ChangeKind.ADDED, "pkg.f"),)


@pytest.fixture
def atlas(tmp_path, monkeypatch):
    calls = []

    def diff(settings, manifest, old, new):
        calls.append((old, new))
        return SimpleNamespace(framework="vllm", old=OLD, new=NEW, changes=CHANGES)

    monkeypatch.setattr(diffs, "diff", diff)
    manifest = SimpleNamespace(
        pins={"default": {"locks": {"upstream": OLD.commit}}, "latest": {"locks": {"upstream": NEW.commit}}}
    )
    return SimpleNamespace(settings=SimpleNamespace(build=tmp_path / "build"), manifest=lambda _: manifest, calls=calls)


def test_a_stored_diff_is_reused(atlas):
    assert diffs.changes(atlas, "vllm", "default", "latest")[2] == CHANGES
    assert diffs.changes(atlas, "vllm", "default", "latest")[2] == CHANGES
    assert len(atlas.calls) == 1


@pytest.mark.parametrize("junk", [(("p", "q"), "not changes"), ("a", "tuple", "of", "strings"), {"a": 1}])
def test_a_stored_diff_of_another_shape_is_made_again(atlas, junk):
    path = diffs._file(atlas, "vllm", "default", "latest")
    path.parent.mkdir(parents=True)
    stored.dump(path, junk, diffs.CHANGES_VERSION)  # header, length and checksum all valid
    assert diffs.changes(atlas, "vllm", "default", "latest")[2] == CHANGES
    assert diffs.changes(atlas, "vllm", "default", "latest")[2] == CHANGES
    assert len(atlas.calls) == 1


@pytest.mark.parametrize("where", ["file", "folder"])
def test_the_wrong_kind_of_thing_in_the_stores_place_is_cleared(atlas, where):
    path = diffs._file(atlas, "vllm", "default", "latest")
    if where == "file":  # a file where the diff folder belongs
        path.parent.parent.mkdir(parents=True)
        path.parent.write_text("x")
    else:  # a folder where the stored file belongs
        (path / "inside").mkdir(parents=True)
    assert diffs.changes(atlas, "vllm", "default", "latest")[2] == CHANGES
    assert path.is_file()
