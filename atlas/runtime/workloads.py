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
    after_tokens: tuple[str, int] | None = None  # ... and not before request ID has streamed this many tokens


@dataclass(frozen=True, slots=True)
class Workload:
    name: str
    requests: tuple[Request, ...]
    concurrency: int
    salt: bool = False  # each round (and warm-up) replays fresh prompts: no prefix-cache hit across rounds
    kind: str = "generate"  # "generate", or "beam" (vLLM's LLM.beam_search on the prompts, one at a time)
    beam_width: int = 0
    stream: bool = False  # the driver times every token (TTFT, ITL), not only each request's end

    @property
    def num_output_tokens(self) -> int:
        return sum(r.max_tokens for r in self.requests)

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "concurrency": self.concurrency,
            "salt": self.salt,
            "kind": self.kind,
            "beam_width": self.beam_width,
            "stream": self.stream,
            "requests": [dict(asdict(r), prompt_ids=list(r.prompt_ids)) for r in self.requests],
        }


def _ids(rng: random.Random, n: int, vocab: int) -> tuple[int, ...]:
    return tuple(rng.randrange(100, vocab) for _ in range(n))


def requests(
    n: int = 8,
    input_len: int = 64,
    output_len: int = 16,
    concurrency: int = 4,
    vocab: int = 1000,
    seed: int = 0,
    stream: bool = False,
    salt: bool = False,
    output_spread: int = 0,
) -> Workload:
    """N independent requests of the given lengths, at most `concurrency` in flight; with `output_spread`, output
    lengths spread evenly over output_len +- spread (requests then finish and start at different steps: a steady
    batch, not waves)."""
    rng = random.Random(seed)
    spread = rng.randint if output_spread else None
    reqs = tuple(
        Request(
            f"req-{i}",
            _ids(rng, input_len, vocab),
            spread(output_len - output_spread, output_len + output_spread) if spread else output_len,
        )
        for i in range(n)
    )
    return Workload("requests", reqs, concurrency, salt=salt, stream=stream)


def shared_prefix(
    prefix_len: int = 96, suffix_len: int = 16, output_len: int = 8, vocab: int = 1000, seed: int = 0, **_
) -> Workload:
    """Two requests sharing a prefix; the second starts after the first finished, so its prefix is cached."""
    rng = random.Random(seed)
    prefix = _ids(rng, prefix_len, vocab)
    first = Request("prefix-a", prefix + _ids(rng, suffix_len, vocab), output_len)
    second = Request("prefix-b", prefix + _ids(rng, suffix_len, vocab), output_len, after_finished=1)
    return Workload("shared-prefix", (first, second), 1)


def long_prefill(
    n: int = 4,
    input_len: int = 32,
    output_len: int = 48,
    long_len: int = 384,
    delay_s: float = 0.2,
    vocab: int = 1000,
    seed: int = 0,
    **_,
) -> Workload:
    """A stream of decoding requests, and one long prompt injected while they decode (chunked prefill mixes in)."""
    rng = random.Random(seed)
    stream = tuple(Request(f"stream-{i}", _ids(rng, input_len, vocab), output_len) for i in range(n))
    late = Request("long-prefill", _ids(rng, long_len, vocab), 8, delay_s=delay_s)
    return Workload("long-prefill", stream + (late,), n + 1)


def sequential(
    lengths: tuple[int, ...] = (256,),
    output_len: int = 1,
    repeat: int = 1,
    vocab: int = 1000,
    seed: int = 0,
    name: str = "sequential",
    **_,
) -> Workload:
    """Unique random prompts of the given lengths, one at a time, fresh in every round (prefill cost alone)."""
    rng = random.Random(seed)
    reqs = tuple(
        Request(f"len{n}-{i}", _ids(rng, n, vocab), output_len, after_finished=k)
        for k, (n, i) in enumerate((n, i) for n in lengths for i in range(repeat))
    )
    return Workload(name, reqs, 1, salt=True, stream=True)


def repeat_prompt(length: int = 2080, output_len: int = 1, vocab: int = 1000, seed: int = 0, **_) -> Workload:
    """One prompt sent cold, then again once it finished (warm): what the prefix cache saves. Fresh per round."""
    prompt = _ids(random.Random(seed), length, vocab)
    return Workload(
        "repeat-prompt",
        (Request("cold", prompt, output_len), Request("warm", prompt, output_len, after_finished=1)),
        1,
        salt=True,
        stream=True,
    )


def stream_inject(
    input_len: int = 64,
    stream_len: int = 256,
    inject_len: int = 7168,
    after: int = 20,
    inject_output: int = 1,
    vocab: int = 1000,
    seed: int = 0,
    **_,
) -> Workload:
    """One request streaming `stream_len` tokens; a long prefill arrives after its `after`-th streamed token."""
    rng = random.Random(seed)
    stream = Request("stream", _ids(rng, input_len, vocab), stream_len)
    inject = Request("inject", _ids(rng, inject_len, vocab), inject_output, after_tokens=("stream", after))
    return Workload("stream-inject", (stream, inject), 2, salt=True, stream=True)


def pattern(
    kind: str = "repeat", input_len: int = 64, output_len: int = 256, vocab: int = 1000, seed: int = 0, **_
) -> Workload:
    """One request whose prompt is a short token cycle repeated ("repeat": what n-gram drafting feeds on) or
    random tokens ("random": no repetition to look up)."""
    rng = random.Random(seed)
    cycle = _ids(rng, 4, vocab)
    prompt = (cycle * (input_len // 4 + 1))[:input_len] if kind == "repeat" else _ids(rng, input_len, vocab)
    return Workload(f"pattern-{kind}", (Request(kind, prompt, output_len),), 1, salt=True)


def beam(
    input_len: int = 256, output_len: int = 16, beam_width: int = 4, vocab: int = 1000, seed: int = 0, **_
) -> Workload:
    """One prompt decoded with vLLM's beam search (width `beam_width`, `output_len` rounds of max_tokens=1)."""
    rng = random.Random(seed)
    return Workload(
        "beam",
        (Request("beam", _ids(rng, input_len, vocab), output_len),),
        1,
        salt=True,
        kind="beam",
        beam_width=beam_width,
    )


BUILTIN = {
    "requests": requests,
    "shared-prefix": shared_prefix,
    "long-prefill": long_prefill,
    "sequential": sequential,
    "repeat-prompt": repeat_prompt,
    "stream-inject": stream_inject,
    "pattern": pattern,
    "beam": beam,
}


def build(name: str, **params) -> Workload:
    if name not in BUILTIN:
        raise ConfigError(f"unknown workload {name!r}; choose one of: {', '.join(BUILTIN)}")
    return BUILTIN[name](**{k: v for k, v in params.items() if v is not None})
