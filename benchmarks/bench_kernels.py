"""Kernel-layer targets (issue 4), per framework and pin set: op uses resolved to registrations, CUDA ops reaching a
`__global__` kernel, SGLang load_jit sites and wrappers linked, Triton kernels found (against an independent count of
the tree's decorated defs, with the reasons the naive `grep @triton.jit` count differs) and launch sites linked, and
the layer's time against the Python graph build. Run from the project root:
    python benchmarks/bench_kernels.py [--pins default,latest] [--frameworks vllm,sglang] [--no-graph]
`--no-graph` skips the Python build (Triton figures and the time ratio then need a built graph: `atlas index`)."""

from __future__ import annotations

import argparse
import re
import subprocess
import time

import tree_sitter_python
from tree_sitter import Language, Parser

from atlas.env import settings as load_settings
from atlas.parse.kernels import kernel_layer
from atlas.parse.python import module_name
from atlas.sources import analysed_files, load_all, locate

TRITON = ("triton.jit", "triton.autotune", "triton.heuristics", "jit", "autotune", "heuristics")
_DECORATOR = re.compile(r"^\s*@(triton\.jit|triton\.autotune|triton\.heuristics|jit)\b", re.M)
_JIT_CALL = re.compile(
    r"^\w+\s*=\s*(?:triton\.)?jit\((?:[^()]|\([^()]*\))*\)\s*\(\s*(\w+)\s*\)|"
    r"^\w+\s*=\s*(?:triton\.)?jit\(\s*(\w+)\s*\)",
    re.M,
)
_SITE = re.compile(r"\b(\w+)\s*\[[^\[\]\n]*(?:\[[^\[\]\n]*\][^\[\]\n]*)*\]\s*\(")


def pct(a: int, b: int) -> str:
    return f"{a}/{b} = {100.0 * a / b:5.1f}%" if b else f"{a}/0"


def is_xpu(path: str) -> bool:
    return "xpu" in path


def triton_figures(graph, checkout, manifest) -> dict:
    """Triton kernels in the tree against the graph, counted independently of atlas's extractor (tree-sitter over
    every analysed .py file), with the reasons the numbers differ; and launch sites `k[grid](...)` linked."""
    kernels = {sid for sid, s in graph.symbols.items() if s.kind.value == "triton_kernel"}
    analysed = [path for path, _ in analysed_files(manifest, checkout, (".py",))]
    parser = Parser(Language(tree_sitter_python.language()))
    lines = defs = 0
    ids: dict[str, int] = {}
    by_call, other_jit = set(), 0
    names = {sid.rsplit(".", 1)[-1] for sid in kernels}
    sites = set()
    for path in analysed:
        text = (checkout.path / path).read_text(encoding="utf-8", errors="replace")
        if "jit" not in text and "](" not in text:
            continue
        lines += len(_DECORATOR.findall(text))
        module = module_name(path, manifest.package_root)[0]
        for sid, heads in _decorated(parser.parse(text.encode()).root_node, module):
            if any(h in TRITON for h in heads):
                defs += 1
                ids[sid] = ids.get(sid, 0) + 1
            elif any(h.endswith(".jit") for h in heads):
                other_jit += 1  # cute.jit, tilelang.jit, torch.jit, ...: other compilers, not Triton
        for match in _JIT_CALL.finditer(text) if "triton" in text else ():
            by_call.add(f"{module}.{match.group(1) or match.group(2)}")
        for match in _SITE.finditer(text):
            if match.group(1) in names:
                sites.add((path, text.count("\n", 0, match.start()) + 1))
    launched = {
        (attrs.get("path"), attrs.get("line"))
        for _, b, attrs in graph.graph.edges(data=True)
        if attrs.get("provenance") == "launch" and b in kernels
    }
    in_tree = set(ids) | by_call
    return {
        "decorator_lines": lines,
        "decorated_defs": defs,
        "duplicate_defs": defs - len(ids),
        "jit_by_call": len(by_call - set(ids)),
        "kernels_in_tree": len(in_tree),
        "found": len(in_tree & kernels),
        "missed": sorted(in_tree - kernels),
        "extra": sorted(kernels - in_tree),
        "other_dsl_jit": other_jit,
        "excluded_files": _excluded_decorators(checkout, set(analysed)),
        "sites": len(sites),
        "sites_linked": len(sites & launched),
    }


def _decorated(root, module: str):
    """(symbol id, decorator heads) of every decorated function, nested ones included."""
    todo = [(root, module)]
    while todo:
        node, scope = todo.pop()
        for child in node.named_children:
            if child.type == "decorated_definition":
                definition = child.child_by_field_name("definition")
                name = f"{scope}.{definition.child_by_field_name('name').text.decode()}"
                if definition.type == "function_definition":
                    yield (
                        name,
                        [
                            d.named_children[0].text.decode().split("(")[0].strip()
                            for d in child.named_children
                            if d.type == "decorator" and d.named_children
                        ],
                    )
                todo.append((definition.child_by_field_name("body"), name))
            elif child.type in ("function_definition", "class_definition"):
                name = child.child_by_field_name("name").text.decode()
                todo.append((child.child_by_field_name("body"), f"{scope}.{name}"))
            else:
                todo.append((child, scope))


