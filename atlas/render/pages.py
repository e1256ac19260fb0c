"""Every page of the site as (docs-relative path, Markdown text), rendered from SiteData with the templates in
site/templates. Pure: nothing here touches the disk except through the template loader."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from markupsafe import Markup

from atlas.annotate import Resolver
from atlas.graph import Index
from atlas.query.contracts import StatementReview, contract_view
from atlas.render import excerpt, urls
from atlas.render.content import MECHANISMS, Content
from atlas.render.linker import Linker
from atlas.render.neighbours import neighbourhood
from atlas.render.runtime import runtime_files
from atlas.runtime.explain import Diagnosis

LABELS = {"vllm": "vLLM", "sglang": "SGLang"}


def engine_label(name: str) -> str:
    return LABELS.get(name, name)


def symbol_rows(linker: Linker, page: str, ids) -> list[dict]:
    rows = []
    for symbol_id in ids:
        facts = linker.facts(symbol_id)
        facts["href"] = linker.href(page, symbol_id) if facts["exists"] else ""
        rows.append(facts)
    return rows


CONTAINER_LINES = 60  # a class or module page shows its head; its methods have pages or browser entries
SYMBOL_LINES = 150  # a function's page shows this much of its body; the header links to all of it upstream


def source_block(
    linker: Linker, path: str, start: int, end: int, anchor: str = "L", max_lines: int = excerpt.MAX_LINES
) -> Markup:
    """A slot for the highlighted lines start..end of a pinned file (kept in the linker's memo)."""
    engine = linker.engine
    key = linker.memo.key("excerpt", engine.name, engine.fingerprint, path, start, end, anchor, max_lines)
    html = linker.memo.get(
        key,
        lambda: str(excerpt.to_html(excerpt.cut(engine.pin, path, engine.source(path), start, end, max_lines), anchor)),
    )
    return linker.slots.put(Markup(html))


def home(env, content: Content, linkers: dict[str, Linker], site) -> str:
    page = "index.md"
    engines = []
    for name, linker in linkers.items():
        spec = content.pipeline["engines"].get(name, {"stages": {}, "steps": {}})
        engines.append(
            {
                "name": name,
                "label": engine_label(name),
                "pin": linker.engine.pin,
                "pin_set": linker.engine.pin_set,
                "missing": linker.engine.missing,
                "stages": [
                    (stage, symbol_rows(linker, page, spec["stages"].get(stage, [])))
                    for stage in content.pipeline["stages"]
                ],
                "steps": [
                    (step, symbol_rows(linker, page, spec["steps"].get(step, []))) for step in content.pipeline["steps"]
                ],
                "num_symbols": linker.summary.num_symbols,
                "num_edges": linker.summary.num_edges,
                "browser": urls.rel_md(page, urls.browser_page(name)),
                "code": urls.rel_md(page, urls.CODE_PAGE, name + "/"),
            }
        )
    return env.get_template("home.md.j2").render(
        engines=engines,
        method=content.article.get("method", []),
        mechanisms=[(slug, title, urls.rel_md(page, urls.mechanism_page(slug))) for slug, title in MECHANISMS.items()],
        has_runtime="runtime" in site.results,
        has_diff="diff" in site.results,
    )


def symbol_page(env, linker: Linker, symbol_id: str, annotations: list) -> tuple[str, str]:
    page = urls.symbol_page(linker.engine.name, symbol_id)
    facts = linker.facts(symbol_id)
    facts["code"] = urls.code_link(page, linker.engine.name, facts["path"], facts["start"]) if facts["path"] else ""
    max_lines = CONTAINER_LINES if facts["kind"] in ("class", "module") else SYMBOL_LINES
    source = (
        source_block(linker, facts["path"], facts["start"], facts["end"], max_lines=max_lines) if facts["path"] else ""
    )
    text = env.get_template("symbol.md.j2").render(
        engine=engine_label(linker.engine.name),
        pin=linker.engine.pin,
        s=facts,
        source=source,
        graph=neighbourhood(linker, page, symbol_id),
        browser=urls.browser_link(page, linker.engine.name, facts["path"], symbol_id),
        annotations=[_annotation_item(linker, page, a.annotation) for a in annotations],
    )
    return page, text


def _annotation_item(linker: Linker, page: str, annotation) -> dict:
    view = _contract(linker, annotation)
    cells = review_cells(linker.engine, view.reviews)
    return {
        "a": annotation,
        "href": urls.rel(page, urls.annotation_page(annotation.mechanism), urls.anchor(annotation.id)),
        "view": view,
        "summary_review": next((c for c in cells if c["kind"] == "summary"), None),
        "contract": [c for c in cells if c["field"].startswith("contract.")],
        "claim_reviews": {c["field"].partition(".")[2]: c for c in cells if c["kind"] == "claims"},
        "code": lambda path, line: urls.code_link(page, linker.engine.name, path, line),
    }


def review_cells(engine, reviews: Iterable[StatementReview]) -> list[dict]:
    """Each reviewed statement as the pages show it (site/templates/_review.md.j2): the verdict, the deciding lines
    as permalinks at the pin set the row was reviewed at, and the row's note."""
    pins = dict(engine.review_pins)
    out = []
    for r in reviews:
        pin = (engine.pin if r.pin_set == engine.pin_set else pins.get(r.pin_set)) if r.verdict else None
        out.append(
            {
                "field": r.field,
                "kind": r.kind,
                "text": r.text,
                "verdict": r.verdict,
                "pin_set": r.pin_set,
                "elsewhere": bool(r.verdict) and r.pin_set != engine.pin_set,
                "stale": r.stale,
                "note": r.note,
                "deciding": [
                    (
                        f"{d.path}:{d.start}-{d.end}" if d.end != d.start else f"{d.path}:{d.start}",
                        pin.permalink(d.path, d.start, d.end) if pin else "",
                    )
                    for d in r.deciding
                ],
            }
        )
    return out


_RESOLVERS: dict[tuple[str, str | None], Resolver] = {}  # one per engine and fingerprint: files parsed once


def _contract(linker: Linker, annotation):
    """The annotation's contract and claims at the engine's pin (atlas.query.contracts): verdicts at the default
    pin set, this one and every set the claim speaks of; evidence lines at this pin."""
    engine = linker.engine
    key = (engine.name, engine.fingerprint)
    if key not in _RESOLVERS:
        _RESOLVERS[key] = Resolver(Index(engine.pin, engine.checkout, engine.symbols))  # type: ignore[arg-type]
    sets = sorted({"default", engine.pin_set} | annotation.pin_sets, key=lambda s: (s != "default", s))
    return contract_view(annotation, engine.pin_set, _RESOLVERS[key], sets, engine.reviews)


def browser_page(env, linker: Linker) -> tuple[str, str]:
    page = urls.browser_page(linker.engine.name)
    text = env.get_template("browser.md.j2").render(
        engine=linker.engine.name,
        label=engine_label(linker.engine.name),
        pin=linker.engine.pin,
        num_symbols=linker.summary.num_symbols,
        root=urls.rel(page, "index.md").rsplit("index.html", 1)[0],
        base=linker.engine.pin.permalink(""),
    )
    return page, text


def bottlenecks_page(
    env, content: Content, anchored_by_mechanism: dict, diagnoses: Sequence[tuple[str, Diagnosis]] = ()
) -> Iterator[tuple[str, str]]:
    """Section 11's table with, per trace, the verdict `atlas explain` gives each row (matched on the article line)."""
    page = "crossref/bottlenecks.md"
    verdicts = {title: {r.symptom.line: r for r in d.rows} for title, d in diagnoses}
    rows = []
    for row in content.article.get("bottlenecks", []):
        links = [
            (
                MECHANISMS[m],
                urls.rel_md(page, urls.mechanism_page(m)),
                [
                    (
                        a.annotation.framework,
                        a.annotation.id,
                        urls.rel(page, urls.mechanism_page(m), urls.anchor(a.annotation.id)),
                        a.annotation.capture,
                    )
                    for a in anchored_by_mechanism.get(m, [])
                ],
            )
            for m in row.get("mechanisms", [])
            if m in MECHANISMS
        ]
        rows.append({**row, "links": links, "verdicts": [v.get(row.get("line", 0)) for v in verdicts.values()]})
    extra = [a.annotation for group in anchored_by_mechanism.values() for a in group if a.annotation.bottlenecks]
    yield (
        page,
        env.get_template("bottlenecks.md.j2").render(
            rows=rows,
            caution=content.article.get("caution", ""),
            annotated=extra,
            traces=[_short_title(t) for t in verdicts],
            runtime=urls.rel_md(page, "runtime.md"),
        ),
    )


def _short_title(title: str) -> str:
    """'H200 run, committed in results/gpu-vllm-summary.json' -> 'gpu-vllm'; a local trace keeps its words."""
    name = title.rsplit("results/", 1)[-1]
    return name.removesuffix("-summary.json") if name != title else title


def result_pages(env, site) -> Iterator[tuple[str, str]]:
    """The pages of probe traces and diff reports, from their results files."""
    yield from runtime_files(env, site.results.get("traces") or [], site.results.get("series") or {})
    yield "diff.md", env.get_template("diff.md.j2").render(results=site.results.get("diff"), href=_annotation_href)


def _annotation_href(annotation_id: str) -> Markup:
    """Where an annotation id (`<framework>.<mechanism>.<name>`) is shown, relative to a top-level page."""
    mechanism = annotation_id.split(".")[1] if annotation_id.count(".") >= 2 else ""
    if mechanism not in MECHANISMS and mechanism not in ("multi-gpu", "bottlenecks"):
        return Markup("mechanisms/index.md")
    return Markup(f"{urls.annotation_page(mechanism)}#") + urls.anchor(annotation_id)
