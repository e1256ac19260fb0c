"""Call lists in source order: one row per call site, a dispatch fan-out collapsed with its count."""

from atlas.graph.calls import call_rows, common_name
from atlas.model import Provenance, Span


def edge(line, provenance="static", confidence=1.0, path="sched.py"):
    return {"provenance": provenance, "confidence": confidence, "path": path, "line": line}


def test_rows_follow_source_order_and_fan_out_collapses():
    edges = [
        ("kv.KVCacheManager.allocate_slots", edge(40, "type-inferred", 0.9)),
        ("conn.A.build_connector_meta", edge(12, "dispatch", 0.5)),
        ("conn.B.build_connector_meta", edge(12, "dispatch", 0.5)),
        ("conn.Base.build_connector_meta", edge(12, "type-inferred", 0.9)),
        ("sched.Scheduler._update", edge(7)),
        ("sched.Scheduler._update", edge(7)),  # the same edge twice is one target
        ("ext.log", edge(0, "name-match", 0.3)),
    ]
    rows = call_rows(edges)
    assert [(r.line, len(r.targets)) for r in rows] == [(7, 1), (12, 3), (40, 1), (0, 1)]
    fan = rows[1]
    assert fan.is_fan_out and common_name(fan) == "build_connector_meta"
    assert fan.targets[0].id == "conn.Base.build_connector_meta"  # the most confident first
    assert fan.provenances == ("dispatch", "type-inferred") and fan.confidence == 0.9


def test_site_spans_and_enum_provenance():
    rows = call_rows([("b", {"provenance": Provenance.STATIC, "confidence": 1.0, "site": Span("a.py", 9, 9)})])
    assert rows[0].line == 9 and rows[0].path == "a.py" and rows[0].targets[0].provenance == "static"


def test_show_prints_a_fan_out_as_one_row_unless_expanded(capsys):
    from atlas.cli.show import call_row

    (row,) = call_rows([(f"conn.C{n}.build_connector_meta", edge(12, "dispatch", 0.5)) for n in range(14)])
    lines = call_row(row, expand=False)
    assert lines == ["      L12  build_connector_meta  -> 14 targets  [dispatch 0.50]  (--expand lists them)"]
    lines = call_row(row, expand=True)
    assert len(lines) == 15 and lines[1].strip() == "| conn.C0.build_connector_meta  [dispatch 0.50]"
