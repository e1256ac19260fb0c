"""A small engine for render tests, built in tmp_path: a package whose docstrings hold <script>, its symbols, a
call graph with components and provenance, and one annotation; no pinned tree needed."""

from __future__ import annotations

from pathlib import Path

import networkx as nx

from atlas.annotate.model import Anchor, Annotation, Claim, Contract
from atlas.env import Settings
from atlas.model import Pin, Provenance, Span, Symbol, SymbolKind
from atlas.render import Anchored, EngineData, SiteData
from atlas.render.memo import digest

ROOT = Path(__file__).resolve().parents[2]
PIN = Pin("vllm", "v9.9.9", "a" * 40, "https://github.com/example/engine", "abc1234")

SOURCE = '''"""Scheduler of the fixture engine. <script>alert("module")</script>"""


class KVCacheManager:
    """Hands out KV blocks. <script>document.title = "pwned"</script> <img src=x onerror=alert(1)>"""

    def allocate_slots(self, request, num_new_tokens):
        """Reserve slots | for *new* tokens <b>bold</b> [link](http://evil.example) `tick`."""
        blocks = self.pool.get_new_blocks(num_new_tokens)
        return blocks

    def free(self, request):
        self.pool.free_blocks(request)


class Scheduler:
    def schedule(self):
        """Plan one step: </code></td></tr></table><script>alert(2)</script>"""
        return self.kv_cache_manager.allocate_slots(None, 1)
'''

POOL = (
    """class BlockPool:
    def get_new_blocks(self, n):
        return list(range(n))

    def free_blocks(self, blocks):
        return None
"""
    + "".join(f"# filler line {n}: the number column must fit four digits\n" for n in range(7, 1001))
    + '''
def evict(pool, num_blocks):
    """Frees the least recently used blocks."""  # a long line: '''
    + "x" * 150
    + """
    return pool.free_blocks(list(range(num_blocks)))

from vllm.core.sched import KVCacheManager
"""
)


