"""Hand-written shard records of a two-request run: what the engine test produces, small enough to check by eye."""

from __future__ import annotations

import json
from pathlib import Path

MS = 1_000_000
SPEC = {
    "framework": "vllm",
    "ref": "v0.32.0",
    "commit": "b" * 40,
    "url": "https://github.com/vllm-project/vllm",
    "permalink_ref": "v0.32.0",
    "source": "builtin-default",
    "device": "cpu",
    "hooks": [
        {"symbol": f"vllm.x.{n}", "role": r, "path": "vllm/x.py", "line": i + 1}
        for i, (n, r) in enumerate(
            [
                ("Scheduler.add_request", "plan"),
                ("Scheduler.schedule", "plan"),
                ("KVCacheManager.allocate_slots", "allocate"),
                ("GPUModelRunner.execute_model", "execute"),
                ("Scheduler.update_from_output", "commit"),
            ]
        )
    ],
}


def call(seq, name, role, step, t_ms, dur_ms=1, request_ids=None, **values):
    row = {
        "kind": "call",
        "v": 1,
        "seq": seq,
        "pid": 1,
        "tid": 1,
        "symbol": f"vllm.x.{name}",
        "role": role,
        "path": "vllm/x.py",
        "line": 1,
        "at_pin": True,
        "ts_ns": t_ms * MS,
        "mono_ns": t_ms * MS,
        "dur_ns": dur_ms * MS,
        "step": step,
        "values": values,
    }
    if request_ids is not None:
        row["request_ids"] = request_ids
    return row


def records() -> list[dict]:
    rows = [
        {
            "kind": "process",
            "v": 1,
            "pid": 1,
            "proc": "EngineCore",
            "framework": "vllm",
            "commit": "b" * 40,
            "engine_version": "0.32.0",
            "version_at_pin": True,
            "hooks": [],
            "ts_ns": 0,
            "mono_ns": 0,
        },
        call(1, "Scheduler.add_request", "plan", 0, 0, request_ids=["a"]),
        call(2, "Scheduler.add_request", "plan", 0, 1, request_ids=["b"]),
    ]
    seq = 3
    for step in (1, 2, 3):
        t = 10 * step
        mode = "EXTEND" if step == 1 else "DECODE"
        rows.append(
            call(
                seq,
                "Scheduler.schedule",
                "plan",
                step,
                t,
                request_ids=["a", "b"],
                batch_mode=mode,
                batch_size=2,
                num_scheduled_tokens={"a": 8 if step == 1 else 1, "b": 8 if step == 1 else 1},
                preempted=[],
            )
        )
        rows.append(call(seq + 1, "GPUModelRunner.execute_model", "execute", step, t + 2, dur_ms=5))
        rows.append(call(seq + 2, "Scheduler.update_from_output", "commit", step, t + 8, new_tokens={"a": 1, "b": 1}))
        rows.append(
            {
                "kind": "agg",
                "v": 1,
                "pid": 1,
                "tid": 1,
                "symbol": "vllm.x.KVCacheManager.allocate_slots",
                "role": "allocate",
                "path": "vllm/x.py",
                "line": 3,
                "at_pin": True,
                "step": step,
                "count": 2,
                "dur_ns": 2000,
                "ts_ns": (t + 1) * MS,
                "mono_ns": (t + 1) * MS,
                "end_ns": (t + 1) * MS + 2000,
                "values": {"kv_blocks": 2 if step == 1 else 0},
            }
        )
        seq += 3
    rows.append(
        {
            "kind": "stats",
            "v": 1,
            "pid": 1,
            "ts_ns": 99,
            "num_events": len(rows),
            "num_dropped": 0,
            "capture_errors": {},
            "disabled_hooks": [],
            "hooks": {h["symbol"]: {"installed": True, "at_pin": True, "run_line": h["line"]} for h in SPEC["hooks"]},
        }
    )
    return rows


def write(folder: Path, torn: bool = False) -> Path:
    shards = folder / "shards"
    shards.mkdir(parents=True, exist_ok=True)
    text = "\n".join(json.dumps(r) for r in records()) + "\n"
    if torn:
        text += '{"kind": "call", "seq": 99, "pid'  # a kill mid-write
    (shards / "EngineCore-1.jsonl").write_text(text)
    return shards
