"""`atlas build`: gather the inputs, render the pages, write them with the bundled assets into <out>/docs, and let
mkdocs-material build <out>/html. The only code that writes the site; it reports where the time went."""

from __future__ import annotations

import hashlib
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from atlas import locks, publish
from atlas.env import Settings, source_date_epoch
from atlas.errors import AtlasError, BuildMissing, ConfigError
from atlas.model import Finding
from atlas.render import cjk, memo_files, pages, pinswitch
from atlas.render.content import load_content
from atlas.render.inputs import SiteData, collect
from atlas.render.memo import Memo, code_version, digest
from atlas.render.pages_kept import kept_pages
from atlas.render.pinchanges import pin_changes
from atlas.render.site import render_docs
from atlas.runtime.experiments.report import collect as experiments_report
from atlas.sources import recheck
from atlas.sources.gitops import commit_time

log = logging.getLogger("atlas")
VENDOR = {
    "cytoscape.min.js": "node_modules/cytoscape/dist/cytoscape.min.js",
    "cytoscape.LICENSE": "node_modules/cytoscape/LICENSE",
    "iframe-worker-shim.js": "node_modules/iframe-worker/shim/index.js",
    "iframe-worker.LICENSE": "node_modules/iframe-worker/LICENSE",
    "prism.LICENSE": "node_modules/prismjs/LICENSE",
    "uplot.min.js": "node_modules/uplot/dist/uPlot.iife.min.js",
    "uplot.min.css": "node_modules/uplot/dist/uPlot.min.css",
    "uplot.LICENSE": "node_modules/uplot/LICENSE",
}
PRISM = ("prism-core", "prism-clike", "prism-c", "prism-cpp", "prism-python")  # the source view's languages


@dataclass(frozen=True, slots=True)
class BuildReport:
    out: Path
    html: Path
    num_pages: int
    num_files: int
    num_symbol_pages: int
    num_reused: int = 0  # units taken from the previous build's memo (atlas.render.memo)
    num_made: int = 0
    seconds: dict[str, float] = field(default_factory=dict)  # stage -> seconds (the first set: with the steps of all)
    refs: tuple[str, ...] = ()  # "vLLM v0.26.0", one per engine: what the pin set holds
    findings: tuple[Finding, ...] = ()  # annotations that did not resolve at the pins (shown so on their pages)


def out_dir(settings: Settings, out: str | None = None) -> Path:
    return Path(out).resolve() if out else settings.root / "site_build"


def copy_assets(site: Path, docs: Path, previous: Path | None = None) -> None:
    """The site's own JS/CSS and the npm graph library, bundled (no CDN): `npm ci --prefix site` provides it."""
    target = Path("assets") / "atlas"
    for item in (site / "assets").iterdir():
        _put(docs, target / item.name, item.read_bytes(), previous)
    for name, source in VENDOR.items():
        path = site / source
        if not path.is_file():
            raise BuildMissing(f"{path} is missing; run `npm ci --prefix site` to install the bundled graph library")
        _put(docs, target / name, path.read_bytes(), previous)
    parts = [site / "node_modules" / "prismjs" / "components" / f"{name}.min.js" for name in PRISM]
    _put(
        docs,
        target / "prism-atlas.js",
        (
            "window.Prism=window.Prism||{};window.Prism.manual=true;\n"
            + "\n".join(p.read_text(encoding="utf-8") for p in parts)
        ).encode("utf-8"),
        previous,
    )


def write_cjk_font(site: Path, docs: Path, chars: str, memo: Memo | None = None, previous: Path | None = None) -> None:
    """The font subset holding the site's CJK characters (kept in `memo` per font and characters), its licence and
    its stylesheet (atlas.render.cjk)."""
    font = site / cjk.FONT
    if not font.is_file():
        raise BuildMissing(f"{font} is missing; run `npm ci --prefix site` to install the bundled CJK font")
    memo = memo or Memo()
    data = font.read_bytes()
    subset = memo.get(
        memo.key("cjk", hashlib.sha256(data).hexdigest(), chars or "\u3000"),
        lambda: cjk.subset(font, chars or "\u3000"),
    )
    target = Path("assets") / "atlas"
    _put(docs, target / cjk.FILE, subset, previous)
    _put(docs, target / "atlas-cjk.LICENSE", (site / cjk.LICENSE).read_bytes(), previous)
    _put(docs, target / "atlas-cjk.css", cjk.font_face(chars).encode("utf-8"), previous)


def write_files(files: dict[str, str], folder: Path, previous: Path | None = None) -> None:
    """Write rendered files into `folder` (a staging folder); those equal to the files of `previous` (the folder it
    replaces) are hard links to them (atlas.publish.write_new)."""
    for rel, text in sorted(files.items()):
        _put(folder, Path(rel), text.encode("utf-8"), previous)


def _put(folder: Path, rel: Path, data: bytes, previous: Path | None) -> None:
    publish.write_new(folder / rel, data, previous / rel if previous is not None else None)


