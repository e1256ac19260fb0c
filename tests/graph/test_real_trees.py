"""The issue's "done when" queries on the real pinned trees (marker `slow`: builds a whole tree when not built)."""

import os

import pytest

from atlas.env import settings as load_settings
from atlas.errors import AtlasError
from atlas.graph import load_graph, load_index

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def settings():
    os.environ.setdefault("ATLAS_MIRROR", "/work/shared/sources")
    try:
        return load_settings()
    except AtlasError as exc:
        pytest.skip(f"no project settings: {exc}")


def _graph(settings, framework):
    try:
        return load_graph(settings, framework)
    except AtlasError as exc:
        pytest.skip(f"{framework} not synced: {exc}")


def test_vllm_schedule_calls_allocate_slots_and_is_called_by_engine_core(settings):
    g = _graph(settings, "vllm")
    index = load_index(settings, "vllm")
    sid = index.resolve("Scheduler.schedule")
    assert sid == "vllm.v1.core.sched.scheduler.Scheduler.schedule"
    callees = {b for _, _, b, _ in g.callees(sid)}
    callers = {a for _, a, _, _ in g.callers(sid)}
    assert "vllm.v1.core.kv_cache_manager.KVCacheManager.allocate_slots" in callees
    assert "vllm.v1.engine.core.EngineCore.step" in callers
    assert g.node(sid)["component"] == "scheduler"


def test_sglang_get_next_batch_to_run_reaches_prefill_adder(settings):
    g = _graph(settings, "sglang")
    sid = load_index(settings, "sglang").resolve("srt.managers.scheduler.Scheduler.get_next_batch_to_run")
    chain = g.path(sid, "sglang.srt.managers.schedule_policy.PrefillAdder.add_one_req")
    assert chain and chain[0] == sid, chain
    assert any(c.endswith("Scheduler.get_new_batch_prefill") for c in chain)


def test_ambiguous_suffix_lists_candidates(settings):
    index = load_index(settings, "vllm")
    with pytest.raises(AtlasError, match="ambiguous"):
        index.resolve("forward")


def test_vllm_engine_step_reaches_the_kv_cache_write_kernel(settings, capsys):
    """Issue 4's pipeline view: EngineCore.step -> executor -> worker (by name) -> model runner -> the model ->
    attention -> op -> C++ -> `__global__`, printed with the kernel's file and line."""
    _graph(settings, "vllm")
    from atlas.cli import main

    assert main(["graph", "path", "EngineCore.step", "reshape_and_cache_flash", "--framework", "vllm"]) == 0
    out = capsys.readouterr().out.splitlines()
    chain = [line.split("-> ")[1].split()[0] for line in out if "-> " in line]
    assert out[0] == "vllm.v1.engine.core.EngineCore.step"
    # the shortest chain crosses the layers: executor, worker, model runner, an attention entry and an attention
    # backend's forward (through the model, or through the CUDA-graph runner replaying the captured attention)
    for hop in ("Worker.execute_model", "GPUModelRunner.execute_model"):
        assert any(c.endswith(hop) for c in chain), (hop, chain)
    assert any("attention" in c.lower() for c in chain[3:-3]), chain
    assert chain[-4].endswith((".forward", ".do_kv_cache_update")), chain
    g = load_graph(settings, "vllm")  # and the model's own route is there too: step -> the model -> its layers
    model = g.path("vllm.v1.engine.core.EngineCore.step", "vllm.model_executor.models.qwen3.Qwen3ForCausalLM.forward")
    assert model and any(c.endswith("GPUModelRunner.execute_model") for c in model), model
    layer = g.path(
        "vllm.model_executor.models.qwen3.Qwen3ForCausalLM.forward",
        "vllm.model_executor.layers.attention.attention.Attention.forward",
    )
    assert layer and any(c.endswith("DecoderLayer.forward") for c in layer), layer
    assert chain[-3:-1] == [
        "op:_C_cache_ops::reshape_and_cache_flash",
        "cpp:csrc/libtorch_stable/cache_kernels.cu::reshape_and_cache_flash",
    ], chain
    assert chain[-1].startswith("cuda:") and chain[-1].endswith("::reshape_and_cache_flash_kernel")
    assert "[string-dispatch " in "\n".join(out)  # the executor -> worker hop, by rule
    kernel, _, where = out[-1].partition(" (__global__ kernel) is defined at ")
    assert kernel == chain[-1] and where.startswith("csrc/") and int(where.rsplit(":", 1)[1]) > 0


def test_kernel_ids_by_suffix(settings, capsys):
    _graph(settings, "vllm")
    from atlas.cli import main

    assert main(["show", "reshape_and_cache_flash_kernel", "--framework", "vllm"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("cuda:") and "(cuda_kernel" in out and "callers (" in out
    assert main(["show", "reshape_and_cache_flash", "--framework", "vllm"]) == 2  # several layers: name one
    assert "cpp:csrc/libtorch_stable/cache_kernels.cu::reshape_and_cache_flash" in capsys.readouterr().err


def test_sglang_run_batch_reaches_a_jit_kernel_and_the_model(settings):
    g = _graph(settings, "sglang")
    sid = load_index(settings, "sglang").resolve("Scheduler.run_batch")
    chain = g.path(sid, "sglang.srt.layers.radix_attention.RadixAttention.forward")
    assert chain and any(c.endswith("Qwen3ForCausalLM.forward") or ".Qwen3ForCausalLM." in c for c in chain), chain
    jit = [n for n in g.graph.nodes if n.startswith("cuda:") and n.endswith("::clamp_position_kernel")]
    assert jit and g.path(sid, jit[0])[-3].startswith("jit:")


def test_dispatch_rules_name_classes_of_the_default_trees(settings):
    """A rule whose classes a pin lacks does nothing: the default pins have every class the rules name (some
    instance rules name a second runner that only one pin has)."""
    from atlas.graph.components import rules_path
    from atlas.graph.resolve.rules import load

    for framework in ("vllm", "sglang"):
        index = load_index(settings, framework)
        rules = load(rules_path(framework))
        for rule in rules.by_name:
            assert all(c in index.symbols for c in rule.classes), rule
        for rule in rules.instances:
            assert all(c in index.symbols for c in rule.classes), rule
        assert any(r.attribute in index.symbols for r in rules.instances), framework


def test_unresolved_kernel_sites_are_listed_with_file_and_line(settings, capsys):
    _graph(settings, "vllm")
    from atlas.cli import main

    assert main(["graph", "unresolved", "vllm", "--kind", "kernel", "--format", "json"]) == 1  # findings
    rows = __import__("json").loads(capsys.readouterr().out)
    assert rows and all(r["kind"] and r["path"] and r["line"] > 0 for r in rows)
    assert {"op not registered in the tree", "launched kernel not named"} <= {r["kind"] for r in rows}
    assert not any(r["kind"] == "python call" for r in rows)
