"""The annotations against the real trees of the other pin sets (vLLM v0.32.0 `cpu` and v0.33.0 `latest`, SGLang
v0.5.23 `latest`): every anchor and piece of evidence resolves as it reads there (its `at:` entries), and every
claim whose verdict differs from the default pin's says why. Uses the folder index over the synced checkouts; skipped,
with the reason, where a pin is not synced."""

from pathlib import Path

import pytest
from annotate.folder_index import FolderIndex

from atlas.annotate import check, load_annotations, load_reviews

PROJECT = Path(__file__).resolve().parents[2]


def pin_index(framework: str, pin_set: str) -> FolderIndex:
    from atlas.env import settings
    from atlas.sources import load_all, locate

    s = settings(root=str(PROJECT))
    (manifest,) = load_all(s.root, [framework])
    try:
        checkout = locate(manifest, pin_set, s)
    except Exception as exc:  # noqa: BLE001 - any failure to find the checkout means: not synced here
        pytest.skip(
            f"{framework} {pin_set} pin not synced ({exc}); export ATLAS_MIRROR=/work/shared/sources and "
            f"run `atlas sync --pins {pin_set}`"
        )
    return FolderIndex(checkout.path, checkout.pin, manifest.package_root)


@pytest.mark.parametrize("framework, pin_set", [("vllm", "cpu"), ("vllm", "latest"), ("sglang", "latest")])
def test_every_anchor_and_evidence_resolves_at_the_pin_set(framework, pin_set):
    report = check(load_annotations(PROJECT, framework), pin_index(framework, pin_set), pin_set)
    assert [f"{f.where}: {f.message}" for f in report.findings] == []


@pytest.mark.parametrize("framework", ["vllm", "sglang"])
def test_every_changed_verdict_says_why(framework):
    for a in load_annotations(PROJECT, framework):
        for c in a.claims:
            for pin_set, verdict in c.at:
                assert verdict.note, f"{a.id}#{c.id} at {pin_set}: a verdict at another pin needs a note saying why"


@pytest.mark.parametrize("pin_set", ["cpu", "latest"])
def test_the_vllm_review_rows_of_other_pin_sets_hold_there(pin_set):
    annotations = load_annotations(PROJECT, "vllm")
    report = check(annotations, pin_index("vllm", pin_set), pin_set, load_reviews(PROJECT))
    assert [f"{f.where}: {f.message}" for f in report.findings] == []
    assert report.num_statements > 0 and report.num_reviewed == report.num_statements
