"""atlas.graph.packs: the parse cache's pack files give back what was written, pass over a pack they cannot read, and
merge into one when there are too many."""

from __future__ import annotations

from atlas.graph import packs
from atlas.graph.packs import Packs


def test_entries_come_back_from_their_packs(tmp_path):
    store = Packs(tmp_path / "cache")
    assert store.read(["a"]) == {}
    store.write({"a": b"alpha", "b": b""})
    store.write({"c": b"\x00" * 5000})
    again = Packs(tmp_path / "cache")  # another process: only the files
    assert again.read(["a", "b", "c", "missing"]) == {"a": b"alpha", "b": b"", "c": b"\x00" * 5000}
    assert len(list((tmp_path / "cache").glob("*.pack"))) == 2


def test_a_damaged_pack_is_passed_over(tmp_path):
    store = Packs(tmp_path)
    store.write({"a": b"alpha"})
    store.write({"b": b"beta"})
    (pack_b,) = [p for p in tmp_path.glob("*.pack") if b"beta" in p.read_bytes()]
    pack_b.write_bytes(pack_b.read_bytes()[:20])  # cut short, as a full disk or a kill would
    (tmp_path / "junk.pack").write_bytes(b"not a pack")
    assert Packs(tmp_path).read(["a", "b"]) == {"a": b"alpha"}


def test_too_many_packs_are_merged(tmp_path, monkeypatch):
    monkeypatch.setattr(packs, "MAX_PACKS", 3)
    store = Packs(tmp_path)
    for i in range(5):
        store.write({f"k{i}": str(i).encode()})
    assert len(list(tmp_path.glob("*.pack"))) <= 3
    assert Packs(tmp_path).read([f"k{i}" for i in range(5)]) == {f"k{i}": str(i).encode() for i in range(5)}
