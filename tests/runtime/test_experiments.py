"""The article's experiments: scenarios folded into engine jobs, figures measured from driver rounds and probe events,
engine-log figures, results files, and the driver's per-phase fault isolation."""

from __future__ import annotations

import pytest

from atlas.errors import ConfigError
from atlas.runtime.experiments import measure, results
from atlas.runtime.experiments import scenarios as sc


def test_every_scenario_has_phases_and_known_variants():
    assert len(sc.SCENARIOS) == 9 and sorted(s.section for s in sc.SCENARIOS.values()) == list(range(2, 11))
    for s in sc.SCENARIOS.values():
        assert s.phases
        for fw, variants in s.variants.items():
            assert set(variants) <= set(sc.VARIANTS[fw]), s.name


@pytest.mark.parametrize(
    "names, expected",
    [
        (["prefill-scaling"], {"vllm-eager", "vllm-graph", "sglang-eager", "sglang-graph"}),
        (
            ["chunked-prefill"],
            {"vllm-graph", "vllm-budget512", "sglang-graph", "sglang-chunk512", "sglang-chunk512-mixed"},
        ),
        (["beam-search"], {"vllm-graph"}),
        (["continuous-batching", "cuda-graph"], {"vllm-graph", "sglang-graph", "vllm-eager", "sglang-eager"}),
    ],
)
def test_jobs_one_start_per_framework_and_variant(names, expected):
    assert {j.name for j in sc.jobs(sc.pick(names))} == expected


def test_a_phase_two_scenarios_share_runs_once():
    (graph,) = [j for j in sc.jobs(sc.pick(["continuous-batching", "cuda-graph"])) if j.name == "vllm-graph"]
    assert [p.name for p in graph.phases] == ["cb-c1", "cb-c4", "cb-c16"]
    assert graph.scenarios == ("continuous-batching", "cuda-graph")


def test_config_overrides_a_workload_parameter_and_rejects_unknown_keys():
    (s,) = sc.apply_config(sc.pick(["prefix-cache"]), {"length": 96, "rounds": "on"})
    assert s.phases[0].params["length"] == 96 and s.phases[0].rounds == ("on",)
    with pytest.raises(ConfigError, match="no phase of prefix-cache takes it; valid keys: length, output_len"):
        sc.apply_config(sc.pick(["prefix-cache"]), {"lenght": 96})
    with pytest.raises(ConfigError, match="choose from: prefill-scaling"):
        sc.pick(["nope"])


def _row(phase, requests, probes="on", rnd=0, seconds=1.0, out_tokens=0, **extra):
    prefix = f"{phase}-r{rnd}-"
    return {
        "phase": phase,
        "round": rnd,
        "probes": probes,
        "seconds": seconds,
        "out_tokens": out_tokens,
        "out_tok_s": out_tokens / seconds,
        "begin_ns": 0,
        "requests": {prefix + rid: r for rid, r in requests.items()},
        **extra,
    }


def test_chunked_prefill_gaps_before_and_during_the_long_prefill():
    stream = {"submit": 0.0, "tokens": [[0.010, 1], [0.012, 1], [0.014, 1], [0.100, 1], [0.102, 1], [0.104, 1]]}
    inject = {"submit": 0.015, "tokens": [[0.099, 1]]}
    f = measure.figures("chunked-prefill", "vllm", _row("stream-inject", {"stream": stream, "inject": inject}), [])
    assert f[("stream", "gap_ms_baseline", "ms")] == pytest.approx(2.0)
    assert f[("stream", "gap_ms_max", "ms")] == pytest.approx(86.0)
    assert f[("stream", "inject_latency_ms", "ms")] == pytest.approx(84.0)


def test_continuous_batching_ttft_tpot_and_itl():
    reqs = {
        f"req-{i}": {"submit": 0.0, "tokens": [[0.020 + i * 0.01, 1], [0.030 + i * 0.01, 1], [0.040 + i * 0.01, 1]]}
        for i in range(2)
    }
    f = measure.figures("continuous-batching", "sglang", _row("cb-c4", reqs, out_tokens=6, seconds=0.05), [])
    assert f[("c4", "ttft_ms_mean", "ms")] == pytest.approx(25.0)
    assert f[("c4", "tpot_ms_mean", "ms")] == pytest.approx(10.0)
    assert f[("c4", "itl_ms_p99", "ms")] == pytest.approx(10.0)
    assert f[("c4", "out_tok_s", "tok/s")] == pytest.approx(120.0)


def _event(role, t, ids=(), **values):
    return {"role": role, "mono_ns": t, "symbol": "x.Scheduler." + role, "values": values, "request_ids": list(ids)}


