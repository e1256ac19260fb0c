"""Built-in workloads: plain data the engine drivers replay (token ids in, no tokenizer). Pure and deterministic:
the same name and parameters give the same prompts."""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass

from atlas.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Request:
    id: str
    prompt_ids: tuple[int, ...]
    max_tokens: int
    after_finished: int = 0  # start only once this many requests of the workload have finished
    delay_s: float = 0.0  # ... and not before this many seconds after the workload started


@dataclass(frozen=True, slots=True)
class Workload:
    name: str
    requests: tuple[Request, ...]
    concurrency: int

    @property
    def num_output_tokens(self) -> int:
        return sum(r.max_tokens for r in self.requests)

    def to_json(self) -> dict:
        return {"name": self.name, "concurrency": self.concurrency,
                "requests": [dict(asdict(r), prompt_ids=list(r.prompt_ids)) for r in self.requests]}


def _ids(rng: random.Random, n: int, vocab: int) -> tuple[int, ...]:
    return tuple(rng.randrange(100, vocab) for _ in range(n))


def requests(n: int = 8, input_len: int = 64, output_len: int = 16, concurrency: int = 4, vocab: int = 1000,
             seed: int = 0) -> Workload:
    """N independent requests of the given lengths, at most `concurrency` in flight."""
    rng = random.Random(seed)
    reqs = tuple(Request(f"req-{i}", _ids(rng, input_len, vocab), output_len) for i in range(n))
    return Workload("requests", reqs, concurrency)


def shared_prefix(prefix_len: int = 96, suffix_len: int = 16, output_len: int = 8, vocab: int = 1000,
                  seed: int = 0, **_) -> Workload:
    """Two requests sharing a prefix; the second starts after the first finished, so its prefix is cached."""
    rng = random.Random(seed)
    prefix = _ids(rng, prefix_len, vocab)
    first = Request("prefix-a", prefix + _ids(rng, suffix_len, vocab), output_len)
    second = Request("prefix-b", prefix + _ids(rng, suffix_len, vocab), output_len, after_finished=1)
    return Workload("shared-prefix", (first, second), 1)


def long_prefill(n: int = 4, input_len: int = 32, output_len: int = 48, long_len: int = 384, delay_s: float = 0.2,
                 vocab: int = 1000, seed: int = 0, **_) -> Workload:
    """A stream of decoding requests, and one long prompt injected while they decode (chunked prefill mixes in)."""
    rng = random.Random(seed)
    stream = tuple(Request(f"stream-{i}", _ids(rng, input_len, vocab), output_len) for i in range(n))
    late = Request("long-prefill", _ids(rng, long_len, vocab), 8, delay_s=delay_s)
    return Workload("long-prefill", stream + (late,), n + 1)


BUILTIN = {"requests": requests, "shared-prefix": shared_prefix, "long-prefill": long_prefill}


def build(name: str, **params) -> Workload:
    if name not in BUILTIN:
        raise ConfigError(f"unknown workload {name!r}; choose one of: {', '.join(BUILTIN)}")
    return BUILTIN[name](**{k: v for k, v in params.items() if v is not None})
