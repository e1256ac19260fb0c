"""The GPU-kernels page from the committed H200 runs (results/gpu-kernels/): per engine and mode the shares per step
kind as the device summarised them, the names it left unknown with what this checkout's join calls them, the top
kernels of the run joined again and linked to their static nodes' pages, the graphs and the capture's cost."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from atlas.render.env import environment
from atlas.render.inputs import load_results
from atlas.render.kernels import kernels_page
from atlas.runtime.kernels import KernelJoin, KernelNodes
from atlas.runtime.kernels.view import top_rows, view_of_summary

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "site" / "templates"


class FakeLinker:
    """Links every node it is told of to a page of its own."""

    def __init__(self, ids: set[str]):
        self.ids = ids

    def exists(self, symbol_id: str) -> bool:
        return symbol_id in self.ids

    def href(self, from_page: str, symbol_id: str) -> str:
        return f"symbols/{symbol_id}.html"


def test_the_page_shows_every_committed_run_its_shares_top_kernels_and_cost(tmp_path):
    found = load_results(SimpleNamespace(build=tmp_path / "build", root=ROOT))["gpu_kernels"]
    summaries, names = found["summaries"], found["names"]["runs"]
    linkers = {e: FakeLinker({row[0] for row in names[f"{e}/graph"]["kernel_nodes"]}) for e in ("vllm", "sglang")}
    path, page = kernels_page(environment(TEMPLATES), found, linkers)
    page = page.replace("&#95;", "_")  # the site's Markdown-safe underscore
    assert path == "kernels.md" and page.startswith("# GPU kernels per step")
    for run, doc in summaries.items():
        view = view_of_summary(doc["kernels_as_the_device_summarised"])
        assert f"{run.split('/', 1)[1]}" in page
        for s in view.kinds:
            assert f"| {s.kind} | {s.launch} | {', '.join(s.batch_modes)} | {100 * s.tree:.1f}% |" in page
        assert f"execute call {view.cost.execute_us_added_per_step:+.1f} us" in page
        for u in view.unattributed:
            assert f"<code>{u.name}</code> ({u.gpu_us:.1f} us GPU)" in page
            if u.joined_now:
                assert f", joined as {u.joined_now} by this checkout" in page
    for recorded in names.values():
        join = KernelJoin(KernelNodes.from_json(recorded["kernel_nodes"]), recorded["triton"])
        top = top_rows(recorded["gpu_ns"], join)
        assert top and all(f"{100 * r.share:.1f}%" in page for r in top)
        for r in top:
            if r.where:  # a node of the tree: linked to its page, with its file:line
                assert f'<a href="symbols/{r.label}.html" title="{r.label}">{r.where}</a> |' in page
            else:
                assert f"| {r.label} |" in page
    assert "{'" not in page and "None" not in page


def test_without_recordings_the_page_says_how_to_make_them():
    _, page = kernels_page(environment(TEMPLATES), {}, {})
    assert "No GPU kernel recordings yet" in page