def make_engine(tmp_path: Path, num_extra: int = 0) -> EngineData:
    checkout = tmp_path / "engine"
    (checkout / "vllm" / "core").mkdir(parents=True)
    (checkout / "vllm" / "core" / "sched.py").write_text(SOURCE)
    (checkout / "vllm" / "core" / "pool.py").write_text(POOL)
    rows = [
        ("vllm.core.sched", SymbolKind.MODULE, "vllm/core/sched.py", 1, 19, "", ""),
        ("vllm.core.sched.KVCacheManager", SymbolKind.CLASS, "vllm/core/sched.py", 4, 13, "", "kv_cache"),
        (
            "vllm.core.sched.KVCacheManager.allocate_slots",
            SymbolKind.METHOD,
            "vllm/core/sched.py",
            7,
            10,
            "(self, request, num_new_tokens) -> <script>x</script>",
            "kv_cache",
        ),
        (
            "vllm.core.sched.KVCacheManager.free",
            SymbolKind.METHOD,
            "vllm/core/sched.py",
            12,
            13,
            "(self, request)",
            "kv_cache",
        ),
        ("vllm.core.sched.Scheduler", SymbolKind.CLASS, "vllm/core/sched.py", 16, 19, "", "scheduler"),
        ("vllm.core.sched.Scheduler.schedule", SymbolKind.METHOD, "vllm/core/sched.py", 17, 19, "(self)", "scheduler"),
        ("vllm.core.pool.BlockPool", SymbolKind.CLASS, "vllm/core/pool.py", 1, 6, "", "kv_cache"),
        (
            "vllm.core.pool.BlockPool.get_new_blocks",
            SymbolKind.METHOD,
            "vllm/core/pool.py",
            2,
            3,
            "(self, n)",
            "kv_cache",
        ),
        ("vllm.core.pool.BlockPool.free_blocks", SymbolKind.METHOD, "vllm/core/pool.py", 5, 6, "(self, blocks)", ""),
        (
            "vllm.core.pool.evict",
            SymbolKind.FUNCTION,
            "vllm/core/pool.py",
            1002,
            1004,
            "(pool, num_blocks)",
            "scheduler",
        ),
    ]
    symbols = {
        sid: Symbol(sid, kind, Span(path, start, end), signature, component=component)
        for sid, kind, path, start, end, signature, component in rows
    }
    graph = nx.MultiDiGraph()
    for s in symbols.values():
        graph.add_node(
            s.id,
            kind=s.kind.value,
            path=s.span.path,
            start=s.span.start,
            end=s.span.end,
            signature=s.signature,
            component=s.component,
        )
    graph.add_node("op:_C::reshape_and_cache", kind="op", path="", start=0, end=0, signature="", component="kernels")
    for caller, callee, provenance, confidence, line in [
        (
            "vllm.core.sched.Scheduler.schedule",
            "vllm.core.sched.KVCacheManager.allocate_slots",
            Provenance.TYPE_INFERRED,
            0.9,
            19,
        ),
        (
            "vllm.core.sched.KVCacheManager.allocate_slots",
            "vllm.core.pool.BlockPool.get_new_blocks",
            Provenance.TYPE_INFERRED,
            0.8,
            9,
        ),
        ("vllm.core.sched.KVCacheManager.free", "vllm.core.pool.BlockPool.free_blocks", Provenance.STATIC, 1.0, 13),
        ("vllm.core.pool.BlockPool.get_new_blocks", "op:_C::reshape_and_cache", Provenance.REGISTRATION, 0.5, 3),
        ("vllm.core.pool.evict", "vllm.core.pool.BlockPool.free_blocks", Provenance.TYPE_INFERRED, 0.9, 1004),
    ]:
        graph.add_edge(
            caller,
            callee,
            provenance=provenance,
            confidence=confidence,
            site=Span(symbols[caller].span.path, line, line),
        )
    for n in range(num_extra):  # a bigger component for the browser's timing test
        sid = f"vllm.core.pool.BlockPool.helper_{n}"
        graph.add_node(sid, kind="method", path="vllm/core/pool.py", start=2, end=3, signature="", component="kv_cache")
        graph.add_edge(sid, "vllm.core.pool.BlockPool.get_new_blocks", provenance=Provenance.STATIC, confidence=1.0)
        if n:
            graph.add_edge(
                sid, f"vllm.core.pool.BlockPool.helper_{n - 1}", provenance=Provenance.STATIC, confidence=1.0
            )
    annotation = Annotation(
        id="vllm.prefix_cache.allocate-slots",
        framework="vllm",
        mechanism="prefix-cache",
        symbol="vllm.core.sched.KVCacheManager.allocate_slots",
        role="allocate",
        summary="Reserves KV slots <script>alert(3)</script> for new tokens.",
        anchor=Anchor("blocks = self.pool.get_new_blocks(...)"),
        contract=Contract(input=("request", "num_new_tokens"), output="blocks | None", consumer="Scheduler"),
        claims=(Claim("c1", "s3", "Blocks come from the free pool <b>only</b>.", "holds", ()),),
        capture=("kv_blocks",),
        file="annotations/vllm/fixture.yaml",
        line=3,
    )
    anchored = (Anchored(annotation, Span("vllm/core/sched.py", 7, 10)),)
    fingerprint = digest(PIN, SOURCE, POOL, rows, num_extra)  # what the symbols, graph and sources are made from
    return EngineData("vllm", PIN, "default", checkout, "", symbols, graph, anchored, fingerprint=fingerprint)


def settings_for(tmp_path: Path) -> Settings:
    return Settings(root=ROOT, cache=tmp_path / "cache", mirror=None, build=tmp_path / "build")


def site_for(tmp_path: Path, num_extra: int = 0) -> SiteData:
    return SiteData((make_engine(tmp_path, num_extra),))
