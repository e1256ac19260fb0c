"""Issue 22's targets: (1) the share of broken anchors and evidence items that `atlas diff --apply-suggestions` fixes
with no hand edit, per bump (default -> each other pin set), on a copy of the project's annotations as committed at
a git ref (default: the commit before the hand edits, so the share is measured from the same broken state every
time); (2) `atlas pin` to a new release on a clean checkout: diff, apply, check, index for one engine, wall time.

An item counts as fixed when, after the suggestions are written, it resolves at the new pin set and every item of
the default pin set still resolves (a suggestion that breaks the default pin fixes nothing). A fixed item is also
compared with the project's annotations as they are now (the bump's hand-reviewed result): the suggestion "agrees"
when it lands on the same file and line; else it differs (a wrong path, or code the bump judged gone); `--list`
names each item that differs or is left unfixed.

Run from the project root with ATLAS_MIRROR set (ATLAS_BUILD: another project's build folder):
    python benchmarks/bench_bump.py share [--ref REF] [--list]
    python benchmarks/bench_bump.py pin [--framework sglang --old v0.5.22 --new v0.5.23] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from atlas.annotate import check, load_annotations
from atlas.diff import apply_suggestions, diff
from atlas.env import settings as load_settings
from atlas.graph import load_symbols
from atlas.sources import load_all

ROOT = Path(__file__).resolve().parents[1]
BUMPS = [("vllm", "cpu"), ("vllm", "latest"), ("sglang", "latest")]
BASELINE_REF = "4fad65b"  # the annotations as on main before this bump (format extended, nothing moved)
# Measured with the diff of that commit (suggestions only for a drifted annotation symbol, written over `symbol:`):
# 0/132 = 0% (vLLM cpu 0/22, latest 0/28; SGLang latest 0/82): `atlas diff` proposed no anchor for any of them.


def items(report) -> dict[tuple, bool]:
    """Every anchor and evidence item of a check report -> whether it holds, keyed stably across edits."""
    return {k: line is not None for k, line in lines(report).items()}


def lines(report) -> dict[tuple, tuple[str, int] | None]:
    """Every anchor and evidence item of a check report -> (path, line) where it lands, None where it does not
    resolve; (path, 0) for an item that resolves to no line (a whole-symbol anchor's def line is kept)."""
    out = {(r.annotation,): (r.path, r.anchor_line or r.line) if r.is_resolved else None for r in report.resolutions}
    seen: dict[tuple, int] = {}
    for e in report.evidence:
        base = (e.annotation, e.claim)
        seen[base] = seen.get(base, 0) + 1
        out[(*base, seen[base])] = (e.path, e.line) if e.finding is None else None
    return out


def snapshot(root: Path, ref: str, into: Path) -> Path:
    """A project folder holding annotations/ and pinned_sources/ as committed at `ref`."""
    for folder in ("annotations", "pinned_sources"):
        archive = subprocess.run(["git", "-C", str(root), "archive", ref, folder], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def share(ref: str, listing: bool = False) -> None:
    build = os.environ.get("ATLAS_BUILD") or str(ROOT / "build")  # the graphs and symbol indexes `atlas index` made
    print(f"suggestion share: annotations as committed at {ref}; default -> each pin set")
    total_broken = total_fixed = total_agree = 0
    for framework, pin_set in BUMPS:
        with tempfile.TemporaryDirectory() as tmp:
            root = snapshot(ROOT, ref, Path(tmp))
            settings = load_settings(str(root), build=str(build))
            (manifest,) = load_all(root, [framework])
            old_index = load_symbols(settings, framework, "default")
            new_index = load_symbols(settings, framework, pin_set)
            before = items(check(load_annotations(root, framework), new_index, pin_set))
            broken = {k for k, ok in before.items() if not ok}
            start = time.perf_counter()
            report = diff(settings, manifest, "default", pin_set)
            applied = apply(root, report, pin_set)
            seconds = time.perf_counter() - start
            annotations = load_annotations(root, framework)
            landed = lines(check(annotations, new_index, pin_set))
            default_ok = all(items(check(annotations, old_index, "default")).values())
            fixed = {k for k in broken if landed.get(k)} if default_ok else set()
            final = lines(check(load_annotations(ROOT, framework), new_index, pin_set))
            agree = {k for k in fixed if landed[k] == final.get(k)}
            anchors = sum(1 for k in broken if len(k) == 1)
            print(
                f"  {framework} default -> {pin_set}: {len(broken)} broken ({anchors} anchors, "
                f"{len(broken) - anchors} evidence); {len(applied)} suggestions written; fixed {len(fixed)} "
                f"({100 * len(fixed) / max(1, len(broken)):.0f}%), {len(agree)} of them where the bump's "
                f"annotations are now; default pin still clean: {default_ok}; diff + apply {seconds:.1f} s"
            )
            rules = {b.key: b.hit.rule for b in report.broken if b.hit}
            tally = Counter(rules[k] for k in fixed if k in rules)
            print("    fixed by rule: " + ", ".join(f"{rule} {n}" for rule, n in sorted(tally.items())))
            if listing:
                for k in sorted(broken - agree):
                    state = (
                        f"differs ({rules.get(k, '?')}): {_where(landed[k])} vs now {_where(final.get(k))}"
                        if k in fixed
                        else "left"
                    )
                    print(f"    {' / '.join(map(str, k))}: {state}")
            total_broken += len(broken)
            total_fixed += len(fixed)
            total_agree += len(agree)
    print(
        f"overall: {total_fixed}/{total_broken} = {100 * total_fixed / max(1, total_broken):.0f}% fixed by "
        f"--apply-suggestions with no hand edit; {total_fixed - total_agree} of them not where the bump's "
        "annotations are now"
    )


def _where(line: tuple[str, int] | None) -> str:
    return f"{line[0]}:{line[1]}" if line else "unresolved (expect: absent, or gone)"


def apply(root: Path, report, pin_set: str) -> list:
    return apply_suggestions(root, list(report.broken), pin_set)


def pin(framework: str, old: str, new: str, runs: int, with_index: bool) -> None:
    """`atlas pin FRAMEWORK NEW --pins latest --apply-suggestions` then `atlas check` and `atlas index`, in a fresh
    clone of this project (no build folder) whose `latest` set is first pinned to OLD. The sources cache is shared
    (the pinned trees are synced once, as on any machine that has run `atlas sync`)."""
    walls = []
    for run in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            clone = Path(tmp) / "atlas"
            subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
            env_bin = Path(sys.executable).parent / "atlas"
            base = [str(env_bin), "--root", str(clone), "--build", str(clone / "build")]
            setup = (
                "import sys; from atlas.env import settings; from atlas.sources import load_all, repin; "
                "s = settings(sys.argv[1], build=sys.argv[1] + '/build'); (m,) = load_all(s.root, [sys.argv[2]]); "
                "repin(m, 'latest', sys.argv[3], s)"
            )
            subprocess.run([sys.executable, "-c", setup, str(clone), framework, old], check=True, capture_output=True)
            subprocess.run(["git", "-C", str(clone), "commit", "-qam", "bench: latest at the old release"], check=True)
            shutil.rmtree(clone / "build", ignore_errors=True)
            start = time.perf_counter()
            steps = {}
            commands = [
                ("pin (diff + apply)", ["pin", framework, new, "--pins", "latest", "--apply-suggestions"]),
                ("check", ["check", framework, "--pins", "default,latest"]),
            ]
            if with_index:
                commands.append(("index", ["index", framework, "--pins", "latest"]))
            for name, argv in commands:
                t, cpu = time.perf_counter(), _child_cpu()
                out = subprocess.run([*base, *argv], capture_output=True, text=True)
                steps[name] = (time.perf_counter() - t, out.returncode, _child_cpu() - cpu)
            walls.append(time.perf_counter() - start)
            print(
                f"  run {run + 1}: {walls[-1]:.1f} s wall, {sum(c for _, _, c in steps.values()):.1f} CPU-s  "
                + ", ".join(f"{k} {s:.1f} s wall / {c:.1f} CPU-s (exit {rc})" for k, (s, rc, c) in steps.items())
            )
    spread = f" [{min(walls):.1f}, {max(walls):.1f}]" if len(walls) > 1 else ""
    what = "diff, apply, check, index" if with_index else "diff, apply, check (no index)"
    print(
        f"atlas pin {framework} {old} -> {new}, clean checkout, {what}: "
        f"median {statistics.median(walls):.1f} s{spread} "
        f"over {len(walls)} run(s); target <= 60 s: {'met' if statistics.median(walls) <= 60 else 'not met'}"
    )


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("share")
    p.add_argument("--ref", default=BASELINE_REF)
    p.add_argument("--list", action="store_true", help="name each item left unfixed or fixed elsewhere than now")
    p = sub.add_parser("pin")
    p.add_argument("--framework", default="sglang")
    p.add_argument("--old", default="v0.5.22")
    p.add_argument("--new", default="v0.5.23")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--index", action="store_true", help="time `atlas index` of the new pin too (a full graph build)")
    args = parser.parse_args()
    if args.what == "share":
        share(args.ref, args.list)
    else:
        pin(args.framework, args.old, args.new, args.runs, args.index)


if __name__ == "__main__":
    main()
