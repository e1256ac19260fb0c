"""The call resolver in C++ (atlas/graph/resolve/cpp) gives what the Python Solver gives for real code (pycg=False):
the same edges with the same provenance per line, the same call sites, bases and rounds, on the resolver's own test
cases, on PyCG's micro-benchmark and on the default pinned trees (where Solver's own result is the same for every
hash seed; see atlas.graph.resolve.native for where it is not). Without it built these tests skip, saying so,
unless ATLAS_REQUIRE_NATIVE=1 (as CI sets), where they fail."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from atlas.env import settings as load_settings
from atlas.errors import AtlasError
from atlas.graph import components
from atlas.graph.resolve import NativeSolver, Solver, make_solver
from atlas.graph.resolve.rules import ByName, DispatchRules, Instances
from atlas.graph.resolve.rules import load as load_rules
from atlas.parse.python import compiled, extract, extract_packed, module_name, parser, unpack
from atlas.sources import analysed_files, load_all, locate
from graph.test_resolve import CASES

NATIVE = compiled.native_solver()
pytestmark = pytest.mark.skipif(
    NATIVE is None and os.environ.get("ATLAS_REQUIRE_NATIVE", "") in ("", "0"),
    reason="the C++ call resolver is not built here: run `python scripts/compile.py` to test it")
MICRO = Path(os.environ.get("ATLAS_PYCG_MICRO", Path(__file__).resolve().parents[3] / "shared" / "benchmarks" /
                            "pycg-micro")) / "snippets"


def facts_of(files: dict[str, str | bytes]) -> list:
    out = []
    for path, text in files.items():
        module, is_package = module_name(path)
        out.append(extract(text if isinstance(text, bytes) else text.encode(), path, module, is_package))
    return out


def differences(facts: list, rules: DispatchRules = DispatchRules(), max_rounds: int = 30) -> list[str]:
    """What the two resolvers found differently on `facts` (empty when they agree)."""
    python = Solver(facts, pycg=False, max_rounds=max_rounds, rules=rules)
    native = NativeSolver(NATIVE, facts, max_rounds, rules=rules)
    a, b = python.solve(), native.solve()
    out = [f"edge {k}: {a.edges.get(k)} != {b.edges.get(k)}" for k in a.edges.keys() | b.edges.keys()
           if a.edges.get(k) != b.edges.get(k)]
    out += [f"site {k}: {a.sites.get(k)} != {b.sites.get(k)}" for k in a.sites.keys() | b.sites.keys()
            if a.sites.get(k) != b.sites.get(k)]
    out += [f"bases {k}: {python.bases.get(k)} != {native.bases.get(k)}"
            for k in python.bases.keys() | native.bases.keys() if python.bases.get(k) != native.bases.get(k)]
    return out + ([f"rounds {a.rounds} != {b.rounds}"] if a.rounds != b.rounds else [])


@pytest.mark.parametrize("name, files", [(c[0], c[1]) for c in CASES], ids=[c[0] for c in CASES])
def test_same_results_on_the_resolver_cases(name, files):
    assert differences(facts_of(files)) == []


def test_same_results_with_dispatch_rules():
    files = {"w.py": """
class Worker:
    def execute_model(self): pass
class GPUWorker(Worker):
    def execute_model(self): pass
class Executor:
    def run(self):
        self.collective_rpc("execute_model")
        self.collective_rpc(method="execute_model")
        self.model.forward()
class Qwen:
    def forward(self): pass
"""}
    rules = DispatchRules((ByName("collective_rpc", "method", ("w.Worker",)),),
                          (Instances("w.Executor.model", ("w.Qwen",)),))
    assert differences(facts_of(files), rules) == []


@pytest.mark.parametrize("max_rounds", [1, 2, 4])
def test_same_results_when_rounds_stop_early(max_rounds):
    assert differences(facts_of(CASES[0][1] | {"more.py": CASES[-1][1].get("a.py", "x = 1\n")}),
                       max_rounds=max_rounds) == []


def test_constants_equal_in_python_meet_in_one_slot():
    files = {"c.py": """
d = {0: f, False: g, 0.0: h, 1: k, True: m, "k": n, None: o}
x = d[0]
y = d[True]
s = [a, b, c][0:False]
t = [a, b, c][True:2]
def f(): pass
def g(): pass
def h(): pass
def k(): pass
def m(): pass
def n(): pass
def o(): pass
def a(): pass
def b(): pass
def c(): pass
x(); y(); s[0](); t[0]()
"""}
    assert differences(facts_of(files)) == []


@pytest.mark.skipif(not MICRO.is_dir(), reason=f"PyCG micro-benchmark not found at {MICRO}; set ATLAS_PYCG_MICRO")
def test_same_results_on_the_pycg_micro_benchmark():
    cases = [c for c in sorted(MICRO.glob("*/*")) if any(c.rglob("*.py"))]
    assert len(cases) >= 119
    for case in cases:
        files = {p.relative_to(case).as_posix(): p.read_bytes() for p in sorted(case.rglob("*.py"))}
        assert differences(facts_of(files)) == [], case.name


def test_make_solver_picks_the_native_one_unless_pure(monkeypatch):
    assert isinstance(make_solver([]), NativeSolver)
    monkeypatch.setenv("ATLAS_PURE", "1")
    assert isinstance(make_solver([]), Solver)


def test_malformed_facts_are_a_clear_error():
    with pytest.raises(ValueError, match="scope row"):
        NATIVE.solve(scopes=[("m", "module")], modules=[], builtins=[], pr_functions={}, by_name=[], instances=[],
                     max_rounds=4, cap=48, provenances=(1, 2, 3, 4, 5))


@pytest.mark.slow
def test_same_results_on_the_default_trees():
    os.environ.setdefault("ATLAS_MIRROR", "/work/shared/sources")
    try:
        settings = load_settings()
        manifests = load_all(settings.root)
        checkouts = [locate(m, "default", settings) for m in manifests]
    except AtlasError as exc:
        pytest.skip(f"the default pins are not synced: {exc}")
    ts = parser()
    for manifest, checkout in zip(manifests, checkouts):
        facts = []
        for path, _ in analysed_files(manifest, checkout, (".py",)):
            source = (checkout.path / path).read_bytes()
            module, is_package = module_name(path, manifest.package_root)
            facts.append(unpack(extract_packed(source, path, module, is_package, ts.parse(source)),
                                lambda sid: components.component_of(manifest.name, sid)))
        assert differences(facts, load_rules(components.rules_path(manifest.name)), max_rounds=4) == [], manifest.name
