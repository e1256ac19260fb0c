"""A runtime proxy of the graph's precision: at the call sites a recording (atlas.runtime.recording) executed many
times and always into one function, how many targets the static graph gives. A site that ran one callee a thousand
times and has twelve in the graph is likely imprecise; one with exactly one is likely right. Pure; read beside the
judged sample (atlas.graph.precision), which it does not replace: a line can hold several calls, and a branch the
run did not take can hold a target that is right."""

from __future__ import annotations

from dataclasses import dataclass

from atlas.runtime.verify import Report, StaticEdges, Verdict, repo_path

MIN_CALLS = 20  # a site counts when the recording saw at least this many calls there


@dataclass(frozen=True, slots=True)
class SiteFanout:
    """One call site (repository path, line) the recording ran `calls` times, always into `callee`; `static`: the
    graph's targets at that line that are symbols of the tree (what a recording of the tree's calls could see)."""

    path: str
    line: int
    callee: str
    calls: int
    static: tuple[str, ...]

    @property
    def num_static(self) -> int:
        return len(self.static)


def site_fanouts(
    report: Report, static: StaticEdges, symbols: set[str] | dict, package_root: str, min_calls: int = MIN_CALLS
) -> list[SiteFanout]:
    """The sites of `report`'s recording with `min_calls` or more calls the source has a call for, all into one
    callee the index knows, with the graph's in-tree targets there; sorted by path and line."""
    calls: dict[tuple[str, int], int] = {}
    callees: dict[tuple[str, int], set[str]] = {}
    for c in report.checks:
        if not c.kind.is_call or c.verdict is Verdict.OUTSIDE:
            continue
        site = (repo_path(c.edge.caller_path, package_root), c.edge.line)
        calls[site] = calls.get(site, 0) + c.edge.count
        callees.setdefault(site, set()).add(c.callee or f"?{c.edge.callee_path}:{c.edge.callee}")
    out = []
    for site, n in sorted(calls.items()):
        (callee,) = callees[site] if len(callees[site]) == 1 else ("",)
        if n < min_calls or not callee or callee.startswith("?"):
            continue
        targets = tuple(sorted(t for t in static.sites.get(site, ()) if t in symbols))
        out.append(SiteFanout(site[0], site[1], callee, n, targets))
    return out


def histogram(sites: list[SiteFanout], top: int = 10) -> dict[str, int]:
    """Static targets -> sites with that many ("0", "1", ... and f"{top}+" for `top` or more), in order."""
    counts: dict[int, int] = {}
    for s in sites:
        k = min(s.num_static, top)
        counts[k] = counts.get(k, 0) + 1
    return {(f"{k}+" if k == top else str(k)): counts[k] for k in sorted(counts)}
