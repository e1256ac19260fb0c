"""The article's experiments as data: each scenario names the engine variants it needs (engine arguments on top of
the device recipe) and the phases (workloads) it replays in each. `jobs()` folds the chosen scenarios into one
engine start per (framework, variant): a start serves every scenario that needs that variant."""

from __future__ import annotations

from dataclasses import dataclass, field

from atlas.errors import ConfigError

ON_ABSENT = ("on", "absent")  # probes recording, then the engine's own code: every figure measured both ways


@dataclass(frozen=True, slots=True)
class Phase:
    name: str  # unique across scenarios: scenarios sharing a phase (same workload) share its rounds
    workload: str  # atlas.runtime.workloads.BUILTIN name
    params: dict = field(default_factory=dict)
    rounds: tuple[str, ...] = ON_ABSENT


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    section: int
    title: str
    variants: dict  # framework -> variant names (keys of VARIANTS[framework])
    phases: tuple[Phase, ...]


# Engine arguments per variant on the GPU, on top of atlas.runtime.trace.ENGINE_DEFAULTS (framework, "cuda").
# KV memory is fixed (not a fraction of what is free), so engines started side by side size their caches alike.
_VLLM_BASE = {
    "gpu_memory_utilization": 0.2,
    "kv_cache_memory_bytes": 8 << 30,
    "max_model_len": 8448,
    "max_num_seqs": 32,
    "max_num_batched_tokens": 8192,
}
_SGLANG_BASE = {
    "mem_fraction_static": 0.7,
    "max_total_tokens": 65536,
    "context_length": 8448,
    "chunked_prefill_size": 8192,
    "cuda_graph_max_bs_decode": 32,
}
VARIANTS = {
    "vllm": {
        "graph": _VLLM_BASE,
        "eager": {**_VLLM_BASE, "enforce_eager": True},
        "budget512": {**_VLLM_BASE, "max_num_batched_tokens": 512},
        "kv4096": {
            **_VLLM_BASE,
            "num_gpu_blocks_override": 256,
            "block_size": 16,
            "max_model_len": 2048,
            "disable_log_stats": False,
        },
        "ngram": {
            **_VLLM_BASE,
            "disable_log_stats": False,
            "speculative_config": {
                "method": "ngram",
                "num_speculative_tokens": 7,
                "prompt_lookup_max": 4,
                "prompt_lookup_min": 2,
            },
        },
        "sync": {**_VLLM_BASE, "async_scheduling": False},
    },
    "sglang": {
        "graph": _SGLANG_BASE,
        "eager": {**_SGLANG_BASE, "disable_cuda_graph": True},
        "chunk512": {**_SGLANG_BASE, "chunked_prefill_size": 512},
        "chunk512-mixed": {**_SGLANG_BASE, "chunked_prefill_size": 512, "enable_mixed_chunk": True},
        "kv4096": {**_SGLANG_BASE, "max_total_tokens": 4096, "context_length": 2048},
        "kv4096-mixed": {**_SGLANG_BASE, "max_total_tokens": 4096, "context_length": 2048, "enable_mixed_chunk": True},
        "ngram": {**_SGLANG_BASE, "speculative_algorithm": "NGRAM", "speculative_num_draft_tokens": 8},
        "no-overlap": {**_SGLANG_BASE, "disable_overlap_schedule": True},
    },
}

_BOTH = ("vllm", "sglang")


def _both(*variants: str) -> dict:
    return {fw: variants for fw in _BOTH}


_CB = tuple(
    Phase(
        f"cb-c{c}",
        "requests",
        {"n": 16, "input_len": 256, "output_len": 32, "concurrency": c, "stream": True, "salt": True},
    )
    for c in (1, 4, 16)
)

