"""`atlas graph verify RECORDING`: the share of the call edges recorded in a running engine (`atlas trace --edges`)
that the static graph of its pin holds, per kind of call and per component, and each missing edge with the reason
the graph gives (what it has at that call site), grouped by caller module. Thin body over atlas.runtime.verify."""

from __future__ import annotations

from pathlib import Path

from atlas.cli import output, verb
from atlas.errors import ConfigError
from atlas.graph import load_graph, load_index
from atlas.runtime import recording, verify
from atlas.sources import load_all


def add_verb(verbs) -> None:
    q = verb(
        verbs,
        "verify",
        "the share of call edges recorded in a running engine that the static graph holds",
        "Hold a recording of the calls a running engine made (`atlas trace --edges`) to the static graph of its pin: "
        "the share held per kind of call and component, and each missing edge with the graph's reason. Checked "
        "against the pin set the recording ran at, or --pins. Exit 1 below --min-share.",
        (
            "atlas graph verify results/edges/vllm-h200-v0.26.0.edges.json --min-share 0.9",
            "atlas graph verify trace-out --pins cpu --format json",
        ),
    )
    q.add_argument("recording", type=Path, metavar="RECORDING", help="an edges.json, or the trace folder holding it")
    q.add_argument(
        "--min-share", type=float, default=0.0, help="exit 1 when the share held is below this (0-1, e.g. 0.9)"
    )
    q.set_defaults(func=run)


def run(args, settings) -> int:
    output.require(args)
    if not 0.0 <= args.min_share <= 1.0:
        raise ConfigError(f"--min-share {args.min_share}: give a share between 0 and 1, e.g. 0.9")
    rec = recording.load(args.recording)
    pin_set = args.pin_sets[0] if args.pins_given else rec.pin_set
    (manifest,) = load_all(settings.root, [rec.framework])
    if pin_set not in manifest.pins:
        raise ConfigError(
            f"pin set {pin_set!r} is not one of {rec.framework}'s: {', '.join(manifest.pins)}; "
            "pass --pins with one of them"
        )
    index = load_index(settings, rec.framework, pin_set)
    report = verify.verify(rec, index, load_graph(settings, rec.framework, pin_set), manifest.package_root)
    doc = verify.to_json(report, args.min_share)
    doc["pin_set"], doc["graph_ref"] = pin_set, index.pin.ref
    if args.format == "json":
        output.data(doc)
    else:
        for line in human(doc):
            output.text(line)
    return 0 if doc["passed"] else 1


def human(doc: dict) -> list[str]:
    lines = [
        f"{doc['framework']} {doc['ref']} recorded, checked against the {doc['pin_set']} pins "
        f"({doc['graph_ref']}): {doc['num_held']} of {doc['num_calls']} recorded calls held, "
        f"{doc['share']:.1%} (minimum {doc['min_share']:.1%}: {'passed' if doc['passed'] else 'FAILED'})"
    ]
    lines += [f"  {n:6}  {verdict}" for verdict, n in doc["by_verdict"].items()]
    core = doc["core"]
    lines.append(
        f"core calls (both ends in a component: scheduler, KV cache, model runner, ...): {core['held']} of "
        f"{core['recorded']} held, {core['share']:.1%}"
    )
    lines.append(
        f"by kind of call (held / recorded; {doc['num_recorded']} edges recorded, those the source has no "
        f"call for not counted, nor {doc.get('num_outside', 0)} with an end in a file atlas does not "
        "analyse):"
    )
    lines += [f"  {r['held']:5} / {r['recorded']:<5} {kind}" for kind, r in doc["by_kind"].items()]
    lines.append("by caller component (held / recorded):")
    lines += [f"  {r['held']:5} / {r['recorded']:<5} {c}" for c, r in doc["by_component"].items()]
    lines.append("missing edges by kind of call and reason:")
    lines += [
        f"  {n:5}  {kind}: {reason}"
        for kind, reasons in doc["missing_by_kind"].items()
        for reason, n in reasons.items()
    ]
    lines.append(f"missing edges by caller module ({doc['num_calls'] - doc['num_held']}):")
    for module, rows in doc["misses"].items():
        lines.append(f"{module} ({len(rows)})")
        for r in rows:
            found = ", ".join(r.get("site_callees", ()))
            elsewhere = (
                "" if not found else f" -> has {found}" if r["reason"] == verify.Verdict.ELSEWHERE else f": {found}"
            )
            lines.append(
                f"  {r['site']}  {r['caller']} -> {r['callee']}  [{r['kind']}; {r['reason']}{elsewhere}]  x{r['count']}"
            )
    return lines
