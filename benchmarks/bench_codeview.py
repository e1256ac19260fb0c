"""Issue 19's targets for the site as a code browser, printed with their figures:
  - full build of the site for both pin sets, every file browsable: <= 3 min; after one annotation edit: <= 15 s
    (the build is incremental, atlas.render.memo: a rebuild remakes only the units whose inputs changed; two edits
    are timed, interleaved run by run: a comment appended to an annotation file, and a claim's text changed)
  - first view of any page <= 1.5 MB transferred, data included (measured in chromium: every file the page loads)
  - the largest Python file of either tree opened in headless chromium: ready to click <= 1 s
  - total size of the built site <= 400 MB
The full builds start from an empty output folder (no memo); the edits rebuild the last one's output.
Builds run in a scratch copy of the project's annotations and site sources (the edit never touches the tree) with
the real graph cache (`atlas index --pins default,latest` first; building it is not timed). Run from the root:
    ATLAS_MIRROR=/work/shared/sources python benchmarks/bench_codeview.py [--pins default,latest] [--runs 2]"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

from atlas.env import settings as load_settings
from atlas.errors import AtlasError
from atlas.graph import load_graph
from atlas.render import build_sites, collect
from atlas.sources import load_all

MB = 1024 * 1024
COPIED = ("annotations", "site", "results", "pinned_sources", "mkdocs.yml", "atlas/data")


def scratch_root(root: Path, into: Path) -> Path:
    """What the build reads from the project root, copied (node_modules linked) so an annotation can be edited."""
    for name in COPIED:
        source, target = root / name, into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("node_modules"))
        else:
            shutil.copy2(source, target)
    (into / "site" / "node_modules").symlink_to(root / "site" / "node_modules")
    return into


def timed_build(settings, pin_sets: list[str], out: Path, clean: bool = False) -> float:
    if clean:
        shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    build_sites(settings, None, pin_sets, str(out))
    return time.perf_counter() - start


def edit_annotation(root: Path, number: int) -> Path:
    """Append a comment to the first annotation file: the smallest edit a writer makes."""
    path = sorted((root / "annotations").rglob("*.yaml"))[0]
    with path.open("a", encoding="utf-8") as handle:
        handle.write(f"# benchmark edit {number}\n")
    return path


def edit_claim(root: Path, number: int) -> Path:
    """Change the text of the first claim of the first annotation file that has one: a real content edit (its
    mechanism page, the symbol page and source view data of the anchored file change)."""
    for path in sorted((root / "annotations").rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if '\n        claim: "' in text:
            path.write_text(
                text.replace('\n        claim: "', f'\n        claim: "(edit {number}) ', 1), encoding="utf-8"
            )
            return path
    raise SystemExit("no annotation with a claim to edit")


def spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.1f} s (min {min(values):.1f}, max {max(values):.1f}, n={len(values)})"


def page_weights(html: Path, urls: list[str]) -> list[tuple[str, int]]:
    """Bytes chromium loads for each page (every file:// request it makes), the data of the source view included."""
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=os.environ.get("ATLAS_CHROMIUM", "/usr/bin/chromium"),
            args=["--no-sandbox", "--allow-file-access-from-files"],
        )
        for url in urls:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            loaded: set[str] = set()
            page.on("request", lambda r, seen=loaded: seen.add(r.url.split("#")[0]))
            page.goto(url)
            page.wait_for_load_state("networkidle")
            if "code.html#" in url:
                page.wait_for_selector(".atlas-codeview[data-ready-ms]", timeout=30000)
            total = sum(
                Path(unquote(urlsplit(u).path)).stat().st_size
                for u in loaded
                if u.startswith("file://") and Path(unquote(urlsplit(u).path)).is_file()
            )
            out.append((url.removeprefix(html.as_uri() + "/"), total))
            page.close()
        browser.close()
    return out


def largest_python_file(html: Path, engines: list) -> tuple[str, str, int]:
    best = ("", "", 0)
    for engine in engines:
        for symbol in engine.symbols.values():
            if symbol.span is not None and symbol.span.path.endswith(".py") and symbol.span.end > best[2]:
                best = (engine.name, symbol.span.path, symbol.span.end)
    name, path, _ = best
    return name, path, len(engines[[e.name for e in engines].index(name)].source(path).splitlines())


