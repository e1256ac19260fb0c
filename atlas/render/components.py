"""Component pages (scheduler, KV cache, runner, attention backends, kernels: whatever components the graph's nodes
carry) with an interactive call graph fed by a data file, and the component's symbols listed; kept in the build's
memo with the links they hold."""

from __future__ import annotations

from atlas.render import graphdata, urls
from atlas.render.linker import Linker
from atlas.render.pages import engine_label

GRAPH_KEY = "{engine}/graph/{component}"


def graph_file(engine: str, component: str) -> str:
    return f"assets/atlas/data/{engine}/graph-{urls.name_slug(component)}.js"


def component_outputs(env, linker: Linker) -> list[tuple[str, str]]:
    """(path, text) of each component page and its graph data file."""
    return linker.memo.get(linker.unit_key("components"), lambda: _component_outputs(env, linker))


def _component_outputs(env, linker: Linker) -> list[tuple[str, str]]:
    graph = linker.engine.graph
    name = linker.engine.name
    out = []
    for component in linker.summary.components:
        page = urls.component_page(name, component)
        data = graphdata.component_graph(graph, component, lambda sid: urls.html(linker.page(sid)))
        key = GRAPH_KEY.format(engine=name, component=component)
        out.append((graph_file(name, component), graphdata.as_script(key, data)))
        members = [
            {
                "id": row[0],
                "label": row[1],
                "kind": data["kinds"][row[2]],
                "path": data["paths"][row[3]],
                "line": row[4],
                "href": urls.rel(page, linker.page(row[0])),
            }
            for row in data["nodes"][: data["num_shown"]]
            if linker.page(row[0])
        ]
        members.sort(key=lambda n: (n["path"], n["line"]))
        root = urls.rel(page, "index.md").rsplit("index.html", 1)[0]
        out.append(
            (
                page,
                env.get_template("component.md.j2").render(
                    engine=engine_label(name),
                    component=component,
                    key=key,
                    data_file=urls.rel(page, graph_file(name, component)),
                    root=root,
                    num_shown=data["num_shown"],
                    num_members=data["num_members"],
                    browser=urls.rel_md(page, urls.browser_page(name)),
                    browser_root=urls.html(urls.browser_page(name)),
                    num_edges=len(data["edges"]),
                    members=members,
                    pin=linker.engine.pin,
                ),
            )
        )
    return out


def components_index(env, linkers: dict[str, Linker]) -> tuple[str, str]:
    page = "components/index.md"
    rows = []
    for name, linker in linkers.items():
        for component in linker.summary.components:
            rows.append((engine_label(name), component, urls.rel_md(page, urls.component_page(name, component))))
    missing = sorted({m for linker in linkers.values() for m in linker.engine.missing})
    return page, env.get_template("components.md.j2").render(rows=rows, missing=missing)
