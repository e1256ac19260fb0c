"""Runs a workload through SGLang's offline Engine (input_ids in, no tokenizer), at most `concurrency` requests
in flight (asyncio), once per round; streamed when the workload asks (`stream`, or a request that waits for
another's tokens). usage: python sglang_driver.py CONFIG.json"""

import asyncio
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import announce, load_config, mark, run_rounds, salted, wait_build, write_result  # noqa: E402

META = ("cached_tokens", "completion_tokens", "spec_verify_ct", "spec_accept_rate", "spec_accept_length")


def main() -> None:
    config = load_config()
    t0 = time.time()
    import sglang

    t1 = time.time()
    wait_build(config)
    engine = sglang.Engine(model_path=config["model"], **config["engine"])
    t2 = time.time()
    announce(config, "inited")

    async def replay(prefix: str, workload: dict, salt: int):
        start = time.perf_counter()
        limit = asyncio.Semaphore(workload["concurrency"])
        done = {"n": 0}
        streamed: dict = {}
        cond = asyncio.Condition()
        timings = {}
        stream = workload.get("stream") or any(r.get("after_tokens") for r in workload["requests"])

        async def one(req):
            after = req.get("after_tokens")
            async with cond:
                await cond.wait_for(
                    lambda: (
                        done["n"] >= req["after_finished"]
                        and (not after or streamed.get(prefix + after[0], 0) >= after[1])
                    )
                )
            delay = req["delay_s"] - (time.perf_counter() - start)
            if delay > 0:
                await asyncio.sleep(delay)
            async with limit:
                rid = prefix + req["id"]
                timings[rid] = row = {"submit": time.perf_counter() - start, "tokens": []}
                sp = {"max_new_tokens": req["max_tokens"], "temperature": 0.0, "ignore_eos": True}
                prompt = salted(req["prompt_ids"], salt) if workload.get("salt") else req["prompt_ids"]
                n, meta = 0, {}
                if stream:
                    chunks = await engine.async_generate(input_ids=prompt, sampling_params=sp, rid=rid, stream=True)
                    async for chunk in chunks:
                        meta = chunk.get("meta_info") or {}
                        total = meta.get("completion_tokens", len(chunk.get("output_ids") or ()))
                        if total > n:
                            row["tokens"].append([time.perf_counter() - start, total - n])
                            n = streamed[rid] = total
                            async with cond:
                                cond.notify_all()
                else:
                    out = await engine.async_generate(input_ids=prompt, sampling_params=sp, rid=rid)
                    meta = out.get("meta_info") or {}
                    n = len(out.get("output_ids") or ())
                    row["tokens"].append([time.perf_counter() - start, n])
                row.update({k: meta[k] for k in META if k in meta})
            async with cond:
                done["n"] += 1
                cond.notify_all()
            return n

        counts = await asyncio.gather(*(one(r) for r in workload["requests"]))
        return sum(counts), time.perf_counter() - start, timings

    def run_once(prefix: str, workload: dict, salt: int = 0):
        return (
            engine.loop.run_until_complete(replay(prefix, workload, salt))
            if hasattr(engine, "loop")
            else asyncio.run(replay(prefix, workload, salt))
        )

    rounds = run_rounds(config, run_once)
    mark("done")
    write_result(
        config,
        {
            "engine": "sglang",
            "version": getattr(sglang, "__version__", "?"),
            "import_s": round(t1 - t0, 2),
            "init_s": round(t2 - t1, 2),
            "rounds": rounds,
        },
    )
    engine.shutdown()


if __name__ == "__main__":
    main()
