"""Kernel-layer targets (issue 4), per framework and pin set: op uses resolved to registrations, CUDA ops reaching a
`__global__` kernel, SGLang load_jit sites and wrappers linked, Triton kernels found and launch sites linked, and the
layer's time against the Python graph build. Run from the project root:
    python benchmarks/bench_kernels.py [--pins default,latest] [--frameworks vllm,sglang] [--no-graph]
`--no-graph` skips the Python build (Triton figures and the time ratio then need a built graph: `atlas index`)."""

from __future__ import annotations

import argparse
import re
import time

from atlas.env import settings as load_settings
from atlas.parse.kernels import kernel_layer
from atlas.sources import analysed_files, load_all, locate

TRITON = ("triton.jit", "triton.autotune", "triton.heuristics", "jit", "autotune", "heuristics")
_DECORATOR = re.compile(r"^\s*@(triton\.jit|triton\.autotune|triton\.heuristics|jit)\b", re.M)


def pct(a: int, b: int) -> str:
    return f"{a}/{b} = {100.0 * a / b:5.1f}%" if b else f"{a}/0"


def is_xpu(path: str) -> bool:
    return "xpu" in path


def triton_figures(graph, checkout, manifest) -> tuple[int, int, int, int]:
    """(decorated kernels in the source, Triton kernels in the graph, launch sites `k[grid](...)` of those kernels,
    launch sites with a LAUNCH edge)."""
    kernels = {sid for sid, s in graph.symbols.items()
               if s.kind.value == "triton_kernel" or any(d.split("(")[0] in TRITON[:3] for d in s.decorators)}
    names = {sid.rsplit(".", 1)[-1] for sid in kernels}
    in_source, sites = 0, set()
    site = re.compile(r"\b(\w+)\s*\[[^\[\]\n]*(?:\[[^\[\]\n]*\][^\[\]\n]*)*\]\s*\(")
    for path, _ in analysed_files(manifest, checkout, (".py",)):
        text = (checkout.path / path).read_text(encoding="utf-8", errors="replace")
        if "triton" not in text and "](" not in text:
            continue
        in_source += sum(1 for m in _DECORATOR.finditer(text) if m.group(1) != "jit" or "triton" in text)
        for match in site.finditer(text):
            if match.group(1) in names:
                sites.add((path, text.count("\n", 0, match.start()) + 1))
    launched = {(attrs.get("path"), attrs.get("line")) for _, b, attrs in graph.graph.edges(data=True)
                if attrs.get("provenance") == "launch" and b in kernels}
    return in_source, len(kernels), len(sites), len(sites & launched)


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
                    build_seconds = report.seconds, report.timings.get("kernels", 0.0)
                graph = load_graph(settings, manifest.name, pin_set)
            symbols = {sid: s for sid, s in graph.symbols.items() if ":" not in sid} if graph else {}
            started = time.perf_counter()
            layer = kernel_layer(checkout, manifest, symbols)
            seconds = time.perf_counter() - started
            st = layer.stats
            print(f"  C++ files {st['cpp_files']}, functions {st['cpp_functions']}, __global__ kernels "
                  f"{st['cuda_kernels']}, registrations {st['registrations']}, ops {st['ops']}")
            if manifest.name == "vllm":
                print(f"  torch.ops uses under vllm/: {st['op_uses']}; in csrc-built namespaces resolved: "
                      f"{pct(st['op_uses_csrc_resolved'], st['op_uses_csrc_namespaces'])}   (target >= 95%)")
                open_xpu = sum(1 for c in layer.unresolved if c.expression.startswith("torch.ops.")
                               and is_xpu(c.span.path) and not c.expression.startswith("torch.ops.vllm."))
                print(f"    without XPU-platform modules (their _C ops come from vllm-xpu-kernels): "
                      f"{pct(st['op_uses_csrc_resolved'], st['op_uses_csrc_namespaces'] - open_xpu)}")
                print(f"  registered CUDA ops reaching a __global__ kernel: "
                      f"{pct(st['cuda_ops_reaching_kernel'], st['cuda_ops'])}   (target >= 80%)")
            else:
                print(f"  load_jit call sites linked to their C++ wrapper: "
                      f"{pct(st['load_jit_sites_linked'], st['load_jit_sites'])}   (target >= 90%)")
                print(f"  JIT wrappers reaching a __global__ kernel: "
                      f"{pct(st['jit_wrapper_functions_reaching_kernel'], st['jit_wrapper_functions'])}"
                      f"   (target >= 80%)")
            print(f"  C++ launch sites naming a kernel: {st['launch_sites_named']}, unnamed (listed): "
                  f"{st['launch_sites_unresolved']}; unresolved sites listed: {len(layer.unresolved)}")
            print(f"  kernel layer: {seconds:.2f} s (C++ parse {st['seconds_parse_cpp']:.2f} s, Python scan "
                  f"{st['seconds_parse_python']:.2f} s)")
            if build_seconds:
                total, kernels = build_seconds
                print(f"  graph build {total:.2f} s, of which kernel layer {kernels:.2f} s: +"
                      f"{100.0 * kernels / max(total - kernels, 1e-9):.1f}% over the Python build   (target <= 25%)")
            if graph is not None:
                in_source, found, sites, linked = triton_figures(graph, checkout, manifest)
                print(f"  Triton kernels: {found} in the graph, {in_source} decorators in the source; launch sites "
                      f"linked: {pct(linked, sites)}   (target: all found, >= 90% linked)")


if __name__ == "__main__":
    main()