def _excluded_decorators(checkout, analysed: set[str]) -> int:
    """`@triton.jit` lines in files of the tree that the manifest does not analyse (tests, benchmarks, docs)."""
    out = subprocess.run(["git", "grep", "-c", "@triton.jit"], cwd=checkout.path, capture_output=True, text=True)
    return sum(int(n) for path, _, n in (line.rpartition(":") for line in out.stdout.split()) if path not in analysed)


def print_triton(t: dict) -> None:
    print(f"  Triton kernels: {t['found']}/{t['kernels_in_tree']} in the tree found   (target: all)")
    print(
        f"    the tree: {t['decorator_lines']} decorator lines (@triton.jit/autotune/heuristics/jit) on "
        f"{t['decorated_defs']} decorated defs; {t['duplicate_defs']} defs repeat an id (one per platform branch, "
        f"one symbol); {t['jit_by_call']} jit'd by a call (k = triton.jit(...)(fn)); {t['excluded_files']} "
        f"@triton.jit in files the manifest excludes (tests, benchmarks); {t['other_dsl_jit']} defs under "
        f"another compiler's jit (cute.jit, tilelang.jit, torch.jit: not Triton)"
    )
    for sid in t["missed"]:
        print(f"    missed: {sid}")
    for sid in t["extra"]:
        print(f"    in the graph, not found by the count: {sid}")
    print(f"  Triton launch sites linked: {pct(t['sites_linked'], t['sites'])}   (target >= 90%)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pins", default="default,latest")
    parser.add_argument("--frameworks", default="vllm,sglang")
    parser.add_argument("--no-graph", action="store_true", help="kernel layer only, on an empty Python index")
    args = parser.parse_args()
    settings = load_settings()
    for pin_set in args.pins.split(","):
        for manifest in load_all(settings.root, args.frameworks.split(",")):
            checkout = locate(manifest, pin_set, settings)
            print(f"== {manifest.name} {checkout.pin.ref} ({pin_set})")
            graph, build_seconds = None, None
            if not args.no_graph:
                from atlas.graph.build import build, load_graph

                report = build(settings, manifest.name, pin_set)
                if report.rebuilt:
                    build_seconds = report.seconds, report.timings.get("kernels (waited)", 0.0)
                graph = load_graph(settings, manifest.name, pin_set)
            symbols = {sid: s for sid, s in graph.symbols.items() if ":" not in sid} if graph else {}
            started = time.perf_counter()
            layer = kernel_layer(checkout, manifest, symbols)
            seconds = time.perf_counter() - started
            st = layer.stats
            print(
                f"  C++ files {st['cpp_files']}, functions {st['cpp_functions']}, __global__ kernels "
                f"{st['cuda_kernels']}, registrations {st['registrations']}, ops {st['ops']}"
            )
            if manifest.name == "vllm":
                print(
                    f"  torch.ops uses under vllm/: {st['op_uses']}; in csrc-built namespaces resolved: "
                    f"{pct(st['op_uses_csrc_resolved'], st['op_uses_csrc_namespaces'])}   (target >= 95%)"
                )
                open_xpu = sum(
                    1
                    for c in layer.unresolved
                    if c.expression.startswith("torch.ops.")
                    and is_xpu(c.span.path)
                    and not c.expression.startswith("torch.ops.vllm.")
                )
                print(
                    f"    without XPU-platform modules (their _C ops come from vllm-xpu-kernels): "
                    f"{pct(st['op_uses_csrc_resolved'], st['op_uses_csrc_namespaces'] - open_xpu)}"
                )
                print(
                    f"  registered CUDA ops reaching a __global__ kernel: "
                    f"{pct(st['cuda_ops_reaching_kernel'], st['cuda_ops'])}   (target >= 80%)"
                )
            else:
                print(
                    f"  load_jit call sites linked to their C++ wrapper: "
                    f"{pct(st['load_jit_sites_linked'], st['load_jit_sites'])}   (target >= 90%)"
                )
                print(
                    f"  JIT wrappers reaching a __global__ kernel: "
                    f"{pct(st['jit_wrapper_functions_reaching_kernel'], st['jit_wrapper_functions'])}"
                    f"   (target >= 80%)"
                )
            print("  C++ -> C++/kernel edges: " + ", ".join(f"{k} {n}" for k, n in st["cpp_edges"].items()))
            print(
                f"  C++ launch sites naming a kernel: {st['launch_sites_named']}, unnamed (listed): "
                f"{st['launch_sites_unresolved']}; unresolved sites listed: {len(layer.unresolved)}"
            )
            print(
                f"  kernel layer: {seconds:.2f} s (C++ parse {st['seconds_parse_cpp']:.2f} s, Python scan "
                f"{st['seconds_parse_python']:.2f} s)"
            )
            if build_seconds:
                total, waited = build_seconds
                python_build = max(total - waited, 1e-9)
                print(
                    f"  graph build {total:.2f} s; the kernel layer runs in a child process beside call resolution "
                    f"and the build waited {waited:.2f} s for it (+{100.0 * waited / python_build:.1f}%); on its "
                    f"own it takes {seconds:.2f} s (+{100.0 * seconds / python_build:.1f}% of the Python build)"
                    f"   (target <= 25%)"
                )
            if graph is not None:
                print_triton(triton_figures(graph, checkout, manifest))


if __name__ == "__main__":
    main()
