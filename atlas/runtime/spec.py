"""The probe spec: the JSON file `atlas trace` writes and the probe reads at start (ATLAS_PROBES). Hooks come from
the annotations (atlas.annotate.probe_spec) or, only while none exist, from the built-in default list."""

from __future__ import annotations

import json
from pathlib import Path

from atlas.env import Settings
from atlas.errors import ConfigError
from atlas.publish import write_text
from atlas.runtime import defaults, lines
from atlas.sources import analysed_files, load_all, locate

HOOK_SOURCES = ("auto", "annotations", "builtin")
# Per-symbol probe flags the annotations do not carry (how to record, not what): kept by qualname.
TIMING = (
    "Scheduler.add_request",
    "Scheduler.schedule",
    "Scheduler.update_from_output",
    "Scheduler.handle_generate_request",
    "Scheduler.get_next_batch_to_run",
    "Scheduler.process_batch_result",
)
FLAGS = {f"{e[0]}.{e[1]}": e[4] for e in defaults.VLLM + defaults.VLLM_CUDA_EXTRA + defaults.SGLANG}


def annotated_entries(framework: str, pin_set: str, settings: Settings) -> list[dict] | None:
    """Entries compiled from the annotations of `framework`, or None when there are none (or no annotate API)."""
    try:
        from atlas.annotate import load_annotations, probe_spec
        from atlas.graph import load_symbols
    except ImportError:
        return None
    annotations = load_annotations(settings.root, framework)
    if not annotations:
        return None
    index = load_symbols(settings, framework, pin_set)  # the parse stage's index, made on the first run
    entries = merge_by_symbol([e for e in probe_spec(annotations, index) if e.get("framework") == framework])
    return [{**e, **{flag: True for flag in FLAGS.get(e["symbol"], ())}} for e in entries] or None


def merge_by_symbol(entries: list[dict]) -> list[dict]:
    """One hook per symbol: several annotations anchored in one function share its wrapper (captures united, every
    annotation id kept in `annotations`; the role of the first)."""
    merged: dict[str, dict] = {}
    for e in entries:
        if e["symbol"] not in merged:
            merged[e["symbol"]] = {**e, "annotations": [e["annotation"]], "capture": list(e.get("capture", ()))}
            continue
        into = merged[e["symbol"]]
        into["annotations"].append(e["annotation"])
        into["capture"] += [c for c in e.get("capture", ()) if c not in into["capture"]]
    return list(merged.values())


def with_timing_hooks(entries: list[dict], framework: str, device: str) -> list[dict]:
    """Annotation hooks plus the built-in ones the summary cannot do without (arrival, step, commit), where no
    annotation hooks them already; those stay marked builtin-default."""
    have = {e["symbol"] for e in entries}
    needed = [
        e for e in defaults.default_hooks(framework, device) if e["qualname"] in TIMING and e["symbol"] not in have
    ]
    return entries + needed


def hook_entries(framework: str, pin_set: str, device: str, settings: Settings, source: str) -> tuple[list, str]:
    if source not in HOOK_SOURCES:
        raise ConfigError(f"unknown hook source {source!r}; choose one of: {', '.join(HOOK_SOURCES)}")
    if source in ("auto", "annotations"):
        entries = annotated_entries(framework, pin_set, settings)
        if entries:
            return with_timing_hooks(entries, framework, device), "annotations"
        if source == "annotations":
            raise ConfigError(
                f"no annotations for {framework} compile to probe hooks; add some under annotations/ "
                "or use --hooks builtin"
            )
    return defaults.default_hooks(framework, device), "builtin-default"


def pick_pin_set(manifest, requested: str, engine_version: str) -> str:
    """The requested pin set, unless the running engine is another pinned release: then that release's set."""
    version = engine_version.lstrip("v").split("+", 1)[0]
    if not version or manifest.pin_entry(requested)["ref"].lstrip("v") == version:
        return requested
    return next((name for name, entry in manifest.pins.items() if entry["ref"].lstrip("v") == version), requested)


# CUDA-event timing of execute hooks on every Nth call: a timed call cost the H200 host's engine thread ~200 us
# (two events made, recorded and resolved; run 12: 12.6 us a step at every 16th call), so every call would cost
# vLLM ~8% at concurrency 16; every 64th keeps a steady sample of GPU times for ~3 us a step.
GPU_SAMPLE_EVERY = 64


def build_spec(
    framework: str,
    pin_set: str,
    device: str,
    out: Path,
    settings: Settings,
    source: str = "auto",
    extra: dict | None = None,
    tp: int = 1,
) -> dict:
    """Everything the probe needs: pin, package layout, blob ids of the pinned files, resolved hooks (with the
    collective hooks when the engine runs tensor-parallel: tp > 1)."""
    (manifest,) = load_all(settings.root, [framework])
    checkout = locate(manifest, pin_set, settings)
    entries, origin = hook_entries(framework, pin_set, device, settings, source)
    if tp > 1:
        entries = entries + defaults.collective_hooks(framework)
    hooks = lines.resolve(entries, checkout.path, manifest.package_root)
    return {
        "schema": 1,
        "framework": framework,
        "package": framework,
        "package_root": manifest.package_root,
        "pin_set": pin_set,
        "ref": checkout.pin.ref,
        "commit": checkout.pin.commit,
        "url": checkout.pin.url,
        "permalink_ref": checkout.pin.permalink_ref,
        "engine_version": checkout.pin.ref.lstrip("v"),
        "source": origin,
        "device": device,
        "out": str(out),
        "control": "control",
        "active": True,
        "capacity": 200_000,
        "flush_interval_s": 0.5,
        "tp": tp,
        "hooks": hooks,
        "gpu_sample_every": GPU_SAMPLE_EVERY,
        "blobs": dict(analysed_files(manifest, checkout, (".py",))),
        **(extra or {}),
    }


def write_spec(spec: dict, path: Path) -> Path:
    write_text(path, json.dumps(spec, indent=1, sort_keys=True))
    return path
