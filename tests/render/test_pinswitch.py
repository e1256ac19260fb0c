"""The pin-set switch's data: each set's root names every set with its root relative to itself."""

import json

from atlas.render.pinswitch import switch_data


def data(text: str) -> dict:
    return json.loads(text.split("]=", 1)[1].rstrip(";\n"))


def test_roots_are_relative_to_each_set():
    roots = {"default": "", "latest": "latest"}
    refs = {"default": "vLLM v0.26.0", "latest": "vLLM v0.33.0"}
    pages = {"default": ["index.html", "a.html"], "latest": ["index.html"]}
    at_default = data(switch_data("default", roots, refs, pages))
    assert at_default["current"] == "default"
    assert [(s["name"], s["root"], s["pages"]) for s in at_default["sets"]] == [
        ("default", "", []),
        ("latest", "latest/", ["index.html"]),
    ]
    at_latest = data(switch_data("latest", roots, refs, pages))
    assert [(s["name"], s["root"]) for s in at_latest["sets"]] == [("default", "../"), ("latest", "")]
    assert at_latest["sets"][0]["pages"] == ["index.html", "a.html"] and at_latest["sets"][0]["refs"] == "vLLM v0.26.0"


def test_one_set_is_published_whole_by_its_swap(tmp_path, monkeypatch):
    """With one pin set nothing is written into the live site after the staged folder is swapped in: a kill
    right after the swap must leave a whole site (the pin switch's data is part of the staged build)."""
    import sitefixture

    from atlas import publish
    from atlas.render import build as build_module

    swapped = {}
    inner = publish.swap

    def swap(staging, target):
        inner(staging, target)
        if target.name == "html":
            swapped.update(
                {p: (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes()) for p in target.rglob("*") if p.is_file()}
            )

    monkeypatch.setattr(publish, "swap", swap)
    reports = build_module.build_sites(
        sitefixture.settings_for(tmp_path), None, ["default"], str(tmp_path / "out"), [sitefixture.site_for(tmp_path)]
    )
    after = {
        p: (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes()) for p in reports[0].html.rglob("*") if p.is_file()
    }
    assert (reports[0].html / "assets" / "atlas" / "pinsets.js") in after
    assert after == swapped
