"""Runs a workload through vLLM's LLMEngine (offline API, token ids in, no tokenizer), at most `concurrency`
requests in flight, once per round. usage: python vllm_driver.py CONFIG.json"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import announce, load_config, mark, run_rounds, write_result  # noqa: E402


def main() -> None:
    config = load_config()
    t0 = time.time()
    import vllm
    from vllm import LLM, SamplingParams

    t1 = time.time()
    llm = LLM(model=config["model"], **config["engine"])
    engine = llm.llm_engine
    t2 = time.time()
    announce(config, "inited")
    def run_once(prefix: str, workload: dict):
        pending = list(workload["requests"])
        in_flight, finished, timings = {}, 0, {}
        start = time.perf_counter()
        tokens = 0
        while pending or in_flight:
            now = time.perf_counter() - start
            while pending and len(in_flight) < workload["concurrency"] and pending[0]["after_finished"] <= finished \
                    and pending[0]["delay_s"] <= now:
                req = pending.pop(0)
                rid = prefix + req["id"]
                params = SamplingParams(max_tokens=req["max_tokens"], ignore_eos=True, temperature=0.0,
                                        detokenize=False)
                engine.add_request(rid, {"prompt_token_ids": req["prompt_ids"]}, params)
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
                    in_flight[rid] = n
                if out.finished:
                    tokens += in_flight.pop(rid)
                    finished += 1
        return tokens, time.perf_counter() - start, timings

    rounds = run_rounds(config, run_once)
    mark("done")
    write_result(config, {"engine": "vllm", "version": vllm.__version__, "import_s": round(t1 - t0, 2),
                          "init_s": round(t2 - t1, 2), "rounds": rounds})
    del llm


if __name__ == "__main__":
    main()
