"""`atlas trace --kernels` around the probe: the spec's `kernels` options and the kernel nodes of the pin (so that
a trace joins its kernels where no index is built, on the GPU machine), the offline bundle of specs that machine
traces from, and what collecting a trace folder adds: the kernels' summary and their Perfetto tracks."""

from __future__ import annotations

import json
from pathlib import Path

from atlas.env import Settings, kernel_windows
from atlas.errors import BuildMissing, ConfigError
from atlas.runtime.kernels.join import KernelJoin, KernelNodes
from atlas.runtime.kernels.perfetto import kernel_events
from atlas.runtime.kernels.steps import kernels_of, read_records, summary
from atlas.runtime.kernels.view import KernelView, view_of_kernels, view_of_summary
from atlas.runtime.merge import Merged, merge

# Profiling windows: 0.25 s of kernels every 2 s (~12% of the steps of a steady run are profiled; the rest run
# without CUPTI), read on the flusher thread when a window ends.
OPTIONS = {"every_s": 2.0, "window_s": 0.25}
BUNDLE_SPEC = "{framework}.spec.json"  # a spec made where the pinned trees are, traced from on the GPU machine


def options() -> dict:
    """The profiling windows: ATLAS_KERNEL_WINDOWS where set, else OPTIONS."""
    found = kernel_windows()
    return {"every_s": found[0], "window_s": found[1]} if found else dict(OPTIONS)


def spec_extra(settings: Settings, framework: str, pin_set: str) -> dict:
    """The spec keys that switch kernel capture on, with the pin's kernel nodes."""
    from atlas.graph import load_index

    try:
        index = load_index(settings, framework, pin_set, on_demand=False)
    except BuildMissing:
        raise ConfigError(
            f"--kernels joins kernels to the graph of {framework} at the {pin_set} pins, which is not built; run "
            f"`atlas index {framework} --pins {pin_set}` first"
        ) from None
    return {"kernels": options(), "kernel_nodes": KernelNodes.from_symbols(index.symbols.values()).to_json()}


def bundle_spec(bundle: Path, framework: str, out: Path, device: str, extra: dict) -> dict:
    """The spec of `framework` from an offline bundle (gpu/pack_atlas.py), pointed at this trace folder."""
    path = bundle / BUNDLE_SPEC.format(framework=framework)
    if not path.is_file():
        raise ConfigError(
            f"{path} does not exist; make the bundle where the pinned trees are: python gpu/pack_atlas.py (it writes "
            f"{BUNDLE_SPEC.format(framework='FRAMEWORK')} for both engines)"
        )
    spec = json.loads(path.read_text())
    extra = dict(extra)
    kernels = extra.pop("kernels", False)
    spec.update(out=str(out), device=device, **extra)
    if kernels:
        spec["kernels"] = options() if kernel_windows() else spec.get("kernels") or dict(OPTIONS)
    else:
        spec.pop("kernels", None)
    return spec


def collect_kernels(out: Path, merged: Merged, spec: dict, origin_ns: int) -> tuple[dict, list[dict]]:
    """(the summary's "kernels", the Perfetto events of the kernel tracks) of a trace folder."""
    records = read_records(out / "shards")
    join = KernelJoin(KernelNodes.from_json(spec.get("kernel_nodes") or []), records.triton)
    kernels = kernels_of(records, merged.events, join)
    return summary(kernels, records, merged.events), kernel_events(kernels, merged.events, spec, origin_ns)


def load_view(folder: Path | None, summary: dict) -> KernelView | None:
    """The kernels of a trace per step kind: joined again from the folder's shards when they hold kernel records
    (and its spec.json the pin's kernel nodes), else the shares the summary kept; None when it recorded no kernels."""
    if folder is not None and (folder / "spec.json").is_file() and (folder / "shards").is_dir():
        records = read_records(folder / "shards")
        if records.windows:
            spec = json.loads((folder / "spec.json").read_text(encoding="utf-8"))
            join = KernelJoin(KernelNodes.from_json(spec.get("kernel_nodes") or []), records.triton)
            events = merge(folder / "shards").events
            return view_of_kernels(kernels_of(records, events, join), records, events)
    return view_of_summary(summary["kernels"]) if summary.get("kernels") else None
