"""Runs a workload through vLLM's LLMEngine (offline API, token ids in, no tokenizer), at most `concurrency`
requests in flight, once per round; a `beam` workload goes through LLM.beam_search. usage: python vllm_driver.py
CONFIG.json"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import announce, load_config, mark, run_rounds, salted, wait_build, write_result  # noqa: E402

# Engine counters kept per round (LLM.get_metrics, with disable_log_stats=False): preemptions, prefix cache,
# speculative decoding.
COUNTERS = (
    "vllm:num_preemptions",
    "vllm:prefix_cache_queries",
    "vllm:prefix_cache_hits",
    "vllm:spec_decode_num_drafts",
    "vllm:spec_decode_num_draft_tokens",
    "vllm:spec_decode_num_accepted_tokens",
)


class TokenIdTokenizer:
    """Stands in for the tokenizer beam search asks for (the engine runs with skip_tokenizer_init): it knows the
    EOS id and 'decodes' ids to their numbers. Beam search's scheduling, requests and prefix caching are vLLM's."""

    def __init__(self, eos_token_id):
        self.eos_token_id = eos_token_id

    def decode(self, ids, *args, **kwargs):
        return " ".join(map(str, ids))


def main() -> None:
    config = load_config()
    t0 = time.time()
    import vllm
    from vllm import LLM, SamplingParams

    t1 = time.time()
    wait_build(config)
    llm = LLM(model=config["model"], **config["engine"])
    engine = llm.llm_engine
    t2 = time.time()
    announce(config, "inited")

    def snapshot():  # only with disable_log_stats=False: the engine keeps no counters otherwise
        values = {}
        for metric in llm.get_metrics():
            if metric.name in COUNTERS and hasattr(metric, "value"):
                values[metric.name] = values.get(metric.name, 0) + metric.value
        return values

    def run_beam(prefix: str, workload: dict, salt: int):
        from vllm.sampling_params import BeamSearchParams

        renderer = getattr(llm, "renderer", None)
        if renderer is not None and not getattr(renderer, "_atlas_ids", False):
            eos = getattr(llm.llm_engine.model_config.hf_config, "eos_token_id", None)
            tokenizer = TokenIdTokenizer(eos[0] if isinstance(eos, list) else eos)
            renderer.get_tokenizer = lambda *a, **k: tokenizer
            renderer._atlas_ids = True
        start = time.perf_counter()
        timings, tokens = {}, 0
        for req in workload["requests"]:
            rid = prefix + req["id"]
            timings[rid] = {"submit": time.perf_counter() - start, "tokens": []}
            params = BeamSearchParams(
                beam_width=workload["beam_width"], max_tokens=req["max_tokens"], ignore_eos=True, temperature=0.0
            )
            out = llm.beam_search([{"prompt_token_ids": salted(req["prompt_ids"], salt)}], params)
            n = max(len(s.tokens) for s in out[0].sequences) - len(req["prompt_ids"])
            timings[rid]["tokens"].append([time.perf_counter() - start, n])
            tokens += n
        return tokens, time.perf_counter() - start, timings

    def run_once(prefix: str, workload: dict, salt: int = 0):
        if workload.get("kind") == "beam":
            return run_beam(prefix, workload, salt)
        pending = list(workload["requests"])
        in_flight, finished, timings, streamed = {}, 0, {}, {}
        start = time.perf_counter()
        tokens = 0

        def may_start(req: dict, now: float) -> bool:
            after = req.get("after_tokens")
            return (
                len(in_flight) < workload["concurrency"]
                and req["after_finished"] <= finished
                and req["delay_s"] <= now
                and (not after or streamed.get(prefix + after[0], 0) >= after[1])
            )

        while pending or in_flight:
            now = time.perf_counter() - start
            while pending and may_start(pending[0], now):
                req = pending.pop(0)
                rid = prefix + req["id"]
                params = SamplingParams(
                    max_tokens=req["max_tokens"], ignore_eos=True, temperature=0.0, detokenize=False
                )
                prompt = salted(req["prompt_ids"], salt) if workload.get("salt") else req["prompt_ids"]
                engine.add_request(rid, {"prompt_token_ids": prompt}, params)
                in_flight[rid] = 0
                timings[rid] = {"submit": time.perf_counter() - start, "tokens": []}
            if not in_flight:
                time.sleep(0.001)
                continue
            for out in engine.step():
                rid = out.request_id
                if rid not in in_flight:
                    continue
                n = len(out.outputs[0].token_ids)
                if n > in_flight[rid]:
                    timings[rid]["tokens"].append([time.perf_counter() - start, n - in_flight[rid]])
                    in_flight[rid] = streamed[rid] = n
                if out.finished:
                    timings[rid]["cached_tokens"] = getattr(out, "num_cached_tokens", None)
                    tokens += in_flight.pop(rid)
                    finished += 1
        return tokens, time.perf_counter() - start, timings

    rounds = run_rounds(config, run_once, snapshot if not config["engine"].get("disable_log_stats", True) else None)
    mark("done")
    write_result(
        config,
        {
            "engine": "vllm",
            "version": vllm.__version__,
            "import_s": round(t1 - t0, 2),
            "init_s": round(t2 - t1, 2),
            "rounds": rounds,
        },
    )
    llm = None  # the engine released before the interpreter exits


if __name__ == "__main__":
    main()
