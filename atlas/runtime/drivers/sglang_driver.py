"""Runs a workload through SGLang's offline Engine (input_ids in, no tokenizer), at most `concurrency` requests
in flight (asyncio), once per round. usage: python sglang_driver.py CONFIG.json"""

import asyncio
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import announce, load_config, mark, run_rounds, write_result  # noqa: E402


def main() -> None:
    config = load_config()
    t0 = time.time()
    import sglang

    t1 = time.time()
    engine = sglang.Engine(model_path=config["model"], **config["engine"])
    t2 = time.time()
    announce(config, "inited")
    async def replay(prefix: str, workload: dict):
        start = time.perf_counter()
        limit = asyncio.Semaphore(workload["concurrency"])
        done = {"n": 0}
        cond = asyncio.Condition()
        timings = {}

        async def one(req):
            async with cond:
                await cond.wait_for(lambda: done["n"] >= req["after_finished"])
            delay = req["delay_s"] - (time.perf_counter() - start)
            if delay > 0:
                await asyncio.sleep(delay)
            async with limit:
                rid = prefix + req["id"]
                timings[rid] = {"submit": time.perf_counter() - start, "tokens": []}
                sp = {"max_new_tokens": req["max_tokens"], "temperature": 0.0, "ignore_eos": True}
                out = await engine.async_generate(input_ids=req["prompt_ids"], sampling_params=sp, rid=rid)
                n = len(out.get("output_ids") or ())
                timings[rid]["tokens"].append([time.perf_counter() - start, n])
            async with cond:
                done["n"] += 1
                cond.notify_all()
            return n

        counts = await asyncio.gather(*(one(r) for r in workload["requests"]))
        return sum(counts), time.perf_counter() - start, timings

    def run_once(prefix: str, workload: dict):
        return engine.loop.run_until_complete(replay(prefix, workload)) if hasattr(engine, "loop") \
            else asyncio.run(replay(prefix, workload))

    rounds = run_rounds(config, run_once)
    mark("done")
    write_result(config, {"engine": "sglang", "version": getattr(sglang, "__version__", "?"),
                          "import_s": round(t1 - t0, 2), "init_s": round(t2 - t1, 2), "rounds": rounds})
    engine.shutdown()


if __name__ == "__main__":
    main()
