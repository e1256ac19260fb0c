"""All of the site's generated files from SiteData: Markdown pages, data files, and the navigation. Pure; the
build (atlas.render.build) writes them and runs mkdocs."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from atlas.render import browser, code, components, experiments, mechanisms, pages, urls
from atlas.render.cjk import cjk_chars
from atlas.render.content import MECHANISMS, Content
from atlas.render.excerpt import Slots
from atlas.render.env import environment
from atlas.render.graphdata import as_script
from atlas.render.inputs import SiteData
from atlas.render.linker import Linker
from atlas.render.memo import Memo, digest


@dataclass(frozen=True, slots=True)
class Rendered:
    files: dict[str, str]  # docs-relative path -> text
    slots: Slots  # source excerpts, filled into the built HTML
    nav: list  # mkdocs nav
    num_symbol_pages: int
    cjk: str = ""  # the CJK characters of every page and source file (atlas.render.cjk subsets a font to them)


def _paged(engine, content: Content, members: dict[str, list[str]], anchored) -> frozenset[str]:
    linker = Linker(engine, frozenset())
    ids = {a.annotation.symbol for a in anchored}
    spec = content.pipeline["engines"].get(engine.name, {"stages": {}, "steps": {}})
    for group in (spec["stages"], spec["steps"]):
        for symbol_ids in group.values():
            ids.update(symbol_ids)
    for shown in members.values():
        ids.update(shown)
    return frozenset(i for i in ids if linker.exists(i) and linker.facts(i)["path"])


def render_docs(site: SiteData, content: Content, templates: Path, memo: Memo | None = None) -> Rendered:
    """Every generated file of the site; the symbol pages and the source view's data are kept in `memo` (see
    atlas.render.memo), the other pages (few, and reached by many annotations) are made every time."""
    memo = memo or Memo()
    env = environment(templates)
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
        members = components.paged_members(Linker(engine, frozenset()))
        linker = Linker(engine, _paged(engine, content, members, engine.anchored), slots)
        linkers[engine.name] = linker
        by_symbol = defaultdict(list)
        for item in engine.anchored:
            by_symbol[item.annotation.symbol].append(item)
        paged = digest(sorted(linker.paged))
        for symbol_id in sorted(linker.paged):
            items = by_symbol.get(symbol_id, [])
            key = memo.key("symbol", engine.fingerprint, paged, symbol_id, items)
            path, text, fragments = memo.get(key, lambda s=symbol_id, i=items, l=linker: _symbol_page(env, l, s, i))
            for fragment in fragments:  # a kept page's excerpts
                slots.put(fragment)
            files[path] = text
            num_symbol_pages += 1
        for path, text in components.component_outputs(env, linker):
            files[path] = text
            if path.endswith(".md"):
                nav_components.append({f"{pages.engine_label(engine.name)} {Path(path).stem}": path})
        page_of = lambda sid, l=linker: l.from_root(sid) if l.page(sid) else ""  # noqa: E731
        for key, payload in browser.browser_files(engine.name, engine.symbols, page_of,
                                                  lambda p, n=engine.name: urls.file_data(n, p)).items():
            files[_data_path(engine.name, key)] = as_script(key, payload)
        files.update(code.code_files(engine, code.runtime_for(engine, site.results.get("traces") or [],
                                                                      site.results.get("recordings") or []),
                                     _note_href, source_chars, memo))
        path, text = pages.browser_page(env, linker)
        files[path] = text
        nav_browse.append({pages.engine_label(engine.name): path})
    files["index.md"] = pages.home(env, content, linkers, site)
    files["code.md"] = env.get_template("code.md.j2").render(
        root="", engines=[e.name for e in site.engines], default=site.engines[0].name if site.engines else "",
        labels=[pages.engine_label(e.name) for e in site.engines])
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
    for path, text in pages.bottlenecks_page(env, content, by_mechanism):
        files[path] = text
    path, text = mechanisms.multi_gpu_page(env, content, linkers, anchored, site)
    files[path] = text
    for path, text in pages.result_pages(env, site):
        files[path] = text
    report = site.results.get("experiments")  # the article's experiments (atlas.runtime.experiments.report)
    for path, text in experiments.experiment_pages(env, report, linkers) if report is not None else ():
        files[path] = text
    nav = [{"Home": "index.md"},
           {"Mechanisms": ["mechanisms/index.md"] + [{t: urls.mechanism_page(s)} for s, t in MECHANISMS.items()]},
           {"Components": ["components/index.md"] + nav_components},
           {"Symbols": nav_browse + [{"Source": "code.md"}]},
           {"Cross-reference": [{"Reading bottlenecks (s11)": "crossref/bottlenecks.md"},
                                {"Multi-GPU questions (s12)": "crossref/multi-gpu.md"}]},
           {"Runtime": [{"Probe traces": "runtime.md"}, {"Diff across pins": "diff.md"}]}]
    if report is not None:
        nav.append(experiments.nav_entry(report))
    chars = cjk_chars([*files.values(), *slots.fragments.values(), "".join(source_chars)])
    return Rendered(files, slots, nav, num_symbol_pages, chars)


def _symbol_page(env, linker: Linker, symbol_id: str, items: list) -> tuple[str, str, list[str]]:
    """A symbol page with the excerpts it put into the linker's slots."""
    with linker.slots.recording() as fragments:
        path, text = pages.symbol_page(env, linker, symbol_id, items)
    return path, text, fragments


def _data_path(engine: str, key: str) -> str:
    """Where a browser data key lives: files list, one file per source file, and name shards."""
    kind, _, rest = key[len(engine) + 1:].partition("/")
    if kind == "file":
        return urls.file_data(engine, rest)
    if kind == "names":
        return f"assets/atlas/data/{engine}/names/{urls.slug(rest)}.js"
    return f"assets/atlas/data/{engine}/files.js"


def _note_href(annotation) -> str:
    """An annotation's section, relative to the site root (the source view resolves it against its root)."""
    return urls.rel("index.md", urls.annotation_page(annotation.mechanism), urls.anchor(annotation.id))
