"""Where a cold build's CPU goes, stage by stage, in one process (no parse workers, no forked children), so the
figures add up and do not depend on how busy the other core is.

Usage: ATLAS_MIRROR=... python benchmarks/graph_stages.py [FRAMEWORK ...]
Prints per tree and in all: tree-sitter parse, the walk that turns trees into facts (extract minus parse; with the
kernel layer's Python facts made from the same trees, as a build does), moving
facts between processes (encode + decode, as parse workers and the cache do), resolution (solver set-up and
rounds), the rest of assembling (edges, dispatch edges, edge table, stats) and the kernel layer (atlas.parse.kernels,
which runs beside resolution in a build). Works with older code too (pickled facts, networkx assembly), for
before/after figures: point PYTHONPATH at a checkout of it."""

from __future__ import annotations

import gc
import os
import pickle
import sys
import time

from atlas.env import settings as load_settings
from atlas.graph import components, store
from atlas.parse.python import extract, module_name, parser
from atlas.sources import analysed_files, load_all, locate

try:
    import marshal

    from atlas.parse.python import pack, unpack
except ImportError:  # older code: facts were pickled
    pack = unpack = None
try:
    from atlas.parse.python import extract_packed  # the walker makes the packed rows a parse worker sends
except ImportError:  # older code: extract, then pack
    extract_packed = None
try:
    from atlas.parse.kernels import python_side as kernel_side

    shared_trees = hasattr(kernel_side, "tree_facts")  # the kernel layer reads the Python parse's trees
except ImportError:
    shared_trees = False


def encode_decode(facts: list, kernel_facts: list, framework: str) -> tuple[list, list]:
    if pack is None:
        return [pickle.loads(pickle.dumps(f, protocol=pickle.HIGHEST_PROTOCOL)) for f in facts], kernel_facts
    tag = lambda sid: components.component_of(framework, sid)  # noqa: E731
    facts = [unpack(marshal.loads(marshal.dumps(f if extract_packed else pack(f))), tag) for f in facts]
    if shared_trees:
        kernel_facts = [kernel_side.unpack(marshal.loads(marshal.dumps(kernel_side.pack(f)))) for f in kernel_facts]
    return facts, kernel_facts


def stages(settings, manifest) -> dict[str, float]:
    checkout = locate(manifest, "default", settings)
    sources = [(path, (checkout.path / path).read_bytes()) for path, _ in analysed_files(manifest, checkout, (".py",))]
    ts = parser()
    parse = walk = 0.0  # each file's parse and walk timed apart, in the same loop (a difference of two loops'
    facts, kernel_facts = [], []  # times takes the machine's noise into the walk)
    for path, data in sources:
        if shared_trees:  # as atlas.graph.parsing does: one parse for both layers
            cpu = time.process_time()
            tree = ts.parse(data)
            parsed = time.process_time()
            facts.append(
                extract_packed(data, path, *module_name(path, manifest.package_root), tree)
                if extract_packed
                else extract(data, path, *module_name(path, manifest.package_root), tree=tree)
            )
            if kernel_side.mentions_kernels(data):
                kernel_facts.append(kernel_side.tree_facts(path, tree.root_node))
            parse += parsed - cpu
            walk += time.process_time() - parsed
        else:  # older code parses inside extract
            cpu = time.process_time()
            ts.parse(data)
            parsed = time.process_time()
            facts.append(extract(data, path, *module_name(path, manifest.package_root), ts))
            parse += parsed - cpu
            walk += time.process_time() - parsed - (parsed - cpu)
    cpu = time.process_time()
    facts, kernel_facts = encode_decode(facts, kernel_facts, manifest.name)  # packed rows -> ModuleFacts
    transport = time.process_time() - cpu
    symbols = {s.id: s for f in facts for s in f.symbols}
    cpu = time.process_time()
    if shared_trees:
        store._kernel_layer(checkout, manifest, symbols, kernel_facts)
    else:
        store._kernel_layer(checkout, manifest, symbols)
    kernels = time.process_time() - cpu
    kernel_layer, store._kernel_layer = store._kernel_layer, lambda *args: None
    timings: dict = {}
    cpu = time.process_time()
    store.assemble(facts, checkout, manifest, timings).table  # noqa: B018 - the stored form is part of the work
    assemble = time.process_time() - cpu
    store._kernel_layer = kernel_layer
    resolve = timings["resolve"]
    return {
        "tree-sitter parse": parse,
        "walk": walk,
        "transport": transport,
        "resolve": resolve,
        "assemble rest": assemble - resolve,
        "kernel layer": kernels,
    }


def native_parts() -> str:
    """Whether the walker and the resolver ran compiled (mypyc, a regular install) or from source."""
    import atlas.graph.resolve.solver as solver

    return "mypyc-compiled" if not solver.__file__.endswith(".py") else "the Python sources"


def main() -> int:
    if pack is not None:
        gc.disable()  # as a build of this code runs (atlas.graph.build.gc_paused)
    os.environ["ATLAS_NO_FORK"] = "1"
    settings = load_settings()
    total: dict[str, float] = {}
    for manifest in load_all(settings.root, sys.argv[1:] or None):
        row = stages(settings, manifest)
        for k, v in row.items():
            total[k] = total.get(k, 0.0) + v
        print(
            f"{manifest.name}: "
            + ", ".join(f"{k} {v:.1f} s" for k, v in row.items())
            + f"; total {sum(row.values()):.1f} s CPU"
        )
    print(f"walker and resolver: {native_parts()}")
    print("all: " + ", ".join(f"{k} {v:.1f} s" for k, v in total.items()) + f"; total {sum(total.values()):.1f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
