"""The incremental build: after an annotation edit a rebuild reuses what it kept (atlas.render.memo) and gives the
same bytes as a clean build of the edited inputs, in every file of the site."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest
import sitefixture

from atlas.model import Span
from atlas.render import SiteData, build_site

NODE_MODULES = sitefixture.ROOT / "site" / "node_modules"


def _digests(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != ".atlas.lock"
    }


def _edited(site: SiteData, summary: str, start: int) -> SiteData:
    """The fixture's annotation with a new summary and claim text, anchored `start` lines into its symbol."""
    engine = site.engines[0]
    (item,) = engine.anchored
    annotation = dataclasses.replace(
        item.annotation,
        summary=summary,
        claims=(dataclasses.replace(item.annotation.claims[0], claim=f"{summary} (claim)"),),
    )
    anchored = (dataclasses.replace(item, annotation=annotation, span=Span(item.span.path, start, item.span.end)),)
    return SiteData((dataclasses.replace(engine, anchored=anchored),), site.results)


def _differing(a: Path, b: Path) -> list[str]:
    """Files of the site (html/ and docs/; not the memo, whose pickle shares objects differently) that differ."""
    first, second = (
        {f"{part}/{k}": v for part in ("html", "docs") for k, v in _digests(out / part).items()} for out in (a, b)
    )
    return sorted(set(first) ^ set(second)) + sorted(k for k in first.keys() & second.keys() if first[k] != second[k])


@pytest.fixture(scope="module")
def fixture_site(tmp_path_factory):
    if not NODE_MODULES.is_dir():
        pytest.skip("npm ci --prefix site has not been run (the site bundles its graph library)")
    tmp = tmp_path_factory.mktemp("incremental")
    return tmp, sitefixture.settings_for(tmp), sitefixture.site_for(tmp)


@pytest.mark.parametrize(
    "summary, start",
    [("Reserves KV slots for the new tokens, edited.", 8), ("Reserves KV slots <script>alert(4)</script> (中文).", 7)],
)
def test_rebuild_after_an_edit_equals_a_clean_build(fixture_site, summary, start):
    tmp, settings, site = fixture_site
    incremental, clean = tmp / f"incremental-{start}", tmp / f"clean-{start}"
    first = build_site(settings, site=site, out=str(incremental))
    assert first.num_reused == 0 and first.num_made > 0
    edited = _edited(site, summary, start)
    again = build_site(settings, site=edited, out=str(incremental))
    build_site(settings, site=edited, out=str(clean))
    assert again.num_reused > again.num_made > 0  # the edit remade a few units and kept the rest
    assert not _differing(incremental, clean)
    page = (incremental / "html" / "mechanisms" / "prefix-cache.html").read_text()
    assert summary.split(",")[0].split("<")[0] in page


def test_rebuild_of_the_same_inputs_remakes_nothing(fixture_site):
    """A comment added to an annotation file gives the same annotations: every unit is kept, and the site's bytes
    stay those of the clean build."""
    tmp, settings, site = fixture_site
    out = tmp / "same"
    build_site(settings, site=site, out=str(out))
    before = {part: _digests(out / part) for part in ("html", "docs")}
    again = build_site(settings, site=site, out=str(out))
    assert again.num_made == 0 and again.num_reused > 0
    assert {part: _digests(out / part) for part in ("html", "docs")} == before


def test_rebuild_of_the_same_inputs_keeps_every_file(fixture_site):
    """The unchanged files of a rebuild are the previous build's own (hard links, atlas.publish): nothing is written
    again, and the swap frees nothing."""
    tmp, settings, site = fixture_site
    out = tmp / "kept"
    build_site(settings, site=site, out=str(out))
    before = {
        p.relative_to(out): p.stat().st_ino for part in ("html", "docs") for p in (out / part).rglob("*") if p.is_file()
    }
    build_site(settings, site=site, out=str(out))
    after = {
        p.relative_to(out): p.stat().st_ino for part in ("html", "docs") for p in (out / part).rglob("*") if p.is_file()
    }
    assert after == before
