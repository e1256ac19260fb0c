"""Dispatch rules as data (atlas.graph.resolve.rules): the shipped files load, and a malformed rule is an error that
names file:line."""

import pytest

from atlas.errors import ConfigError
from atlas.graph.components import rules_path
from atlas.graph.resolve.rules import ByName, DispatchRules, Instances, load


def test_shipped_rules_load():
    vllm = load(rules_path("vllm"))
    workers = ("vllm.v1.worker.worker_base.WorkerBase", "vllm.v1.worker.worker_base.WorkerWrapperBase")
    assert ByName("collective_rpc", "method", workers) in vllm.by_name
    assert any(r.attribute == "vllm.v1.worker.gpu_model_runner.GPUModelRunner.model" for r in vllm.instances)
    assert load(rules_path("sglang")).instances


@pytest.mark.parametrize(
    "text, expected",
    [
        ("rules: []\n", DispatchRules()),
        (
            "dispatch:\n  by_name:\n    - call: rpc\n      classes: [a.W]\n",
            DispatchRules((ByName("rpc", "method", ("a.W",)),)),
        ),
        (
            "dispatch:\n  by_name:\n    - {call: rpc, argument: name, classes: [a.W]}\n",
            DispatchRules((ByName("rpc", "name", ("a.W",)),)),
        ),
        (
            "dispatch:\n  instances:\n    - {attribute: a.R.model, classes: [a.M]}\n",
            DispatchRules(instances=(Instances("a.R.model", ("a.M",)),)),
        ),
    ],
)
def test_load(tmp_path, text, expected):
    path = tmp_path / "x.yaml"
    path.write_text(text)
    assert load(path) == expected


@pytest.mark.parametrize(
    "text, where",
    [
        ("dispatch: [1]\n", ":1:"),
        ("dispatch:\n  by_name:\n    - call: rpc\n", ":3:"),  # no classes
        ("dispatch:\n  by_name:\n    - {call: rpc, classes: a.W}\n", ":3:"),  # classes is not a list
        ("dispatch:\n  instances:\n    - {attribute: a.R.model, classes: [a.M], extra: 1}\n", ":3:"),
        ("dispatch:\n  others: []\n", ":1:"),
    ],
)
def test_malformed_rules_name_file_and_line(tmp_path, text, where):
    path = tmp_path / "x.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=f"x.yaml{where}"):
        load(path)


def test_no_file_no_rules(tmp_path):
    assert load(tmp_path / "none.yaml") == DispatchRules()
