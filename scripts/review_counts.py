"""Print the review record's counts, per engine: statements per field kind and verdict at the default pins, how
many have a review row (coverage), the rows at other pin sets, and what the review found before fixing (a row whose
note opens with 'Fixed (was false)' or 'Fixed (was unenforced)'; 'Added' marks a statement the review added).

    .venv/bin/python scripts/review_counts.py [--root .] [--format text|json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

from atlas.annotate import load_annotations, load_reviews, statements
from atlas.annotate.review import VERDICTS
from atlas.annotate.statements import DEFAULT, KINDS

_BEFORE = re.compile(r"^Fixed \(was (false|unenforced)\)")


def counts(root: Path) -> dict:
    """{framework: {kinds: {kind: {verdict: n, 'unreviewed': n}}, before: {kind: {verdict: n}}, ...}}."""
    annotations = load_annotations(root)
    rows = load_reviews(root).by_key()
    out: dict = {}
    for framework in sorted({a.framework for a in annotations}):
        kinds: dict[str, Counter] = {k: Counter() for k in KINDS}
        before: dict[str, Counter] = {k: Counter() for k in KINDS}
        other = Counter()
        for a in annotations:
            if a.framework != framework:
                continue
            for s in statements(a):
                row = rows.get(s.key)
                verdict = "unreviewed" if row is None else row.verdict
                if s.pin_set != DEFAULT:
                    other[verdict] += 1
                    continue
                kinds[s.kind][verdict] += 1
                if row is None or row.note.startswith("Added"):
                    continue
                found = _BEFORE.match(row.note)
                before[s.kind][found.group(1) if found else row.verdict] += 1
        total = sum(sum(c.values()) for c in kinds.values())
        reviewed = total - sum(c["unreviewed"] for c in kinds.values())
        out[framework] = {
            "statements": total,
            "reviewed": reviewed,
            "coverage": round(100 * reviewed / total, 1) if total else 0.0,
            "kinds": {k: dict(c) for k, c in kinds.items() if c},
            "before": {k: dict(c) for k, c in before.items() if c},
            "other_pin_sets": dict(other),
        }
    return out


def _table(title: str, kinds: dict, columns: tuple[str, ...]) -> list[str]:
    lines = [title, f"  {'field':<12}" + "".join(f"{c:>12}" for c in (*columns, "total"))]
    totals = Counter()
    for kind, c in kinds.items():
        totals.update(c)
        lines.append(f"  {kind:<12}" + "".join(f"{c.get(v, 0):>12}" for v in columns) + f"{sum(c.values()):>12}")
    lines.append(f"  {'all':<12}" + "".join(f"{totals.get(v, 0):>12}" for v in columns) + f"{sum(totals.values()):>12}")
    return lines


def render(data: dict) -> str:
    lines = []
    for framework, d in data.items():
        lines.append(
            f"{framework}: {d['statements']} statements at the default pins, {d['reviewed']} reviewed "
            f"({d['coverage']}%); other pin sets: {d['other_pin_sets'] or 'none'}"
        )
        lines += _table("  after the review (the record):", d["kinds"], (*VERDICTS, "unreviewed"))
        lines += _table("  found before fixing:", d["before"], VERDICTS)
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    data = counts(Path(args.root))
    sys.stdout.write(
        json.dumps(data, indent=2, sort_keys=True) + "\n" if args.format == "json" else render(data) + "\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
