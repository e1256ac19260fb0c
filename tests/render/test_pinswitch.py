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
        ("default", "", []), ("latest", "latest/", ["index.html"])]
    at_latest = data(switch_data("latest", roots, refs, pages))
    assert [(s["name"], s["root"]) for s in at_latest["sets"]] == [("default", "../"), ("latest", "")]
    assert at_latest["sets"][0]["pages"] == ["index.html", "a.html"] and at_latest["sets"][0]["refs"] == "vLLM v0.26.0"
