"""The GPU-kernels page (kernels.md): the committed H200 runs of `atlas trace --kernels` (results/gpu-kernels/), per
engine and mode the attributed share per step kind, the top kernels of the run linked to their static nodes' pages,
the CUDA graphs and what capturing cost per step. Pure: the summaries and recorded names are handed in."""

from __future__ import annotations

from typing import Any

from jinja2 import Environment

from atlas.render.linker import Linker
from atlas.render.pages import engine_label
from atlas.runtime.kernels import KernelJoin, KernelNodes
from atlas.runtime.kernels.view import KernelRow, KernelView, top_rows, view_of_summary

PAGE = "kernels.md"


def kernels_page(env: Environment, gpu_kernels: dict[str, Any], linkers: dict[str, Linker]) -> tuple[str, str]:
    """kernels.md from results/gpu-kernels (summaries.json, and names.json where it holds the run's names)."""
    summaries = gpu_kernels.get("summaries") or {}
    names = (gpu_kernels.get("names") or {}).get("runs") or {}
    runs = []
    for run, doc in sorted(summaries.items(), key=lambda kv: (kv[0].count("/"), not kv[0].startswith("vllm"), kv[0])):
        kept = doc.get("kernels_as_the_device_summarised") or doc.get("kernels")
        if not kept:
            continue
        engine = run.split("/", 1)[0]
        recorded = names.get(run)
        join = KernelJoin(KernelNodes.from_json(recorded["kernel_nodes"]), recorded["triton"]) if recorded else None
        view: KernelView = view_of_summary(kept, join)
        top = top_rows(recorded["gpu_ns"], join) if recorded and join else ()
        runs.append(
            {
                "run": run,
                "engine": engine_label(engine),
                "version": doc.get("engine_version") or "",
                "view": view,
                "top": [_row(r, linkers.get(engine)) for r in top],
            }
        )
    return PAGE, env.get_template("kernels.md.j2").render(runs=runs)


def _row(r: KernelRow, linker: Linker | None) -> dict[str, Any]:
    """A top kernel with the link to its static node's page (or source view) where the site has the node."""
    href = linker.href(PAGE, r.label) if linker is not None and r.where and linker.exists(r.label) else ""
    return {"r": r, "href": href}
