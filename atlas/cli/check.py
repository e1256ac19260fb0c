"""`atlas check`: validate every annotation file against the schema, resolve every symbol, statement anchor and
piece of claim evidence at the pinned commits, check the review record of every statement and the guards on the
YAML itself, and list the article's claims with their verdicts (--claims)."""

from __future__ import annotations

from collections import Counter

from atlas.annotate import AnnotationError, load_checked, review, schema_json
from atlas.annotate import check as run_check
from atlas.annotate.lint import README, role_findings
from atlas.annotate.review import ReviewError, load_reviews
from atlas.annotate.schema import PUBLISHED
from atlas.annotate.vocabulary import FRAMEWORKS, VERDICTS
from atlas.cli import output, verb
from atlas.errors import BuildMissing, ConfigError
from atlas.query import ClaimTable, claim_table, to_json
from atlas.sources import having
from atlas.yamlio import write_atomic


def register(sub) -> None:
    p = verb(
        sub,
        "check",
        "validate annotations and resolve their anchors and claims at the pinned commits",
        "Validate every annotation file against the schema, then resolve every symbol, statement anchor and piece of "
        "claim evidence at each pin set asked, check the review record of every statement (annotations/*/review/) "
        "and the guards on the YAML itself (split flow lists, roles, citations). Exit 1: an anchor or evidence item "
        "does not resolve, or a review or YAML finding; 2: a file is malformed. --claims lists each claim with its "
        "verdict and evidence lines; with several pin sets, side by side, the claims whose verdict or evidence "
        "differs first.",
        ("atlas check --pins default,cpu,latest", "atlas check vllm --claims --pins default,latest"),
        ("human", "json", "github"),
    )
    p.add_argument(
        "frameworks", nargs="*", metavar="FRAMEWORK", help=f"default: every framework ({', '.join(FRAMEWORKS)})"
    )
    p.add_argument("--claims", action="store_true", help="list the article's claims with verdicts and evidence lines")
    p.add_argument(
        "--write-schema",
        action="store_true",
        help=f"(re)write {PUBLISHED} and {review.PUBLISHED} from the loaders' schemas",
    )
    p.set_defaults(func=check)


def _with_set(settings, frameworks: list[str], pin_set: str, named: bool) -> list[str]:
    """The frameworks checked at `pin_set`: the --pins rule of every verb (atlas.sources.having) over those with a
    manifest; annotated frameworks without one are checked as they are."""
    manifests = {p.stem for p in (settings.root / "pinned_sources").glob("*.yaml")}
    if not manifests & set(frameworks):
        return frameworks
    having_set = {
        m.name for m in having(settings.root, [f for f in frameworks if f in manifests] if named else None, pin_set)
    }
    return [f for f in frameworks if f in having_set or f not in manifests]


def _index(settings, framework: str, pin_set: str):
    try:
        from atlas.graph import load_symbols
    except ImportError:
        raise BuildMissing("atlas.graph.load_symbols is not available in this install; update atlas") from None
    return load_symbols(settings, framework, pin_set)


def check(args, settings) -> int:
    output.require(args)
    if args.write_schema:
        write_atomic(settings.root / PUBLISHED, schema_json())
        write_atomic(settings.root / review.PUBLISHED, review.schema_json())
        output.message(f"wrote {PUBLISHED} and {review.PUBLISHED}")
    unknown = sorted(set(args.frameworks) - set(FRAMEWORKS))
    if unknown:
        raise ConfigError(f"unknown framework(s) {', '.join(unknown)}; choose from: {', '.join(FRAMEWORKS)}")
    try:
        annotations, lints = load_checked(settings.root, cache=settings.build / "annotations.pickle")
        reviews = load_reviews(settings.root, _known_pin_sets(settings), cache=settings.build / "reviews.pickle")
    except (AnnotationError, ReviewError) as exc:
        for problem in exc.problems:
            if args.format == "github":
                where, _, text = problem.partition(": ")
                path, _, line = where.rpartition(":")
                output.text(f"::error file={path},line={line}::{text}")
            else:
                output.message(problem)
        output.message(f"atlas check: {len(exc.problems)} problem(s) in annotation files; nothing resolved")
        return 2
    frameworks = args.frameworks or sorted({a.framework for a in annotations})
    lints = _lints(settings, annotations, lints, frameworks)
    reports = [
        run_check(annotations, _index(settings, fw, pin_set), pin_set, reviews)
        for pin_set in args.pin_sets
        for fw in _with_set(settings, frameworks, pin_set, named=bool(args.frameworks))
    ]
    by_id = {a.id: a for a in annotations}
    num_findings = len(lints) + sum(len(r.findings) for r in reports)
    if args.format == "json":
        doc = {
            "lint": [_finding_json(f) for f in lints],
            "reports": [_report_json(r, by_id, args.claims) for r in reports],
            "findings": num_findings,
        }
        if args.claims and len(args.pin_sets) > 1:
            doc["side_by_side"] = to_json(claim_table(annotations, reports))
        output.data(doc)
    else:
        for f in lints:
            _print_finding(args, f)
        if lints:
            output.message(f"annotation files: {len(lints)} finding(s) in the YAML itself")
        for report in reports:
            for f in report.findings:
                _print_finding(args, f)
            if args.claims and len(args.pin_sets) == 1:
                _print_claims(report, by_id)
        if args.claims and len(args.pin_sets) > 1:
            table = claim_table(annotations, reports)
            _print_claim_table(table)
    for report in reports:
        num = len(report.resolutions)
        ok = sum(1 for r in report.resolutions if r.is_resolved)
        ev_ok = sum(1 for e in report.evidence if e.finding is None)
        output.message(
            f"{report.pin.key} ({report.pin.ref}, pins {report.pin_set}): {ok}/{num} annotations resolve, "
            f"{ev_ok}/{len(report.evidence)} evidence items hold, {report.num_reviewed}/{report.num_statements} "
            f"statements reviewed, {len(report.findings)} finding(s)"
        )
        if args.claims:
            verdicts = Counter(c.verdict for _, c, _ in _claim_rows(report, by_id))
            output.message(
                f"{report.pin.key}: {sum(verdicts.values())} claims: "
                + ", ".join(f"{v} {verdicts[v]}" for v in VERDICTS)
            )
    return 1 if num_findings else 0


