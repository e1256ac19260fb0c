"""The record schema of probe shards. atlas reads it (merge, Perfetto, summary); the probe writes it. Plain data,
standard library only.

A shard (`shards/<process>-<pid>.shard`, schema 3) is a sequence of frames, each a 4-byte little-endian length and a
`marshal` (format version 4) of a list of records, written by the flusher in one append per flush; a kill mid-write
leaves a torn last frame, which readers skip and count. A record is a dict (the kinds of KINDS, with "kind" and "v")
or a compact hot-path row (CALL_ROW, AGG_ROW) that atlas.runtime.merge expands, with the static fields of the
process's "hook" and "file" records, into the "call" and "agg" objects of KINDS. Schema 1 and 2 shards
(`*.jsonl`, one JSON value per line, a call as the array "c" + CALL_FIELDS) stay readable. Every dict record is
made by probes.records.record: {"kind", "v", "pid", **fields}.

The per-step and per-request series of a trace (`series.json`, atlas.runtime.series) are built by atlas from these
records, not written by the probes; the values they need are the plan hook's PLAN_STATE (probes.captures) and
vLLM's `new_blocks` and `padded_tokens`, described in docs/architecture.md ("Trace series").
"""

SCHEMA_VERSION = 3
MARSHAL_VERSION = 4  # readable by every CPython 3.4+: the engine's interpreter may be newer than atlas's
SHARD_SUFFIX = ".shard"

# A hooked call: ("c", hook index, seq, tid, mono_ns, dur_ns, step, call file, call line, values). `values` lists
# the hook record's "fields" in order, then (when the hook record has "later") a raw bundle of plain data that
# the hook's LATER values function (probes.captures.<framework>) turns into the remaining values offline.
CALL_ROW = ("c", "hook", "seq", "tid", "mono_ns", "dur_ns", "step", "file", "call_line", "values")
# The calls of an aggregated hook within one step: ("a", hook index, step, [(mono_ns, dur_ns, values), ...]).
AGG_ROW = ("a", "hook", "step", "calls")

# Schema 2 (JSON lines): a hooked call is the array "c" then these fields.
CALL_FIELDS = (
    "pid",
    "hook",
    "seq",
    "tid",
    "mono_ns",
    "dur_ns",
    "step",
    "call_path",
    "call_line",
    "call_at_pin",
    "values",
    "request_ids",
)

ROLES = ("plan", "allocate", "execute", "validate", "commit", "release")

CAPTURES = (
    "num_scheduled_tokens",
    "num_computed_tokens",
    "kv_blocks",
    "prefix_hit_tokens",
    "batch_mode",
    "batch_size",
    "preempted",
    "retracted",
    "new_token_ratio",
    "draft_tokens",
    "accepted_tokens",
    "cuda_graph",
    "request_ids",
    "gpu_time",
    "bytes",
)

# kind -> (required fields, what one record says)
KINDS = {
    "process": (
        ("pid", "proc", "framework", "commit", "engine_version", "version_at_pin", "hooks", "ts_ns", "mono_ns"),
        "one per shard, first: who wrote it, the engine version against the pin, which hooks got installed "
        "(each with at_pin: whether its file's git blob id equals the pin's)",
    ),
    "hook": (
        ("pid", "index", "symbol", "role", "path", "line", "end_line", "run_line", "at_pin"),
        "in the shard only, one per installed hook and process: the static fields compact rows leave out; "
        "schema 3 adds fields (names of the row's values), later ([capture table key, names kept] or null) "
        "and aggregate",
    ),
    "file": (
        ("pid", "file", "path", "at_pin"),
        "in the shard only (schema 3), one per call-site file and process: the running file as the "
        "repository path at the pin and whether it is byte-identical to the pin's",
    ),
    "call": (
        (
            "seq",
            "pid",
            "tid",
            "symbol",
            "role",
            "path",
            "line",
            "at_pin",
            "ts_ns",
            "mono_ns",
            "dur_ns",
            "step",
            "values",
        ),
        "one hooked call: symbol id and definition line at the pin, call site (call_path, call_line, "
        "call_at_pin), wall and monotonic start, duration, engine step, request ids, captured values",
    ),
    "agg": (
        ("pid", "symbol", "role", "step", "count", "dur_ns", "mono_ns", "values"),
        "calls of an aggregated hook within one step (hot per-request hooks): count, total duration, summed "
        "numeric values and concatenated lists; mono_ns is the first call's start, end_ns the last call's end",
    ),
    "rank": (
        ("pid", "ts_ns", "mono_ns"),
        "once per process, when the engine's parallel state exists: tp_rank/tp_size, pp_rank/pp_size, "
        "dp_rank/dp_size, world_rank/world_size (those the engine has)",
    ),
    "gpu": (("pid", "seq", "gpu_ns"), "CUDA-event time of call `seq`, resolved off the hot path"),
    "mark": (("pid", "name", "ts_ns", "mono_ns"), "a workload marker written by the driver (round begin/end, on/off)"),
    "window": (
        ("pid", "on", "begin_ns", "end_ns", "steps", "state", "own_ns"),
        "one duty-cycle window that ended (control option duty=N): whether the probe recorded in it, its monotonic "
        "span, its engine steps, the control text it ran under and the probe's own time in it",
    ),
    "samples": (
        ("pid", "mono_ns", "state", "hz", "n", "self", "incl"),
        "the sampling profiler's counts since the last flush (spec sample_hz), under the probe state they ran in: "
        "n samples, self rows [thread, file, function, line, count] and inclusive rows [thread, file, function, "
        "count]",
    ),
    "kernels": (
        ("pid", "window", "begin_ns", "end_ns", "names", "gpu", "launch"),
        "spec `kernels` (probes.kernels): one profiling window's GPU activities [name index, stream, device, start, "
        "duration, correlation] and the CUDA calls that launched them [name index, thread, start, duration, "
        "correlation], monotonic times, and what reading the window cost (cost_ns)",
    ),
    "triton": (
        ("pid", "name", "module", "qualname"),
        "spec `kernels`: once per Triton kernel the engine compiled, the @triton.jit function it came from (and "
        "its file and first line)",
    ),
    "stats": (
        ("pid", "ts_ns", "num_events", "num_dropped", "capture_errors", "disabled_hooks"),
        "written at a full flush (every interval) when anything changed: events so far, events dropped because "
        "the buffer was full, records written as JSON would write them because marshal could not take a value "
        "(converted_records, schema 3), capture errors per hook, hooks disabled after a capture raised",
    ),
}
