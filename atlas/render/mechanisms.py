"""Mechanism pages (the article's sections 2-10): vLLM and SGLang side by side by role, then each annotation with
its contract, its claims and verdicts, the source lines it anchors to, its call-graph neighbourhood and what the
probes record there."""

from __future__ import annotations

from itertools import zip_longest

from atlas.query.contracts import statement_reviews
from atlas.query.runtime import evidence_for
from atlas.render import urls
from atlas.render.content import MECHANISMS, Content
from atlas.render.linker import Linker
from atlas.render.neighbours import neighbourhood
from atlas.render.pages import engine_label, review_cells, source_block

ROLES = ("plan", "allocate", "execute", "validate", "commit", "release")


def _statements(engine, annotation) -> list[dict]:
    """Each statement of the annotation with its review at the page's pin set (atlas.query.contracts): the verdict,
    the deciding lines as permalinks at the pin set the row was reviewed at, and the row's note."""
    return review_cells(engine, statement_reviews(annotation, engine.reviews, engine.pin_set))


def _entry(linker: Linker, page: str, anchored, number: int, runtime: dict, results) -> dict:
    a = anchored.annotation
    facts = linker.facts(a.symbol)
    span = anchored.span
    source = ""
    if span is not None:
        source = source_block(linker, span.path, span.start, span.end, anchor=f"{a.framework}-{number}-L")
    graph = neighbourhood(linker, page, a.symbol)
    reviewed = _statements(linker.engine, a)
    return {
        "a": a,
        "facts": facts,
        "anchor": urls.anchor(a.id),
        "href": linker.href(page, a.symbol) if facts["exists"] else "",
        "summary_review": next((s for s in reviewed if s["kind"] == "summary"), None),
        "contract": [s for s in reviewed if s["field"].startswith("contract.")],
        "claim_reviews": {s["field"].partition(".")[2]: s for s in reviewed if s["kind"] == "claims"},
        "source": source,
        "problem": anchored.problem,
        "graph": graph,
        "pairs": list(zip_longest(graph["callers"][:12], graph["callees"][:12])),
        "engine": engine_label(a.framework),
        "runtime": runtime.get(a.id),
        "changes": (results.get("pin_changes") or {}).get(a.id),
        "evidence": evidence_for(
            a.framework,
            linker.engine.pin.commit,
            a.symbol,
            results.get("traces") or [],
            results.get("trace_excerpts") or {},
        ),
        "code_page": urls.rel(page, urls.CODE_PAGE),
    }


def mechanism_page(env, slug: str, content: Content, linkers: dict[str, Linker], anchored: dict, site) -> tuple:
    page = urls.mechanism_page(slug)
    runtime = (site.results.get("runtime") or {}).get("annotations", {}) if site.results.get("runtime") else {}
    entries = []
    for name, linker in linkers.items():
        for number, item in enumerate(anchored.get((name, slug), []), 1):
            entries.append(_entry(linker, page, item, number, runtime, site.results))
    side = []
    for role in ROLES:
        cells = {name: [e for e in entries if e["a"].framework == name and e["a"].role == role] for name in linkers}
        if any(cells.values()):
            side.append((role, [cells[name] for name in linkers]))
    text = env.get_template("mechanism.md.j2").render(
        slug=slug,
        title=MECHANISMS[slug],
        section=content.section(slug),
        question=(content.article.get("sections") or {}).get(slug, ""),
        engines=[engine_label(n) for n in linkers],
        side=side,
        entries=entries,
        missing=sorted({m for linker in linkers.values() for m in linker.engine.missing}),
        pins=[linker.engine.pin for linker in linkers.values()],
    )
    return page, text


def mechanisms_index(env, content: Content, anchored: dict) -> tuple[str, str]:
    page = "mechanisms/index.md"
    rows = [
        (
            content.section(slug),
            title,
            urls.rel_md(page, urls.mechanism_page(slug)),
            sum(len(v) for (_, m), v in anchored.items() if m == slug),
        )
        for slug, title in MECHANISMS.items()
    ]
    return page, env.get_template("mechanisms.md.j2").render(rows=rows)


def multi_gpu_page(env, content: Content, linkers: dict[str, Linker], anchored: dict, site) -> tuple[str, str]:
    """Section 12: the open multi-GPU questions, and the annotations that anchor each to code."""
    page = "crossref/multi-gpu.md"
    runtime = (site.results.get("runtime") or {}).get("annotations", {}) if site.results.get("runtime") else {}
    entries = [
        _entry(linker, page, item, number, runtime, site.results)
        for name, linker in linkers.items()
        for number, item in enumerate(anchored.get((name, "multi-gpu"), []), 1)
    ]
    return page, env.get_template("multi_gpu.md.j2").render(
        topics=content.article.get("multi_gpu", []), entries=entries
    )
