"""Score atlas on PyCG's micro-benchmark (../shared/benchmarks/pycg-micro): complete, sound, edge precision and
recall over every case, with the failures per category. Usage: python benchmarks/pycg_eval.py [SNIPPETS_DIR]"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from atlas.graph.pycg import callgraph

TARGETS = {"complete": 118, "sound": 118, "precision": 0.99, "recall": 0.99}  # issue 18


def snippets_dir() -> Path:
    env = os.environ.get("ATLAS_PYCG_MICRO")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1] / ".." / "shared" / "benchmarks" / "pycg-micro" / "snippets"


@dataclass(frozen=True, slots=True)
class CaseScore:
    name: str
    missing: frozenset
    extra: frozenset
    num_expected: int
    num_found: int

    @property
    def is_complete(self) -> bool:
        return not self.extra

    @property
    def is_sound(self) -> bool:
        return not self.missing


def edges(graph: dict) -> set[tuple[str, str]]:
    return {(a, b) for a, bs in graph.items() for b in bs}


def score_case(case: Path) -> CaseScore:
    expected = edges(json.loads((case / "callgraph.json").read_text()))
    found = edges(callgraph(case, ["main.py"]))
    return CaseScore(
        f"{case.parent.name}/{case.name}",
        frozenset(expected - found),
        frozenset(found - expected),
        len(expected),
        len(found),
    )


def score_all(folder: Path) -> list[CaseScore]:
    return [score_case(c) for c in sorted(folder.glob("*/*")) if (c / "callgraph.json").exists()]


def summary(scores: list[CaseScore]) -> dict:
    expected = sum(s.num_expected for s in scores)
    found = sum(s.num_found for s in scores)
    missing = sum(len(s.missing) for s in scores)
    extra = sum(len(s.extra) for s in scores)
    return {
        "cases": len(scores),
        "complete": sum(s.is_complete for s in scores),
        "sound": sum(s.is_sound for s in scores),
        "precision": round((found - extra) / found, 3) if found else 1.0,
        "recall": round((expected - missing) / expected, 3) if expected else 1.0,
    }


def main() -> int:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else snippets_dir()
    scores = score_all(folder)
    result = summary(scores)
    for s in scores:
        if not (s.is_complete and s.is_sound):
            print(f"FAIL {s.name}: missing {sorted(s.missing)} extra {sorted(s.extra)}")
    print(json.dumps(result))
    ok = all(result[k] >= v for k, v in TARGETS.items())
    print(f"targets {TARGETS}: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
