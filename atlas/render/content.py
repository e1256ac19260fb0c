"""The site's own words, kept as data in site/data/: the pipeline map (symbol ids per stage and step) and the
article's questions and cross-reference tables in English."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from atlas import yamlio
from atlas.errors import ConfigError

# The article's sections 2-10, in order; 11 and 12 are the cross-reference pages.
MECHANISMS = {
    "prefill-attention": "Prefill cost and attention metadata",
    "prefix-cache": "Prefix caching",
    "beam-search": "vLLM beam search",
    "continuous-batching": "Continuous batching",
    "chunked-prefill": "Chunked prefill and mixed batches",
    "cuda-graphs": "CUDA graphs",
    "speculative-decoding": "Speculative decoding",
    "preemption-retraction": "Preemption and retraction",
    "overlap-scheduling": "Overlap scheduling and plan-execute-commit",
}


@dataclass(frozen=True, slots=True)
class Content:
    pipeline: dict
    article: dict

    def section(self, slug: str) -> int:
        return list(MECHANISMS).index(slug) + 2


def load_content(site: Path) -> Content:
    data = site / "data"
    pipeline = yamlio.load(data / "pipeline.yaml")
    article = yamlio.load(data / "article.yaml")
    for key in ("stages", "steps", "engines"):
        if key not in pipeline:
            raise ConfigError(f"{data / 'pipeline.yaml'}:1: missing '{key}'; see the comment at its top")
    unknown = set(article.get("sections") or {}) - set(MECHANISMS)
    if unknown:
        raise ConfigError(
            f"{data / 'article.yaml'}: unknown mechanisms {sorted(unknown)}; use one of {', '.join(MECHANISMS)}"
        )
    return Content(_plain(pipeline), _plain(article))


def _plain(value):
    """ruamel's round-trip containers as plain dicts and lists (jinja and json want those)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
