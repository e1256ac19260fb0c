"""The precision record: sampled edges and `graph path` answers, each judged by reading the source, as rows that
survive a rebuild of the graph (a row still in the graph keeps its verdict; only new rows come in unjudged).

Rows are plain frozen dataclasses; `to_data`/`from_data` give the YAML-shaped form the record is committed in
(results/precision/); `merge_*` join a fresh draw with the judged record."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import Enum


class EdgeVerdict(str, Enum):
    """Whether some execution makes the call site reach the callee; the value is what the record says."""

    CAN = "can"
    CANNOT = "cannot"


class PathVerdict(str, Enum):
    """Whether some execution takes every hop of a path, in that order."""

    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"


class ErrorClass(str, Enum):
    """Why an edge (or a path's first bad hop) cannot happen: a closed vocabulary, the value is its record key."""

    RECEIVER_TOO_WIDE = "receiver-too-wide"  # a class (or value) the receiver never holds at that site
    OVERRIDE_IGNORED = "override-ignored"  # every class reaching the call overrides the callee; super() misrouted;
    #                                        an abstract method taken as a target
    MODULE_CALL_UNRELATED = "module-call-unrelated"  # calling an instance (`self.model(x)`) sent to an unrelated
    #                                                  class's method or constructor
    NARROWING_IGNORED = "narrowing-ignored"  # an isinstance / assert / type(x) is check rules the callee out
    SHARED_CONTEXT = "shared-context"  # a shared helper or decorator wrapper continues into another caller's callee
    VALUE_RULES_OUT = "value-rules-out"  # an argument's value or the configuration rules the branch out
    NOT_CALLED = "not-called"  # the callee is named at the site but not called there (compared, passed, stored)
    WRONG_BINDING = "wrong-binding"  # the name at the site is bound to another definition (a shadowing import, a
    #                                  local def, another module's function of that name)
    GETATTR_FALLBACK = "getattr-fallback"  # a class's __getattr__ taken as called for an attribute the object has
    OTHER = "other"

    @property
    def wording(self) -> str:
        return ERROR_WORDING[self]


ERROR_WORDING = {
    ErrorClass.RECEIVER_TOO_WIDE: "receiver type too wide",
    ErrorClass.OVERRIDE_IGNORED: "override ignored (base method, super(), abstract)",
    ErrorClass.MODULE_CALL_UNRELATED: "module instance call sent to an unrelated class",
    ErrorClass.NARROWING_IGNORED: "isinstance/assert ignored",
    ErrorClass.SHARED_CONTEXT: "shared helper or wrapper losing its context",
    ErrorClass.VALUE_RULES_OUT: "argument value or configuration rules it out",
    ErrorClass.NOT_CALLED: "named, not called (compared, passed, stored)",
    ErrorClass.WRONG_BINDING: "name bound to another definition",
    ErrorClass.GETATTR_FALLBACK: "__getattr__ taken for an attribute the object has",
    ErrorClass.OTHER: "other",
}


@dataclass(frozen=True, slots=True)
class EdgeRow:
    """One sampled edge: caller -> callee at `path:line`, as the graph has it, and its verdict ("" unjudged)."""

    framework: str
    commit: str  # the pin's commit, 12 hex digits
    caller: str
    callee: str
    path: str
    line: int
    provenance: str
    confidence: float
    component: str  # the caller's ("" none)
    verdict: str = ""  # EdgeVerdict value, "" unjudged
    error: str = ""  # ErrorClass value for "cannot"
    reason: str = ""  # one line naming the lines that decide it
    current: bool = True  # the edge is in the graph the record was last drawn from

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (self.framework, self.caller, self.callee, self.line)

    @property
    def stratum(self) -> tuple[str, str]:
        return (self.provenance, self.component or NO_COMPONENT)


@dataclass(frozen=True, slots=True)
class Hop:
    caller: str
    callee: str
    path: str
    line: int
    provenance: str


@dataclass(frozen=True, slots=True)
class PathRow:
    """One `graph path` answer: the question (source, target, its stratum) and the hops atlas returned."""

    framework: str
    commit: str
    stratum: str  # what kind of target: "kernel", or the target's component
    source: str
    target: str
    hops: tuple[Hop, ...]
    verdict: str = ""  # PathVerdict value, "" unjudged
    bad_hop: str = ""  # the first hop no execution takes ("3"), or two that cannot follow one another ("3-4")
    error: str = ""  # ErrorClass value of that hop
    reason: str = ""
    current: bool = True  # atlas gives this answer to a question the record was last drawn with

    @property
    def key(self) -> tuple[str, tuple[str, ...]]:
        return (self.framework, (self.source, *(h.callee for h in self.hops)))


NO_COMPONENT = "(none)"


def problems(rows: Iterable[EdgeRow | PathRow]) -> list[str]:
    """What is wrong with the judged rows: an unknown verdict or error class, a "cannot" without its class, a
    verdict without a reason; one line each."""
    out = []
    allowed = {e.value for e in ErrorClass}
    for r in rows:
        where = (
            f"{r.framework} {r.caller} -> {r.callee}:{r.line}"
            if isinstance(r, EdgeRow)
            else (f"{r.framework} path {r.source} -> {r.target}")
        )
        verdicts = EdgeVerdict if isinstance(r, EdgeRow) else PathVerdict
        if r.verdict and r.verdict not in {v.value for v in verdicts}:
            out.append(f"{where}: verdict {r.verdict!r} is not one of {', '.join(v.value for v in verdicts)}")
        bad = r.verdict in (EdgeVerdict.CANNOT.value, PathVerdict.INFEASIBLE.value)
        if bad and r.error not in allowed:
            out.append(f"{where}: error {r.error!r} is not one of {', '.join(sorted(allowed))}")
        if not bad and r.error:
            out.append(f"{where}: an error class on a {r.verdict or 'unjudged'} row")
        if r.verdict and not r.reason:
            out.append(f"{where}: a verdict without a reason")
    return out


# -- merging a fresh draw with the judged record ---------------------------------------------------------------------


def merge_edges(drawn: list[EdgeRow], record: list[EdgeRow], present: dict[tuple, EdgeRow]) -> list[EdgeRow]:
    """The record after a new draw: every drawn row (with its verdict when the record judged the same edge), and
    every judged row not drawn again, refreshed from the graph when it is still there (`present`: key -> the
    graph's row) and marked not current when it is gone. Unjudged rows not drawn again are dropped."""
    judged = {r.key: r for r in record if r.verdict}
    out: dict[tuple, EdgeRow] = {}
    for r in drawn:
        old = judged.get(r.key)
        out[r.key] = replace(r, verdict=old.verdict, error=old.error, reason=old.reason) if old else r
    for key, old in judged.items():
        if key in out:
            continue
        now = present.get(key)
        out[key] = (
            replace(now, verdict=old.verdict, error=old.error, reason=old.reason)
            if now is not None
            else replace(old, current=False)
        )
    return sorted(out.values(), key=edge_order)


def merge_paths(drawn: list[PathRow], record: list[PathRow]) -> list[PathRow]:
    """The path record after a new draw: each drawn answer keeps the verdict of the same hop list; judged answers
    atlas no longer gives stay, marked not current."""
    judged = {r.key: r for r in record if r.verdict}
    out: dict[tuple, PathRow] = {}
    for r in drawn:
        old = judged.get(r.key)
        out[r.key] = (
            replace(r, verdict=old.verdict, bad_hop=old.bad_hop, error=old.error, reason=old.reason) if old else r
        )
    for key, old in judged.items():
        if key not in out:
            out[key] = replace(old, current=False)
    return sorted(out.values(), key=path_order)


def edge_order(r: EdgeRow) -> tuple:
    return (r.framework, not r.current, r.provenance, r.component, r.caller, r.callee, r.line)


def path_order(r: PathRow) -> tuple:
    return (r.framework, not r.current, r.stratum, r.source, r.target, r.key)


# -- the committed form ----------------------------------------------------------------------------------------------


def edge_to_data(r: EdgeRow) -> dict:
    return {
        "framework": r.framework,
        "commit": r.commit,
        "caller": r.caller,
        "callee": r.callee,
        "site": f"{r.path}:{r.line}",
        "provenance": r.provenance,
        "confidence": round(r.confidence, 3),
        "component": r.component,
        "verdict": r.verdict,
        "error": r.error,
        "reason": r.reason,
        "current": r.current,
    }


def edge_from_data(d: dict) -> EdgeRow:
    path, _, line = str(d["site"]).rpartition(":")
    return EdgeRow(
        str(d["framework"]),
        str(d["commit"]),
        str(d["caller"]),
        str(d["callee"]),
        path,
        int(line),
        str(d["provenance"]),
        float(d["confidence"]),
        str(d.get("component") or ""),
        str(d.get("verdict") or ""),
        str(d.get("error") or ""),
        str(d.get("reason") or ""),
        bool(d.get("current", True)),
    )


def path_to_data(r: PathRow) -> dict:
    return {
        "framework": r.framework,
        "commit": r.commit,
        "stratum": r.stratum,
        "source": r.source,
        "target": r.target,
        "hops": [
            {"caller": h.caller, "callee": h.callee, "site": f"{h.path}:{h.line}", "provenance": h.provenance}
            for h in r.hops
        ],
        "verdict": r.verdict,
        "bad_hop": r.bad_hop,
        "error": r.error,
        "reason": r.reason,
        "current": r.current,
    }


def path_from_data(d: dict) -> PathRow:
    hops = []
    for h in d["hops"]:
        path, _, line = str(h["site"]).rpartition(":")
        hops.append(Hop(str(h["caller"]), str(h["callee"]), path, int(line), str(h["provenance"])))
    return PathRow(
        str(d["framework"]),
        str(d["commit"]),
        str(d["stratum"]),
        str(d["source"]),
        str(d["target"]),
        tuple(hops),
        str(d.get("verdict") or ""),
        str(d.get("bad_hop") or ""),
        str(d.get("error") or ""),
        str(d.get("reason") or ""),
        bool(d.get("current", True)),
    )
