"""All of the site's generated files from SiteData: Markdown pages, data files, and the navigation. Pure; the
build (atlas.render.build) writes them and runs mkdocs."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from atlas.render import browser, code, components, experiments, kernels, mechanisms, pages, runtime, urls
from atlas.render.cjk import cjk_chars
from atlas.render.content import MECHANISMS, Content
from atlas.render.env import environment
from atlas.render.excerpt import Slots
from atlas.render.graphdata import as_script
from atlas.render.inputs import SiteData
from atlas.render.linker import Linker
from atlas.render.memo import Memo
from atlas.render.summary import summarize


@dataclass(frozen=True, slots=True)
class Rendered:
    files: dict[str, str]  # docs-relative path -> text
    slots: Slots  # source excerpts, filled into the built HTML
    nav: list  # mkdocs nav
    num_symbol_pages: int
    cjk: str = ""  # the CJK characters of every page and source file (atlas.render.cjk subsets a font to them)


def _paged(linker: Linker, content: Content) -> frozenset[str]:
    """The symbols that get a page of their own: annotated, pipeline and component symbols that have a file."""
    engine = linker.engine
    ids = {a.annotation.symbol for a in engine.anchored}
    spec = content.pipeline["engines"].get(engine.name, {"stages": {}, "steps": {}})
    for group in (spec["stages"], spec["steps"]):
        for symbol_ids in group.values():
            ids.update(symbol_ids)
    for shown in linker.summary.members.values():
        ids.update(shown)
    return frozenset(i for i in ids if linker.exists(i) and linker.facts(i)["path"])


def render_docs(site: SiteData, content: Content, templates: Path, memo: Memo | None = None) -> Rendered:
    """Every generated file of the site; the symbol pages and the source view's data are kept in `memo` (see
    atlas.render.memo), the other pages (few, and reached by many annotations) are made every time."""
    memo = memo or Memo()
    env = environment(templates, memo)
    site = SiteData(tuple(sorted(site.engines, key=lambda e: (e.name != "vllm", e.name))), site.results)
    files: dict[str, str] = {}
    anchored = defaultdict(list)
    for engine in site.engines:
        for item in engine.anchored:
            anchored[(engine.name, item.annotation.mechanism)].append(item)
    linkers: dict[str, Linker] = {}
    source_chars: set[str] = set()
    slots = Slots()
    num_symbol_pages = 0
    nav_components, nav_browse = [], []
    for engine in site.engines:
        summary = memo.get(
            memo.key("summary", engine.name, engine.fingerprint), lambda e=engine: summarize(e.graph, e.symbols)
        )
        linker = Linker(engine, _paged(Linker(engine, frozenset(), summary, memo=memo), content), summary, slots, memo)
        linkers[engine.name] = linker
        by_symbol = defaultdict(list)
        reviewed = defaultdict(list)  # the review rows a symbol page shows, by annotation
        for item in engine.anchored:
            by_symbol[item.annotation.symbol].append(item)
        for row in engine.reviews:
            reviewed[row.annotation].append(row)
        for symbol_id in sorted(linker.paged):
            items = by_symbol.get(symbol_id, [])
            rows = [r for item in items for r in reviewed.get(item.annotation.id, ())]
            path, text, fragments = memo.get(
                linker.unit_key("symbol", symbol_id, items, rows, engine.review_pins if rows else ()),
                lambda s=symbol_id, i=items, lk=linker: _symbol_page(env, lk, s, i),
            )
            for fragment in fragments:  # a kept page's excerpts
                slots.put(fragment)
            files[path] = text
            num_symbol_pages += 1
        for path, text in components.component_outputs(env, linker):
            files[path] = text
            if path.endswith(".md"):
                nav_components.append({f"{pages.engine_label(engine.name)} {Path(path).stem}": path})
        files.update(memo.get(linker.unit_key("browser"), lambda lk=linker: _browser_files(lk)))
        files.update(
            code.code_files(
                engine,
                code.runtime_for(engine, site.results.get("traces") or [], site.results.get("recordings") or [], memo),
                _note_href,
                source_chars,
                memo,
            )
        )
        path, text = pages.browser_page(env, linker)
        files[path] = text
        nav_browse.append({pages.engine_label(engine.name): path})
    files["index.md"] = pages.home(env, content, linkers, site)
    files["code.md"] = env.get_template("code.md.j2").render(
        root="",
        engines=[e.name for e in site.engines],
        default=site.engines[0].name if site.engines else "",
        labels=[pages.engine_label(e.name) for e in site.engines],
    )
    for slug in MECHANISMS:
        path, text = mechanisms.mechanism_page(env, slug, content, linkers, anchored, site)
        files[path] = text
    path, text = mechanisms.mechanisms_index(env, content, anchored)
    files[path] = text
    path, text = components.components_index(env, linkers)
    files[path] = text
    by_mechanism = defaultdict(list)
    for (_, mechanism), items in anchored.items():
        by_mechanism[mechanism].extend(items)
    diagnoses = runtime.diagnoses(site.results.get("traces") or [], site.results.get("series") or {})
    for path, text in pages.bottlenecks_page(env, content, by_mechanism, diagnoses):
        files[path] = text
    path, text = mechanisms.multi_gpu_page(env, content, linkers, anchored, site)
    files[path] = text
    for path, text in pages.result_pages(env, site):
        files[path] = text
    path, text = kernels.kernels_page(env, site.results.get("gpu_kernels") or {}, linkers)
    files[path] = text
    report = site.results.get("experiments")  # the article's experiments (atlas.runtime.experiments.report)
    for path, text in experiments.experiment_pages(env, report, linkers) if report is not None else ():
        files[path] = text
    nav = [
        {"Home": "index.md"},
        {"Mechanisms": ["mechanisms/index.md"] + [{t: urls.mechanism_page(s)} for s, t in MECHANISMS.items()]},
        {"Components": ["components/index.md"] + nav_components},
        {"Symbols": nav_browse + [{"Source": "code.md"}]},
        {
            "Cross-reference": [
                {"Reading bottlenecks (s11)": "crossref/bottlenecks.md"},
                {"Multi-GPU questions (s12)": "crossref/multi-gpu.md"},
            ]
        },
        {
            "Runtime": [
                {"Probe traces": "runtime.md"},
                {"GPU kernels per step": kernels.PAGE},
                {"Diff across pins": "diff.md"},
            ]
        },
    ]
    if report is not None:
        nav.append(experiments.nav_entry(report))
    chars = cjk_chars([*files.values(), *slots.fragments.values(), "".join(source_chars)])
    return Rendered(files, slots, nav, num_symbol_pages, chars)


def _browser_files(linker: Linker) -> dict[str, str]:
    """The symbol browser's data files of one engine (atlas.render.browser)."""
    name = linker.engine.name
    payloads = browser.browser_files(
        name,
        linker.engine.symbols,
        lambda sid: linker.from_root(sid) if linker.page(sid) else "",
        lambda path: urls.file_data(name, path),
    )
    return {_data_path(name, key): as_script(key, payload) for key, payload in payloads.items()}


def _symbol_page(env, linker: Linker, symbol_id: str, items: list) -> tuple[str, str, list[str]]:
    """A symbol page with the excerpts it put into the linker's slots."""
    with linker.slots.recording() as fragments:
        path, text = pages.symbol_page(env, linker, symbol_id, items)
    return path, text, fragments


def _data_path(engine: str, key: str) -> str:
    """Where a browser data key lives: files list, one file per source file, and name shards."""
    kind, _, rest = key[len(engine) + 1 :].partition("/")
    if kind == "file":
        return urls.file_data(engine, rest)
    if kind == "names":
        return f"assets/atlas/data/{engine}/names/{urls.slug(rest)}.js"
    return f"assets/atlas/data/{engine}/files.js"


def _note_href(annotation) -> str:
    """An annotation's section, relative to the site root (the source view resolves it against its root)."""
    return urls.rel("index.md", urls.annotation_page(annotation.mechanism), urls.anchor(annotation.id))
