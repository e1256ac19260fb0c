"""Stress (issue 20): N concurrent atlas processes against one cache and one build folder, with random kills
(SIGINT, SIGTERM, SIGKILL, to the parent or its group) in between, for a bounded time. After each round every
process has ended and the state is checked: a plain `atlas sync`, `atlas index`, `atlas show` and the last site must
work with no repair. Prints how many runs succeeded, refused cleanly (exit 2, one line), were killed, or broke
(a traceback, another exit code, a multi-line error), and how many rounds left broken state. Target: 0 broken.

    python benchmarks/stress.py [--minutes 10] [--procs 3] [--seed 1]   (from the project root)"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "faults")]

from project import make_project  # noqa: E402

VERBS = [
    ("sync", "--pins", "default,latest"),
    ("sync", "--repair", "vllm"),
    ("index",),
    ("index", "--force"),
    ("index", "--force", "sglang"),
    ("show", "Scheduler.schedule", "--framework", "vllm"),
    ("check",),
    ("build", "--no-check"),
    ("graph", "export", "sglang", "--format", "json"),
    ("graph", "callers", "BlockPool.get_new_blocks", "--depth", "2", "--framework", "sglang"),
]
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)


def classify(code: int, err: str, killed: bool) -> str:
    if "Traceback" in err:
        return "broken"
    if killed and code in (-signal.SIGKILL, 128 + signal.SIGKILL, 130, 143, -signal.SIGTERM, -signal.SIGINT):
        return "killed"
    if code in (0, 1):
        return "succeeded"
    if code == 2:
        lines = [line for line in err.strip().splitlines() if "waiting for another atlas process" not in line]
        return "refused" if len(lines) == 1 else "broken"
    return "killed" if killed else "broken"


def healthy(project, has_site: bool) -> str:
    """'' when a plain re-run recovers everything; else what failed."""
    for args in (
        ("sync", "--pins", "default,latest"),
        ("index",),
        ("show", "Scheduler.schedule", "--framework", "vllm"),
    ):
        done = project.atlas(*args, env={"ATLAS_LOCK_WAIT": "600"})
        if done.returncode != 0 or "Traceback" in done.stderr:
            return f"`atlas {' '.join(args)}` exit {done.returncode}: {done.stderr.strip()[-300:]}"
    html = project.root / "site_build" / "html"
    if has_site and not (html / "index.html").is_file():
        return "the site lost its index.html"
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--procs", type=int, default=3)
    parser.add_argument("--kill-rate", type=float, default=0.5, help="share of runs killed at a random moment")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    runs, broken_rounds, notes = Counter(), 0, []
    with tempfile.TemporaryDirectory(prefix="atlas-stress-") as tmp:
        project = make_project(Path(tmp))
        has_site = (ROOT / "site" / "node_modules").is_dir()
        verbs = VERBS if has_site else [v for v in VERBS if v[0] != "build"]
        deadline = time.monotonic() + args.minutes * 60
        rounds = 0
        while time.monotonic() < deadline:
            rounds += 1
            started = []
            for _ in range(args.procs):
                verb = rng.choice(verbs)
                kill = rng.random() < args.kill_rate
                plan = (rng.uniform(0.1, 3.0), rng.choice(SIGNALS), rng.random() < 0.3) if kill else None
                started.append((verb, project.start(*verb), plan, time.monotonic()))
            for _verb, proc, plan, t0 in sorted(started, key=lambda s: s[3] + (s[2][0] if s[2] else 0)):
                if plan:
                    delay, signum, group = plan
                    time.sleep(max(0.0, t0 + delay - time.monotonic()))
                    if proc.poll() is None:
                        (os.killpg if group else os.kill)(proc.pid, signum)
            for verb, proc, plan, _ in started:
                _, err = proc.communicate(timeout=600)
                kind = classify(proc.returncode, err, plan is not None)
                runs[kind] += 1
                if kind == "broken":
                    notes.append(f"round {rounds}: atlas {' '.join(verb)} exit {proc.returncode}: {err.strip()[-400:]}")
            problem = healthy(project, has_site and (project.root / "site_build" / "html").exists())
            if problem:
                broken_rounds += 1
                notes.append(f"round {rounds}: broken state: {problem}")
    total = sum(runs.values())
    print(f"stress: {args.minutes:g} min, {args.procs} concurrent processes, {rounds} rounds, {total} runs")
    print(
        f"  succeeded {runs['succeeded']}, refused cleanly {runs['refused']}, killed {runs['killed']}, "
        f"broken {runs['broken']}"
    )
    print(f"  rounds that left broken state (a plain re-run did not recover): {broken_rounds}")
    for note in notes[:20]:
        print("  " + note)
    return 1 if runs["broken"] or broken_rounds else 0


if __name__ == "__main__":
    sys.exit(main())