def open_times(html: Path, engine: str, path: str, runs: int) -> list[int]:
    """Milliseconds from navigation start to the file's rows drawn and linked, in headless chromium."""
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=os.environ.get("ATLAS_CHROMIUM", "/usr/bin/chromium"),
            args=["--no-sandbox", "--allow-file-access-from-files"],
        )
        for _ in range(runs):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto((html / "code.html").as_uri() + f"#{engine}/{path}")
            page.wait_for_selector(".atlas-codeview[data-nav-ms]", timeout=60000)
            times.append(int(page.get_attribute(".atlas-codeview", "data-nav-ms")))
            page.close()
        browser.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pins", default="default,latest")
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    pin_sets = [s for s in args.pins.split(",") if s]
    base = load_settings()
    for pin_set in pin_sets:  # the graphs must be built already: this script never starts a whole-tree build
        for manifest in load_all(base.root):
            try:
                load_graph(base, manifest.name, pin_set, on_demand=False)
            except AtlasError as exc:
                raise SystemExit(str(exc)) from None
    engines = []
    for pin_set in pin_sets:
        engines.extend(collect(base, None, pin_set).engines)
    with tempfile.TemporaryDirectory() as tmp:
        root = scratch_root(base.root, Path(tmp) / "root")
        settings = dataclasses.replace(base, root=root)
        out = Path(tmp) / "out"
        full = [timed_build(settings, pin_sets, out, clean=True) for _ in range(args.runs)]
        commented, claimed = [], []
        for number in range(args.runs):  # interleaved: both kinds of edit see the same machine load
            edit_annotation(root, number)
            commented.append(timed_build(settings, pin_sets, out))
            edit_claim(root, number)
            claimed.append(timed_build(settings, pin_sets, out))
        edited = commented + claimed
        html = out / "html"
        size = sum(p.stat().st_size for p in html.rglob("*") if p.is_file())
        num_files = sum(
            len(list((html / s / "assets" / "atlas" / "code").rglob("*.js"))) if (html / s).is_dir() else 0
            for s in [""] + pin_sets[1:]
        )
        print(
            f"full build, pin sets {', '.join(pin_sets)}: {spread(full)}   (target <= 180 s)  "
            f"{'met' if statistics.median(full) <= 180 else 'NOT MET'}"
        )
        print(f"  source view data files: {num_files}")
        print(
            f"after one annotation edit: {spread(edited)}   (target <= 15 s)  "
            f"{'met' if max(statistics.median(commented), statistics.median(claimed)) <= 15 else 'NOT MET'}"
        )
        for label, values in (("a comment appended", commented), ("a claim's text changed", claimed)):
            print(
                f"  {label}: {spread(values)}, {statistics.median(values) / statistics.median(full):.2f} of the "
                f"full build's median"
            )
        print(f"built site: {size / MB:.1f} MB   (target <= 400 MB)  {'met' if size <= 400 * MB else 'NOT MET'}")
        name, path, num_lines = largest_python_file(html, engines[:2])
        pages = sorted(html.rglob("*.html"), key=lambda p: -p.stat().st_size)[:5]
        urls = [p.as_uri() for p in pages] + [
            (html / "index.html").as_uri(),
            (html / "code.html").as_uri() + f"#{name}/{path}",
        ]
        weights = sorted(page_weights(html, urls), key=lambda w: -w[1])
        print(
            f"first view, heaviest of {len(weights)} pages (the 5 largest HTML pages, home, the largest source file):"
            f" {weights[0][0]} {weights[0][1] / MB:.2f} MB   (target <= 1.5 MB)  "
            f"{'met' if weights[0][1] <= 1.5 * MB else 'NOT MET'}"
        )
        for page, num_bytes in weights[1:]:
            print(f"  {page} {num_bytes / MB:.2f} MB")
        times = open_times(html, name, path, 5)
        print(
            f"largest Python file {name}/{path} ({num_lines} lines) ready to click: "
            f"median {statistics.median(times)} "
            f"ms (min {min(times)}, max {max(times)}, n={len(times)})   (target <= 1000 ms)  "
            f"{'met' if statistics.median(times) <= 1000 else 'NOT MET'}"
        )


if __name__ == "__main__":
    main()
