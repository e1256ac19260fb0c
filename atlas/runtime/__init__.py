"""Runtime: probe specs, engine launch under the probes, built-in workloads, shard merge, Perfetto trace, summary.
Sits above annotate (hooks come from annotations) and below render and cli."""

from atlas.runtime.spec import build_spec, write_spec
from atlas.runtime.trace import TraceOptions, collect, run_trace

__all__ = ["TraceOptions", "build_spec", "collect", "run_trace", "write_spec"]
