"""`atlas show SYMBOL`: a symbol's place, signature, calls in source order, callers, contracts, claims with their
verdicts per pin set and evidence lines, and runtime evidence; rendered from atlas.query's SymbolView."""

from __future__ import annotations

import argparse

from atlas.cli import output, verb
from atlas.env import Settings
from atlas.graph.calls import CallRow, common_name
from atlas.query import Atlas, ContractView, RuntimeView, StatementReview, SymbolView, show, to_json


def register(sub: argparse._SubParsersAction) -> None:
    p = verb(
        sub,
        "show",
        "a symbol: place, signature, calls, callers, contracts, claims, runtime evidence",
        "Everything atlas knows of one symbol at one pin: file:line and the upstream permalink at the pinned commit, "
        "signature and component; its calls in source order (one row per call site with line, provenance and "
        "confidence; a dispatch fan-out as one row with its count); its callers; the contracts the annotations "
        "anchor there (input, reads, writes, output, allocated vs committed, invariants, cost) with each claim's "
        "verdict at every pin set and its evidence lines at this pin (with several --pins, at each of them too), each "
        "statement's review (true, false or unenforced, and the lines that decide it); what "
        "the probes and the call recordings saw of it at runtime.",
        (
            "atlas show RadixCache.match_prefix --framework sglang --pins default,latest",
            "atlas show KVCacheManager.allocate_slots --pins latest --format json",
        ),
    )
    p.add_argument("symbol", help="dotted id or a unique suffix, e.g. Scheduler.schedule (`atlas find` searches)")
    p.add_argument("--framework", help="vllm or sglang (default: whichever has the symbol)")
    p.add_argument(
        "--expand",
        action="store_true",
        help="list every target of a dispatch fan-out (one row with its count otherwise)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    output.require(args)
    view = show(Atlas(settings), args.symbol, args.framework, args.pin_sets[0], also=tuple(args.pin_sets[1:]))
    if view.note:
        output.message(f"atlas: {view.note}")
    if args.format == "json":
        output.data(to_json(view))
        return 0
    for line in render(view, args.expand):
        output.text(line)
    return 0


def render(view: SymbolView, expand: bool = False) -> list[str]:
    """The human text of a SymbolView."""
    lines = [f"{view.id}  ({view.kind}{', ' + view.component if view.component else ''})"]
    if view.signature:
        lines.append(f"  {view.signature}")
    if view.place:
        lines.append(f"  {view.place.path}:{view.place.start}-{view.place.end}  ({view.pin.framework} {view.pin.ref})")
        lines.append(f"  {view.place.permalink}")
    lines.append(f"calls ({_count(len(view.calls), 'site')}, {_count(view.num_targets, 'target')}), in source order:")
    for row in view.calls:
        lines += call_row(row, expand)
    lines.append(f"callers ({_count(view.num_callers, 'symbol')} at {_count(len(view.callers), 'site')}):")
    for row in view.callers:
        for t in row.targets:
            lines.append(f"  {t.id}  [{t.provenance} {t.confidence:.2f}]  {row.path}:{row.line}")
    for contract in view.contracts:
        lines += contract_lines(contract)
    for contract in view.elsewhere:  # the same contract text: where it lands there, and the evidence there
        where = f"{contract.path}:{contract.line}-{contract.end_line}" if contract.path else contract.problem
        lines.append(f"at {contract.pin_set}: contract {contract.annotation} at {where}")
        lines += claim_lines(contract)
    for annotation, claim, verdict in view.cited_by:
        lines.append(f"evidence for claim {annotation}#{claim}  [{verdict}]")
    if view.runtime is not None:
        lines += runtime_lines(view.runtime)
    return lines


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def call_row(row: CallRow, expand: bool) -> list[str]:
    """One call site: its line and target; a fan-out as one row with its count (`--expand` lists them)."""
    where = f"L{row.line}" if row.line else "L?"
    if not row.is_fan_out:
        t = row.targets[0]
        return [f"  {where:>7}  {t.id}  [{t.provenance} {t.confidence:.2f}]"]
    lines = [
        f"  {where:>7}  {common_name(row)}  -> {len(row.targets)} targets  "
        f"[{'/'.join(row.provenances)} {row.confidence:.2f}]" + ("" if expand else "  (--expand lists them)")
    ]
    if expand:
        lines += [f"           | {t.id}  [{t.provenance} {t.confidence:.2f}]" for t in row.targets]
    return lines


def contract_lines(c: ContractView) -> list[str]:
    """An annotation's contract and claims: every field written, each claim's verdict per pin set, evidence lines."""
    where = f"{c.path}:{c.line}-{c.end_line}" if c.path else f"does not resolve: {c.problem}"
    lines = [f"contract {c.annotation}  ({c.mechanism}, {c.role})  at {where}", f"  {c.summary}"]
    k = c.contract
    for name, value in (
        ("input", "; ".join(k.input)),
        ("reads", "; ".join(k.reads)),
        ("writes", "; ".join(k.writes)),
        ("output", k.output),
        ("consumer", k.consumer),
        ("allocated", k.allocated),
        ("committed", k.committed),
    ):
        if value:
            lines.append(f"  {name:10} {value}")
    lines += [f"  invariant  {i}" for i in k.invariants]
    lines += [f"  cost       {x.effect} {x.dimension}: {x.detail}" for x in k.cost]
    return lines + review_lines(c) + claim_lines(c)


def review_lines(c: ContractView) -> list[str]:
    """The review record's word on the contract's statements: how many are reviewed true, and each one that is
    not (false, unenforced, not reviewed, or reworded since its review) with its deciding lines."""
    if not c.reviews:
        return []
    true = sum(1 for r in c.reviews if r.verdict == "true" and not r.stale)
    lines = [f"  review     {true} of {len(c.reviews)} statements reviewed true"]
    for r in c.reviews:
        if r.verdict == "true" and not r.stale:
            continue
        state = (r.verdict or "not reviewed") + (" (stale: the statement changed since)" if r.stale else "")
        lines.append(f"    {r.field}: {state}{_deciding(r)}")
    return lines


def _deciding(r: StatementReview) -> str:
    where = ", ".join(f"{d.path}:{d.start}" + (f"-{d.end}" if d.end != d.start else "") for d in r.deciding)
    at = f" at {r.pin_set}" if r.pin_set and r.pin_set != "default" else ""
    return f"  decided by {where}{at}" if where else ""


def claim_lines(c: ContractView) -> list[str]:
    """Each claim of a contract: its verdict at every pin set, its evidence lines at the contract's pin set."""
    lines = []
    for claim in c.claims:
        verdicts = ", ".join(f"{v.pin_set} {v.verdict}" for v in claim.verdicts)
        lines.append(f"  claim {claim.id}: {claim.claim}")
        lines.append(f"    verdicts: {verdicts}")
        lines += [f"    at {v.pin_set}: {v.note}" for v in claim.verdicts if v.note and v.verdict != "holds"]
        review = c.review(f"claims.{claim.id}")
        if review is not None:
            stale = " (stale: the statement changed since)" if review.stale else ""
            lines.append(f"    reviewed: {review.verdict or 'not reviewed'}{stale}{_deciding(review)}")
        for e in claim.evidence:
            at = f"{e.path}:{e.line}" + (f"-{e.end_line}" if e.end_line != e.line else "") if e.line else e.expect
            state = "" if e.holds else f"  !! {e.problem}"
            lines.append(f"    evidence at {c.pin_set}: {at}  {e.pattern or e.symbol}{state}")
    return lines


def runtime_lines(r: RuntimeView) -> list[str]:
    if r.is_empty:
        return [f"runtime: no trace or recording of {r.pin.framework} {r.pin.ref} saw it"]
    lines = []
    for h in r.hooks:
        lines.append(
            f"runtime: probe fired {h.fired} times ({h.source}); {h.num_timed} timed, median {h.median_us} us, "
            f"max {h.max_us} us; e.g. {h.example} at {h.example_where}"
        )
    if r.called_by or r.calls:
        lines.append(f"runtime calls seen ({', '.join(r.recordings)}):")
        lines += [f"  <- {c.caller}  x{c.count}  {c.path}:{c.line}" for c in r.called_by]
        lines += [f"  -> {c.callee}  x{c.count}  {c.path}:{c.line}" for c in r.calls]
    return lines
