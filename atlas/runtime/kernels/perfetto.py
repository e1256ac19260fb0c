"""The kernels of a trace in Perfetto: per process and CUDA stream a "GPU kernels" track, on it a slice per engine
step spanning that step's kernels with the kernel slices under it, each carrying its static id (or library) and
its source line at the pin; a flow from the step's execute call to its kernels."""

from __future__ import annotations

from collections import defaultdict

from atlas.runtime.kernels.steps import Kernel

GPU_TID = 1_000_000  # thread ids of the kernel tracks: this plus the stream (no engine thread id is that small)


def kernel_events(kernels: list[Kernel], events: list[dict], spec: dict, origin_ns: int) -> list[dict]:
    """Chrome/Perfetto events for the kernels, times relative to `origin_ns` (the trace's own origin)."""
    base = f"{spec.get('url', '').rstrip('/')}/blob/{spec.get('permalink_ref', '')}/"

    def us(ns: int) -> float:
        return round((ns - origin_ns) / 1000.0, 3)

    executes = {(e["pid"], e["step"]): e for e in events if e["role"] == "execute" and e.get("kind") == "call"}
    out: list[dict] = []
    for pid, stream in sorted({(k.pid, k.stream) for k in kernels}):
        out.append(
            {
                "ph": "M",
                "name": "thread_name",
                "pid": pid,
                "tid": GPU_TID + stream,
                "args": {"name": f"GPU kernels, stream {stream}"},
            }
        )
    groups: dict[tuple[int, int, int], list[Kernel]] = defaultdict(list)
    for k in kernels:
        groups[(k.pid, k.stream, k.step)].append(k)
    flows = 0
    for (pid, stream, step), group in sorted(groups.items()):
        group.sort(key=lambda k: k.start_ns)
        tid = GPU_TID + stream
        begin, end = group[0].start_ns, max(k.start_ns + k.dur_ns for k in group)
        out.append(
            {
                "ph": "X",
                "name": f"step {step}" if step >= 0 else "outside steps",
                "cat": "gpu step",
                "pid": pid,
                "tid": tid,
                "ts": us(begin),
                "dur": max(round((end - begin) / 1000.0, 3), 0.001),
                "args": {"step": step, "kernels": len(group), "gpu_ms": round(sum(k.dur_ns for k in group) / 1e6, 4)},
            }
        )
        for k in group:
            m = k.match
            out.append(
                {
                    "ph": "X",
                    "name": m.qualname.rsplit("::", 1)[-1] or k.name,
                    "cat": "kernel",
                    "pid": pid,
                    "tid": tid,
                    "ts": us(k.start_ns),
                    "dur": max(round(k.dur_ns / 1000.0, 3), 0.001),
                    "args": {
                        "kernel": k.name,
                        "static_id": m.static_id,
                        "library": m.library,
                        "origin": m.origin.value,
                        "how": m.how,
                        "source": f"{base}{m.path}#L{m.line}" if m.path else "",
                        "step": step,
                        **({"graph": k.graph, "node": k.node} if k.graph else {}),
                    },
                }
            )
        execute = executes.get((pid, step))
        if execute is not None:
            flows += 1
            ident = f"kernels-{pid}-{step}-{stream}"
            common = {"name": "launch", "cat": "kernels", "id": ident, "pid": pid}
            out.append({**common, "ph": "s", "tid": execute.get("tid", pid), "ts": us(execute["mono_ns"])})
            out.append({**common, "ph": "f", "bp": "e", "tid": tid, "ts": us(begin)})
    return out