@pytest.mark.parametrize(
    "order, ahead, matched",
    [
        ("PCPCPC", 0, 3),  # synchronous: every commit before the next plan
        ("PPCPCC", 2, 3),  # overlapped: plan t+1 begins before commit t
    ],
)
def test_plan_ahead_counts_overlapped_commits_and_matches_them_to_their_plan(order, ahead, matched):
    events, plans, commits = [], 0, 0
    for t, kind in enumerate(order):
        if kind == "P":
            events.append(_event("plan", t, [f"r{plans}"], batch_size=1))
            plans += 1
        else:
            events.append(_event("commit", t, [f"r{commits}"]))
            commits += 1
    assert measure.plan_ahead(events) == (ahead, matched, 3)


@pytest.mark.parametrize(
    "framework, log, expected",
    [
        (
            "vllm",
            "INFO [monitor.py:53] torch.compile took 27.65 s in total\nGPU KV cache size: 74,896 tokens\n"
            "Graph capturing finished in 1 secs, took 0.14 GiB",
            {
                ("capture", "compile_s"): 27.65,
                ("capture", "kv_tokens"): 74896.0,
                ("capture", "capture_s"): 1.0,
                ("capture", "capture_gib"): 0.14,
            },
        ),
        (
            "sglang",
            "Capture target decode CUDA graph begin. backend=full, num_tokens_per_req=1, bs=[1, 2, 4], avail\n"
            "Capture target decode CUDA graph end. elapsed=3.72 s, mem usage=0.08 GB, avail mem=110.46 GB.\n"
            "KV cache pool is full. Retract requests. #retracted_reqs: 1, #new_token_ratio: 0.0980 -> 0.7063\n"
            "KV cache pool is full. Retract requests. #retracted_reqs: 1, #new_token_ratio: 0.0980 -> 0.7063",
            {
                ("capture-decode", "buckets"): 3,
                ("capture-decode", "capture_s"): 3.72,
                ("capture-decode", "capture_gib"): 0.08,
                (measure.KV_LABEL, "retractions_logged"): 2,
                (measure.KV_LABEL, "new_token_ratio_before"): 0.098,
                (measure.KV_LABEL, "new_token_ratio_after"): 0.7063,
            },
        ),
        ("vllm", "nothing to see", {}),
    ],
)
def test_engine_log_figures(framework, log, expected):
    assert measure.log_figures(framework, log) == expected


def test_results_medians_per_probe_state_and_derived_speedup():
    def run(variant, rates):
        rows = [
            _row("cb-c1", {}, probes=state, rnd=i, out_tokens=rate, seconds=1.0)
            for i, (state, rate) in enumerate(rates)
        ]
        job = sc.Job("vllm", variant, {}, (), ("cuda-graph",))
        return results.JobRun(
            job, {"version": "0.26.0", "rounds": rows}, [], [], {"ref": "v0.26.0", "commit": "b3a3"}, ""
        )

    out = results.scenario_results(
        "cuda-graph",
        [run("graph", [("on", 300), ("absent", 360), ("absent", 340)]), run("eager", [("on", 40), ("absent", 35)])],
        {"gpu": "H200"},
    )
    by = {(r["variant"], r["metric"]): r for r in out["rows"] if r["label"] == "c1"}
    assert (by[("graph", "out_tok_s")]["on"], by[("graph", "out_tok_s")]["absent"]) == (300, 350)
    assert by[("graph", "graph_speedup")]["absent"] == pytest.approx(10.0)
    assert by[("graph", "graph_speedup")]["on"] == pytest.approx(7.5)
    assert out["engines"]["vllm"] == {"version": "0.26.0", "pin": "v0.26.0", "commit": "b3a3"} and not out["errors"]


def test_a_failed_round_is_reported_not_measured():
    rows = [{"phase": "cb-c1", "round": 0, "probes": "on", "error": "RuntimeError: boom"}]
    run = results.JobRun(sc.Job("sglang", "graph", {}, (), ("continuous-batching",)), {"rounds": rows}, [], [], {}, "")
    out = results.scenario_results("continuous-batching", [run], {})
    assert out["rows"] == [] and out["errors"] == ["sglang-graph cb-c1 round 0: RuntimeError: boom"]


def test_driver_rounds_go_on_after_a_phase_fails():
    from atlas.runtime.drivers.common import run_rounds

    def run_once(prefix, workload, salt):
        if workload["name"] == "bad":
            raise RuntimeError("engine said no")
        return 4, 0.5, {}

    config = {
        "warmup": False,
        "switch_wait_s": 0,
        "phases": [
            {"name": "bad", "workload": {"name": "bad"}, "rounds": ["on"]},
            {"name": "good", "workload": {"name": "good"}, "rounds": ["on", "absent"]},
        ],
    }
    rounds = run_rounds(config, run_once)
    assert [(r["phase"], r.get("error", r.get("out_tokens"))) for r in rounds] == [
        ("bad", "RuntimeError: engine said no"),
        ("good", 4),
        ("good", 4),
    ]