def _known_pin_sets(settings) -> set[str] | None:
    """Every pin set a manifest names (what a review row's pin_set may be); None without manifests."""
    from atlas.sources import load_all

    try:
        return {name for m in load_all(settings.root) for name in m.pins} or None
    except ConfigError:
        return None


def _lints(settings, annotations, lints, frameworks: list[str]) -> list:
    """The guards on the YAML itself for the checked frameworks: split flow lists (found by the loader) and roles
    outside annotations/README.md's role table (when the project has that README)."""
    readme = settings.root / README
    files = {a.file for a in annotations if a.framework in frameworks}
    found = [f for f in lints if f.path in files]
    if readme.is_file():
        mine = [a for a in annotations if a.framework in frameworks]
        found.extend(role_findings(mine, readme.read_text(encoding="utf-8")))
    return sorted(found, key=lambda f: (f.path, f.line))


def _print_finding(args, f) -> None:
    if args.format == "github":
        output.text(f"::error file={f.path},line={f.line}::{f.kind}: {f.message}")
    else:
        output.text(f"{f.where}: {f.kind}: {f.message}")


def _finding_json(f) -> dict:
    return {"kind": f.kind, "message": f.message, "path": f.path, "line": f.line}


def _claim_rows(report, by_id):
    evidence = {}
    for e in report.evidence:
        evidence.setdefault((e.annotation, e.claim), []).append(e)
    for r in report.resolutions:
        a = by_id[r.annotation].for_pin(report.pin_set)
        for c in a.claims:
            yield a, c, evidence.get((a.id, c.id), [])


def _print_claims(report, by_id) -> None:
    output.text(f"# claims at {report.pin.key} ({report.pin.ref})")
    for a, c, items in _claim_rows(report, by_id):
        output.text(f"{a.id}#{c.id}  [{c.verdict}]  {c.claim}")
        output.text(f"    article: {c.article}")
        for e in items:
            where = f"{e.path}:{e.line}-{e.end_line}" if e.line else ("absent" if e.evidence.is_absent else "?")
            state = f"  !! {e.finding.kind}" if e.finding else ""
            output.text(f"    evidence: {where}  {e.evidence.pattern or e.evidence.symbol}{state}")
        if c.note and report.pin_set != "default" and c.verdict_at(report.pin_set).line != c.line:
            output.text(f"    at {report.pin_set}: {c.note}")


def _report_json(report, by_id, with_claims: bool) -> dict:
    out = {
        "pin": report.pin.key,
        "pins": report.pin_set,
        "ref": report.pin.ref,
        "commit": report.pin.commit,
        "findings": [_finding_json(f) for f in report.findings],
        "annotations": [
            {
                "id": r.annotation,
                "symbol": r.symbol,
                "path": r.path,
                "line": r.line,
                "end_line": r.end_line,
                "anchor_line": r.anchor_line,
                "resolved": r.is_resolved,
            }
            for r in report.resolutions
        ],
    }
    if with_claims:
        out["claims"] = [
            {
                "annotation": a.id,
                "claim": c.id,
                "verdict": c.verdict,
                "note": c.note,
                "text": c.claim,
                "article": c.article,
                "evidence": [
                    {
                        "symbol": e.evidence.symbol,
                        "pattern": e.evidence.pattern,
                        "expect": e.evidence.expect,
                        "path": e.path,
                        "line": e.line,
                        "end_line": e.end_line,
                        "holds": e.finding is None,
                    }
                    for e in items
                ],
            }
            for a, c, items in _claim_rows(report, by_id)
        ]
    return out


def _print_claim_table(table: ClaimTable) -> None:
    """Every claim's verdict at each pin set side by side, the ones that differ first (`*`), with the evidence
    lines where they differ."""
    sets = list(dict.fromkeys(p.pin_set for p in table.pins))
    width = max([len(s) for s in sets] + [9])
    output.text(
        f"# claims at {', '.join(f'{p.framework} {p.ref} ({p.pin_set})' for p in table.pins)}: "
        f"{table.num_changed} of {len(table.rows)} differ"
    )
    output.text(f"  {'':1} " + " ".join(f"{s:{width}}" for s in sets) + "  claim")
    for row in table.rows:
        cells = {pin_set: (verdict, ok) for pin_set, verdict, ok, _ in row.at}
        shown = " ".join(f"{(cells[s][0] + ('' if cells[s][1] else '!')) if s in cells else '-':{width}}" for s in sets)
        output.text(f"  {'*' if row.is_changed else ' '} {shown}  {row.annotation}#{row.id}")
        if row.is_changed:
            output.text(f"      {row.claim}")
            for pin_set, _, _, items in row.at:
                for e in items:
                    where = f"{e.path}:{e.line}" if e.line else e.expect
                    state = "" if e.holds else f"  !! {e.problem}"
                    output.text(f"      {pin_set:{width}} {where}  {e.pattern or e.symbol}{state}")