SCENARIOS = {
    s.name: s
    for s in (
        Scenario(
            "prefill-scaling",
            2,
            "Prefill cost: TTFT of one request at 256 / 1024 / 4096 prompt tokens",
            _both("eager", "graph"),
            tuple(
                Phase(f"prefill-{n}", "sequential", {"lengths": (n,), "output_len": 1, "repeat": 3})
                for n in (256, 1024, 4096)
            ),
        ),
        Scenario(
            "prefix-cache",
            3,
            "Prefix cache: a 2080-token prompt cold, then warm",
            _both("eager", "graph"),
            (Phase("prefix-2080", "repeat-prompt", {"length": 2080, "output_len": 1}, ("on", "absent") * 2),),
        ),
        Scenario(
            "beam-search",
            4,
            "vLLM beam search: one request per beam per round, prefix cache across rounds",
            {"vllm": ("graph",)},
            (
                Phase("beam-w4", "beam", {"input_len": 256, "output_len": 16, "beam_width": 4}),
                Phase("beam-plain", "sequential", {"lengths": (256,), "output_len": 16}),
            ),
        ),
        Scenario(
            "continuous-batching",
            5,
            "Continuous batching: 16 requests of 256 + 32 tokens at concurrency 1, 4, 16",
            _both("graph"),
            _CB,
        ),
        Scenario(
            "chunked-prefill",
            6,
            "Chunked prefill: a 7168-token prefill lands in a 256-token stream",
            {"vllm": ("graph", "budget512"), "sglang": ("graph", "chunk512", "chunk512-mixed")},
            (
                Phase(
                    "stream-inject",
                    "stream-inject",
                    {"input_len": 64, "stream_len": 256, "inject_len": 7168, "after": 20},
                    ("on", "absent", "on", "absent", "on"),
                ),
            ),
        ),
        Scenario(
            "cuda-graph",
            7,
            "CUDA graphs: eager vs graphs at concurrency 1; capture cost",
            _both("eager", "graph"),
            (_CB[0],),
        ),
        Scenario(
            "spec-ngram",
            8,
            "NGRAM speculative decoding, verify width 8, 256 tokens",
            _both("graph", "ngram"),
            tuple(
                Phase(
                    f"spec-{kind}",
                    "pattern",
                    {"kind": kind, "input_len": 64, "output_len": 256},
                    ("on", "absent", "on"),
                )
                for kind in ("repeat", "random")
            ),
        ),
        Scenario(
            "preemption",
            9,
            "KV capped at 4096 tokens: 8 requests of 1024 + 512 forced tokens",
            {"vllm": ("kv4096",), "sglang": ("kv4096", "kv4096-mixed")},
            (
                Phase(
                    "kv-pressure",
                    "requests",
                    {"n": 8, "input_len": 1024, "output_len": 512, "concurrency": 8, "stream": True, "salt": True},
                ),
            ),
        ),
        Scenario(
            "overlap",
            10,
            "Overlap scheduling: plan of step t+1 while step t executes",
            {"vllm": ("graph", "sync"), "sglang": ("graph", "no-overlap")},
            (_CB[1],),
        ),
    )
}


@dataclass(frozen=True, slots=True)
class Job:
    """One engine start: a framework, a variant, and every phase the chosen scenarios need from it."""

    framework: str
    variant: str
    engine: dict
    phases: tuple[Phase, ...]
    scenarios: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.framework}-{self.variant}"


def pick(names: list[str] | None) -> list[Scenario]:
    """The scenarios by name (all when none are named); an unknown name is an error listing the valid ones."""
    if not names or names == ["all"]:
        return list(SCENARIOS.values())
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        raise ConfigError(f"unknown scenario {', '.join(unknown)}; choose from: {', '.join(SCENARIOS)}")
    return [SCENARIOS[n] for n in names]


def apply_config(scenarios: list[Scenario], config: dict) -> list[Scenario]:
    """`--config KEY=VALUE` overrides: a workload parameter of every phase that has it (e.g. length=96), or
    `rounds=on,absent`. An override no phase takes is an error."""
    used, out = set(), []
    for s in scenarios:
        phases = []
        for p in s.phases:
            params = {k: (config[k] if k in config else v) for k, v in p.params.items()}
            used |= {k for k in config if k in p.params}
            rounds = tuple(config["rounds"].split(",")) if "rounds" in config else p.rounds
            phases.append(Phase(p.name, p.workload, params, rounds))
        out.append(Scenario(s.name, s.section, s.title, s.variants, tuple(phases)))
    unused = set(config) - used - {"rounds"}
    if unused:
        raise ConfigError(
            f"--config {', '.join(sorted(unused))}: no phase of {', '.join(s.name for s in scenarios)} "
            "takes it; valid keys: "
            + ", ".join(sorted({k for s in scenarios for p in s.phases for k in p.params} | {"rounds"}))
        )
    return out


def jobs(scenarios: list[Scenario], frameworks: tuple[str, ...] = _BOTH) -> list[Job]:
    """One Job per (framework, variant) the scenarios need, phases deduplicated by name, in a stable order."""
    found: dict[tuple[str, str], tuple[list[Phase], list[str]]] = {}
    for s in scenarios:
        for fw in frameworks:
            for variant in s.variants.get(fw, ()):
                phases, names = found.setdefault((fw, variant), ([], []))
                names.append(s.name)
                phases += [p for p in s.phases if p.name not in {q.name for q in phases}]
    return [Job(fw, v, VARIANTS[fw][v], tuple(phases), tuple(names)) for (fw, v), (phases, names) in found.items()]
