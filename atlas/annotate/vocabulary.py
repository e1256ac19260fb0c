"""The closed vocabularies of contract annotations: frameworks, mechanisms (the article's sections), roles in the
plan -> allocate -> execute -> validate -> commit -> release cycle, cost dimensions, verdicts and probe captures.
The JSON Schema (atlas.annotate.schema) and the README are built from these tuples."""

from __future__ import annotations

SCHEMA_VERSION = 1

FRAMEWORKS = ("vllm", "sglang")

# slug -> the article's section number and title
MECHANISMS = {
    "prefill-attention": (2, "Prefill cost and attention metadata"),
    "prefix-cache": (3, "Prefix caching"),
    "beam-search": (4, "vLLM beam search"),
    "continuous-batching": (5, "Continuous batching"),
    "chunked-prefill": (6, "Chunked prefill and mixed batches"),
    "cuda-graphs": (7, "CUDA graphs"),
    "speculative-decoding": (8, "Speculative decoding"),
    "preemption-retraction": (9, "Preemption and retraction"),
    "overlap-scheduling": (10, "Overlap scheduling and plan-execute-commit"),
    "bottlenecks": (11, "Reading bottlenecks from results"),
    "multi-gpu": (12, "Multi-GPU questions"),
}

ROLES = ("plan", "allocate", "execute", "validate", "commit", "release")

COSTS = ("flops", "hbm_bytes", "cpu_launch", "sync", "queueing", "fragmentation", "memory")
EFFECTS = ("reduces", "adds")

VERDICTS = ("holds", "changed", "not_found", "gone")  # gone: existed at the default pin, removed at this one
EXPECTS = ("present", "absent")

CAPTURES = (
    "num_scheduled_tokens",
    "num_computed_tokens",
    "kv_blocks",
    "prefix_hit_tokens",
    "batch_mode",
    "batch_size",
    "preempted",
    "retracted",
    "new_token_ratio",
    "draft_tokens",
    "accepted_tokens",
    "cuda_graph",
    "request_ids",
    "gpu_time",
)


def section_of(mechanism: str) -> int:
    return MECHANISMS[mechanism][0]
