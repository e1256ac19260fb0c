"""`atlas build`: gather the inputs, render the pages, write them with the bundled assets into <out>/docs, and let
mkdocs-material build <out>/html. The only code that writes the site; it reports where the time went."""

from __future__ import annotations

import logging
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from atlas import locks, publish
from atlas.env import Settings
from atlas.errors import BuildMissing, ConfigError
from atlas.render.content import load_content
from atlas.render.inputs import SiteData, collect
from atlas.render.site import render_docs
from atlas.runtime.experiments.report import collect as experiments_report
from atlas.sources.gitops import commit_time

VENDOR = {"cytoscape.min.js": "node_modules/cytoscape/dist/cytoscape.min.js",
          "cytoscape.LICENSE": "node_modules/cytoscape/LICENSE",
          "iframe-worker-shim.js": "node_modules/iframe-worker/shim/index.js",
          "iframe-worker.LICENSE": "node_modules/iframe-worker/LICENSE"}


@dataclass(frozen=True, slots=True)
class BuildReport:
    out: Path
    html: Path
    num_pages: int
    num_files: int
    num_symbol_pages: int
    seconds: dict[str, float] = field(default_factory=dict)  # stage -> seconds


def out_dir(settings: Settings, out: str | None = None) -> Path:
    return Path(out).resolve() if out else settings.root / "site_build"


def copy_assets(site: Path, docs: Path) -> None:
    """The site's own JS/CSS and the npm graph library, bundled (no CDN): `npm ci --prefix site` provides it."""
    target = docs / "assets" / "atlas"
    target.mkdir(parents=True, exist_ok=True)
    for item in (site / "assets").iterdir():
        shutil.copy2(item, target / item.name)
    for name, source in VENDOR.items():
        path = site / source
        if not path.is_file():
            raise BuildMissing(f"{path} is missing; run `npm ci --prefix site` to install the bundled graph library")
        shutil.copy2(path, target / name)


def write_docs(files: dict[str, str], docs: Path) -> None:
    """Write the rendered files into `docs` (a fresh staging folder)."""
    for rel, text in sorted(files.items()):
        path = docs / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def fill_slots(html: Path, slots) -> None:
    """Put the source excerpts into the built pages (see atlas.render.excerpt.Slots)."""
    for page in html.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        if 'class="atlas-slot"' in text:
            page.write_text(slots.fill(text), encoding="utf-8")


def mkdocs_build(config: Path, docs: Path, html: Path, nav: list) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException
    logging.getLogger("mkdocs").setLevel(logging.WARNING)
    if not config.is_file():
        raise ConfigError(f"{config} is missing; the site's mkdocs configuration lives at the project root")
    # The pages' dates (sitemap) from the project's last commit, not the clock: two builds give the same bytes.
    epoch = os.environ.get("SOURCE_DATE_EPOCH") or str(commit_time(config.parent))
    saved = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = epoch
    try:
        build(load_config(str(config), docs_dir=str(docs), site_dir=str(html), nav=nav))
    except MkDocsException as exc:
        raise ConfigError(f"mkdocs could not build the site: {exc}; check mkdocs.yml and site/templates") from None
    finally:
        if saved is None:
            os.environ.pop("SOURCE_DATE_EPOCH", None)


def build_site(settings: Settings, frameworks: list[str] | None = None, pin_set: str = "default",
               out: str | None = None, site: SiteData | None = None) -> BuildReport:
    """Render and build the whole site; `site` may be handed in (tests) instead of being collected."""
    seconds = {}
    started = time.perf_counter()
    if site is None:
        site = collect(settings, frameworks, pin_set)
    if "experiments" not in site.results:  # the committed results/experiments/*.json beside the article's figures
        site = SiteData(site.engines, {**site.results, "experiments": experiments_report(settings.root)})
    seconds["inputs"] = time.perf_counter() - started
    mark = time.perf_counter()
    rendered = render_docs(site, load_content(settings.root / "site"), settings.root / "site" / "templates")
    seconds["render"] = time.perf_counter() - mark
    mark = time.perf_counter()
    target = out_dir(settings, out)
    # Built in staging folders beside the live ones and swapped in at the end (atlas.publish): a kill at any moment
    # leaves the previous site whole. The lock keeps two builds of one folder apart (atlas.locks).
    with locks.hold(target, "building the site"), publish.folder(target / "docs") as docs, \
            publish.folder(target / "html") as html:
        write_docs(rendered.files, docs)
        copy_assets(settings.root / "site", docs)
        seconds["write"] = time.perf_counter() - mark
        mark = time.perf_counter()
        mkdocs_build(settings.root / "mkdocs.yml", docs, html, rendered.nav)
        seconds["mkdocs"] = time.perf_counter() - mark
        mark = time.perf_counter()
        fill_slots(html, rendered.slots)
        seconds["excerpts"] = time.perf_counter() - mark
    seconds["total"] = time.perf_counter() - started
    html = target / "html"
    num_pages = sum(1 for p in rendered.files if p.endswith(".md"))
    return BuildReport(target, html, num_pages, len(rendered.files), rendered.num_symbol_pages, seconds)
