"""Small faults: `atlas serve` asked for a path no file can have, `atlas build` over annotations that do not resolve,
and `atlas check` over an evidence list repeated through a YAML alias."""

from __future__ import annotations

import http.client
import importlib
import socket
import time

import pytest
from project import promise

ANNOTATION = """schema: 1
framework: vllm
annotations:
  - id: vllm.prefix-cache.allocate
    mechanism: prefix-cache
    symbol: pkg.kv.KVCacheManager.allocate_slots
    anchor:
      pattern: "self.pool.get_new_blocks(n)"
    role: allocate
    summary: Takes blocks from the pool.
    claims:
      - id: c0
        article: "a"
        claim: "c"
        verdict: holds
        evidence: &items
{items}
{claims}
"""


def _annotations(project, text: str, name: str = "fixture.yaml") -> None:
    (project.root / "annotations" / "vllm").mkdir(exist_ok=True)
    (project.root / "annotations" / "vllm" / name).write_text(text)


def _aliased(num_items: int, num_uses: int) -> str:
    items = "\n".join('          - pattern: "return self.pool.get_new_blocks(n)"' for _ in range(num_items))
    claims = "\n".join(
        f'      - id: c{i}\n        article: "a"\n        claim: "c"\n        verdict: holds\n        evidence: *items'
        for i in range(1, num_uses)
    )
    return ANNOTATION.format(items=items, claims=claims)


def test_serve_answers_a_nul_in_a_path_without_an_error(built):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = built.start("serve", "--port", str(port))
    try:
        statuses = {}
        for _ in range(100):
            try:
                for path in ("/%00", "/a%00b.html", "/assets/%00/x.js", "/%ff%fe", "/index.html"):
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                    connection.request("GET", path)
                    statuses[path] = connection.getresponse().status
                    connection.close()
                break
            except ConnectionRefusedError:
                time.sleep(0.1)
    finally:
        server.terminate()
        _, err = server.communicate(timeout=30)
    assert statuses == {"/%00": 400, "/a%00b.html": 400, "/assets/%00/x.js": 400, "/%ff%fe": 404, "/index.html": 200}
    assert "Traceback" not in err, err


def test_build_names_the_annotations_it_could_not_resolve(built):
    _annotations(built, _aliased(1, 1))
    _annotations(
        built,
        ANNOTATION.split("    claims:")[0]
        .replace("allocate_slots", "no_such_method")
        .replace("vllm.prefix-cache.allocate", "vllm.prefix-cache.gone"),
        "gone.yaml",
    )
    done = built.atlas("build", "--no-check")
    promise(done, (1,))
    assert "annotations/vllm/gone.yaml:4: symbol-not-found" in done.stdout, done.stdout
    assert "1 finding(s)" in done.stderr
    json_done = built.atlas("build", "--no-check", "--format", "json")
    promise(json_done, (1,))
    assert '"where": "annotations/vllm/gone.yaml:4"' in json_done.stdout


def test_check_matches_an_aliased_evidence_item_once(project, monkeypatch):
    """400 uses of one list of 50 evidence items (20,000 items): each distinct pattern is matched once per symbol,
    and every item is still reported."""
    _annotations(project, _aliased(50, 400))
    done = project.atlas("check")
    promise(done)
    assert "20000/20000 evidence items hold" in done.stderr, done.stderr

    from atlas.annotate import load_annotations
    from atlas.annotate.check import check
    from atlas.env import settings
    from atlas.graph import load_index

    monkeypatch.chdir(project.root)
    for name, value in project.env.items():
        monkeypatch.setenv(name, value)
    resolve = importlib.import_module("atlas.annotate.resolve")
    calls = []
    found = resolve.find
    monkeypatch.setattr(resolve, "find", lambda *args: calls.append(args[0].text) or found(*args))
    report = check(load_annotations(project.root), load_index(settings(), "vllm"), "default")
    assert len(report.evidence) == 20_000 and all(e.finding is None for e in report.evidence)
    assert len(calls) == 2, calls  # the anchor's pattern and the evidence pattern


@pytest.mark.parametrize("verb", [("check",), ("build", "--no-check")])
def test_an_aliased_annotation_file_is_read_whole_by_every_verb(built, verb):
    _annotations(built, _aliased(50, 400))
    promise(built.atlas(*verb))