def fill_slots(html: Path, slots, pages: list[str], previous: Path | None = None) -> None:
    """Put the source excerpts into the built pages (see atlas.render.excerpt.Slots); `pages`: the docs-relative
    Markdown pages, built into `html` as .html; a filled page equal to the one in `previous` (the folder `html`
    replaces) is a hard link to it."""
    for rel in pages:
        built = f"{rel.removesuffix('.md')}.html"
        page = html / built
        text = page.read_text(encoding="utf-8")
        if 'class="atlas-slot"' in text:
            page.unlink()  # a new file, not a rewrite in place (atlas.publish)
            publish.write_new(
                page,
                slots.fill(text, "../" * rel.count("/")).encode("utf-8"),
                previous / built if previous is not None else None,
            )


def mkdocs_build(config: Path, docs: Path, html: Path, nav: list, memo: Memo | None = None) -> None:
    """mkdocs-material builds `html` from `docs`; pages seen in an earlier build come from `memo` (pages_kept)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    logging.getLogger("mkdocs").setLevel(logging.WARNING)
    if not config.is_file():
        raise ConfigError(f"{config} is missing; the site's mkdocs configuration lives at the project root")
    # The pages' dates (sitemap) from the project's last commit, not the clock: two builds give the same bytes.
    epoch = source_date_epoch() or str(commit_time(config.parent))
    saved = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = epoch
    config_key = digest(config.read_text(encoding="utf-8"), nav, epoch)
    try:
        with kept_pages(memo or Memo(), config_key):
            build(load_config(str(config), docs_dir=str(docs), site_dir=str(html), nav=nav))
    except MkDocsException as exc:
        raise ConfigError(f"mkdocs could not build the site: {exc}; check mkdocs.yml and site/templates") from None
    finally:
        if saved is None:
            os.environ.pop("SOURCE_DATE_EPOCH", None)


def build_site(
    settings: Settings,
    frameworks: list[str] | None = None,
    pin_set: str = "default",
    out: str | None = None,
    site: SiteData | None = None,
) -> BuildReport:
    """Render and build the site of one pin set; `site` may be handed in (tests) instead of being collected."""
    return build_sites(settings, frameworks, [pin_set], out, [site] if site is not None else None)[0]


def build_sites(
    settings: Settings,
    frameworks: list[str] | None,
    pin_sets: list[str],
    out: str | None = None,
    sites: list[SiteData] | None = None,
) -> list[BuildReport]:
    """One site holding several pin sets: the first at the root of html/, each other under html/<set>/, and on
    every page a switch to the same page at the other pins (atlas.render.pinswitch). `sites` may be handed in (tests)
    instead of being collected. Built in staging folders beside the live ones and swapped in at the end
    (atlas.publish), html/ once for all sets: a kill at any moment leaves the previous site whole. A file equal to
    the previous build's is a hard link to it, so the build writes, and the swap frees, only what changed. The lock
    keeps two builds of one folder apart (atlas.locks). A stored unit that passed the memo's checks but breaks the
    build (a value of another shape inside it) costs one build without the memo: it is cleared and the build made
    again; a second failure is raised."""
    target = out_dir(settings, out)
    try:
        return _build_sites(settings, frameworks, pin_sets, target, sites, with_memo=True)
    except (AtlasError, OSError):
        raise
    except Exception:  # noqa: BLE001 - a unit of the memo read as something else: remade below, or raised again
        if not (target / ".memo").exists():
            raise
        log.warning("atlas build: the site's memo does not hold what the build takes; building without it")
    return _build_sites(settings, frameworks, pin_sets, target, sites, with_memo=False)


def _build_sites(
    settings: Settings,
    frameworks: list[str] | None,
    pin_sets: list[str],
    target: Path,
    sites: list[SiteData] | None,
    with_memo: bool,
) -> list[BuildReport]:
    live = target / "html"
    roots = {pin_set: ("" if number == 0 else pin_set) for number, pin_set in enumerate(pin_sets)}
    with locks.hold(target, "building the site", knob="--out"), publish.folder(live) as html:
        if not with_memo:
            publish.discard(target / ".memo")
        started = time.perf_counter()
        # Each unit (resolved annotation, source file data, symbol page, built page) is kept under a key of its
        # inputs in a memo per set beside the site: a rebuild remakes only units with new inputs, and gives the same
        # bytes as a clean build.
        salt = code_version(settings.root)
        memos = [memo_files.load(_memo_folder(target, roots[pin_set]), salt) for pin_set in pin_sets]
        collected = sites is None
        if sites is None:
            sites = _collect(settings, frameworks, pin_sets, memos)
        experiments = experiments_report(settings.root)  # the committed results/experiments/*.json and the article
        sites = [
            site
            if "experiments" in site.results
            else SiteData(site.engines, {**site.results, "experiments": experiments})
            for site in sites
        ]
        shared = {"inputs": time.perf_counter() - started}  # the steps of all sets, told with the first set's
        reports = [
            _build_pin_set(settings, site, memo, target, html, roots[pin_set], shared if number == 0 else {}, collected)
            for number, (pin_set, site, memo) in enumerate(zip(pin_sets, sites, memos))
        ]
        mark = time.perf_counter()
        _write_switches(html, live, roots, {s: ", ".join(r.refs) for s, r in zip(pin_sets, reports)})
    shared["publish"] = time.perf_counter() - mark
    return reports


def _collect(
    settings: Settings, frameworks: list[str] | None, pin_sets: list[str], memos: list[Memo]
) -> list[SiteData]:
    """Each set's inputs (atlas.render.inputs.collect); the default set's also say what changed at the latest pins
    (atlas.render.pinchanges), from the indexes collected here."""
    sites = [collect(settings, frameworks, pin_set, memo) for pin_set, memo in zip(pin_sets, memos)]
    if "default" in pin_sets:
        number = pin_sets.index("default")
        changes = pin_changes(
            settings, frameworks, memo=memos[number], engines=[engine for site in sites for engine in site.engines]
        )
        sites[number] = SiteData(sites[number].engines, {**sites[number].results, "pin_changes": changes})
    return sites


def _memo_folder(target: Path, root: str) -> Path:
    return target / ".memo" / (root or "root")


def _build_pin_set(
    settings: Settings,
    site: SiteData,
    memo: Memo,
    target: Path,
    html: Path,
    root: str,
    seconds: dict[str, float],
    from_checkouts: bool = True,
) -> BuildReport:
    """One pin set of build_sites: its pages rendered, its docs folder written and swapped in, its HTML built into
    `html`/`root` (a staging folder; the live one is target/html/`root`), its memo stored; the time of each step
    goes into `seconds`. `from_checkouts`: the engines' files were read from synced checkouts, which are checked
    once more before anything made from them is kept."""
    live = target / "html"
    started = time.perf_counter()
    rendered = render_docs(site, load_content(settings.root / "site"), settings.root / "site" / "templates", memo)
    seconds["render"] = time.perf_counter() - started
    mark = time.perf_counter()
    live_docs = target / (f"docs-{root}" if root else "docs")
    with publish.folder(live_docs) as docs:  # mkdocs's input: the Markdown pages and the site's own assets
        write_files({p: text for p, text in rendered.files.items() if p.endswith(".md")}, docs, live_docs)
        copy_assets(settings.root / "site", docs, live_docs)
        write_cjk_font(settings.root / "site", docs, rendered.cjk, memo, live_docs)
        seconds["write"] = time.perf_counter() - mark
        mark = time.perf_counter()
        mkdocs_build(settings.root / "mkdocs.yml", docs, html / root, rendered.nav, memo)
        seconds["mkdocs"] = time.perf_counter() - mark
        mark = time.perf_counter()
        fill_slots(html / root, rendered.slots, [p for p in rendered.files if p.endswith(".md")], live / root)
        publish.share_unchanged(html / root, live / root)  # what mkdocs wrote and the previous build holds
        seconds["excerpts"] = time.perf_counter() - mark
        mark = time.perf_counter()  # the data files the pages' scripts load go into the site as they are, after
        write_files(
            {p: text for p, text in rendered.files.items() if not p.endswith(".md")}, html / root, live / root
        )  # mkdocs (it empties its folder first)
        seconds["data"] = time.perf_counter() - mark
        mark = time.perf_counter()
        for engine in site.engines if from_checkouts else ():
            recheck(engine.name, engine.pin_set, engine.checkout, engine.pin.commit)  # nothing edited meanwhile
        memo_files.dump(_memo_folder(target, root), memo, target)
        seconds["memo"] = time.perf_counter() - mark
    seconds["total"] = time.perf_counter() - started
    refs = tuple(f"{pages.engine_label(e.name)} {e.pin.ref}" for e in site.engines)
    num_pages = sum(1 for p in rendered.files if p.endswith(".md"))
    return BuildReport(
        target,
        target / "html" / root,
        num_pages,
        len(rendered.files),
        rendered.num_symbol_pages,
        memo.num_reused,
        memo.num_made,
        seconds,
        refs,
        tuple(a.finding for e in site.engines for a in e.anchored if a.finding is not None),
    )


def _write_switches(html: Path, live: Path, roots: dict[str, str], refs: dict[str, str]) -> None:
    """Each set's pinsets.js: the sets, their pins and the pages each has (atlas.render.pinswitch)."""
    others = {root for root in roots.values() if root}
    listed = {}  # set -> its pages, those of the sets under it left out
    for pin_set, root in roots.items():
        pages_of = (p.relative_to(html / root) for p in (html / root).rglob("*.html"))
        listed[pin_set] = sorted(p.as_posix() for p in pages_of if root or p.parts[0] not in others)
    for pin_set, root in roots.items():
        rel = Path(root) / "assets" / "atlas" / "pinsets.js"
        publish.write_new(html / rel, pinswitch.switch_data(pin_set, roots, refs, listed).encode("utf-8"), live / rel)
