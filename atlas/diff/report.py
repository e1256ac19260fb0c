"""A diff report and its renderings (human, markdown, json, github workflow annotations), kept apart from the
detection that fills it."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

from atlas.diff.annotations import AnnotationStatus, Status
from atlas.diff.items import Broken
from atlas.model import Change, ChangeKind, Pin

LISTED = (  # the sections of the human and markdown reports, in order; every change is listed
    ChangeKind.RENAMED,
    ChangeKind.MOVED,
    ChangeKind.SPLIT,
    ChangeKind.REMOVED,
    ChangeKind.ADDED,
    ChangeKind.SIGNATURE,
    ChangeKind.BODY,
    ChangeKind.CALLEE_REMOVED,
    ChangeKind.CALLEE_ADDED,
    ChangeKind.OP_REMOVED,
    ChangeKind.OP_ADDED,
)
SYMBOL_KINDS = (
    ChangeKind.ADDED,
    ChangeKind.REMOVED,
    ChangeKind.RENAMED,
    ChangeKind.MOVED,
    ChangeKind.SPLIT,
    ChangeKind.SIGNATURE,
    ChangeKind.BODY,
)


@dataclass(frozen=True, slots=True)
class DiffReport:
    framework: str
    old: Pin
    new: Pin
    changes: tuple[Change, ...]
    statuses: tuple[AnnotationStatus, ...]
    num_reparsed_files: int = 0
    seconds: float = 0.0
    broken: tuple[Broken, ...] = ()  # anchors and evidence items broken at NEW, with suggestions where found
    into: str = ""  # the pin set the suggestions are written for

    @property
    def num_suggested(self) -> int:
        return sum(1 for b in self.broken if b.hit is not None)

    @property
    def counts(self) -> Counter:
        return Counter(c.kind for c in self.changes)

    @property
    def exit_code(self) -> int:
        """0: annotated code unchanged; 1: an annotation drifted, broke or needs its claims re-checked."""
        return 1 if self.broken or any(s.status is not Status.OK for s in self.statuses) else 0

    def by_status(self, status: Status) -> list[AnnotationStatus]:
        return [s for s in self.statuses if s.status is status]

    def of_kind(self, *kinds: ChangeKind) -> list[Change]:
        return [c for c in self.changes if c.kind in kinds]


def summary_line(report: DiffReport) -> str:
    counts = report.counts
    parts = [f"{counts[k]} {k.value}" for k in SYMBOL_KINDS if counts[k]]
    states = Counter(s.status for s in report.statuses)
    notes = ", ".join(f"{states[s]} {s.value}" for s in Status if states[s]) or "no annotations"
    items = (
        f"; {len(report.broken)} anchor/evidence item(s) broken, {report.num_suggested} with a suggestion"
        if report.broken
        else ""
    )
    return (
        f"{report.framework} {report.old.ref} -> {report.new.ref}: {', '.join(parts) or 'no symbol changes'}; "
        f"annotations: {notes}{items}"
    )


def broken_row(item: Broken) -> str:
    what = item.annotation + (f"#{item.claim} evidence {item.evidence}" if item.claim else " anchor")
    if item.hit is None:
        return f"{item.where} {what}: no suggestion; {item.problem}"
    h = item.hit
    flag = "; a constant changed: re-read the claim's verdict" if h.changed_constant else ""
    pattern = f" `{h.pattern}`" + (f" (occurrence {h.occurrence})" if h.occurrence != 1 else "") if h.pattern else ""
    return f"{item.where} {what}: {h.rule}: {h.symbol}{pattern} [{h.path}:{h.line}]{flag}"


def _where(change: Change) -> str:
    span = change.new or change.old
    return f"{span.path}:{span.start}" if span else ""


def change_row(change: Change) -> str:
    target = f" -> {change.new_symbol}" if change.new_symbol and change.new_symbol != change.symbol else ""
    detail = f" ({change.detail})" if change.detail and not target else ""
    return f"{change.symbol}{target}{detail}  [{_where(change)}]"


def _status_row(status: AnnotationStatus) -> str:
    extra = f"; proposed anchor {status.proposed}" if status.proposed else ""
    if status.status is Status.BROKEN and status.candidates:
        extra = f"; candidates: {', '.join(status.candidates)}"
    return f"{status.file}:{status.line} {status.annotation} ({status.symbol}): {status.reason}{extra}"


def render_human(report: DiffReport) -> str:
    lines = [summary_line(report), ""]
    if report.broken:
        lines.append(
            f"Broken anchors and evidence at {report.new.ref}, suggestions for pin set "
            f"{report.into!r} ({report.num_suggested}/{len(report.broken)}; --apply-suggestions writes them):"
        )
        lines += [f"  {broken_row(b)}" for b in report.broken]
        lines.append("")
    for status in (Status.BROKEN, Status.DRIFTED, Status.RECHECK):
        rows = report.by_status(status)
        if rows:
            lines.append(f"Annotations {status.value} ({len(rows)}):")
            lines += [f"  {_status_row(s)}" for s in rows]
            lines.append("")
    for kind in LISTED:
        rows = report.of_kind(kind)
        if rows:
            lines.append(f"{kind.value.capitalize()} ({len(rows)}):")
            lines += [f"  {change_row(c)}" for c in rows]
            lines.append("")
    lines.append(f"{report.num_reparsed_files} files differ between the pins; diffed in {report.seconds:.1f} s")
    return "\n".join(lines)


def render_markdown(report: DiffReport) -> str:
    lines = [
        f"## atlas diff: {report.framework} `{report.old.ref}` -> `{report.new.ref}`",
        "",
        summary_line(report),
        "",
    ]
    if report.statuses:
        lines += ["| annotation | symbol | status | note |", "|---|---|---|---|"]
        order = {Status.BROKEN: 0, Status.DRIFTED: 1, Status.RECHECK: 2, Status.OK: 3}
        for s in sorted(report.statuses, key=lambda s: (order[s.status], s.annotation)):
            if s.status is Status.OK:
                continue
            note = s.reason + (f"; proposed `{s.proposed}`" if s.proposed else "")
            if s.status is Status.BROKEN and s.candidates:
                note += "; candidates: " + ", ".join(f"`{c}`" for c in s.candidates)
            lines.append(f"| `{s.annotation}` | `{s.symbol}` | **{s.status.value}** | {note} |")
        lines.append("")
    for kind in LISTED:
        rows = report.of_kind(kind)
        if rows:
            lines += [f"<details><summary>{kind.value} ({len(rows)})</summary>", ""]
            lines += [
                f"- `{c.symbol}`"
                + (f" -> `{c.new_symbol}`" if c.new_symbol and c.new_symbol != c.symbol else "")
                + (f": {c.detail}" if c.detail else "")
                for c in rows
            ]
            lines += ["", "</details>", ""]
    return "\n".join(lines)


def render_github(report: DiffReport) -> str:
    """GitHub workflow commands: one annotation per drifted, broken or to-recheck annotation, at its YAML line."""
    level = {Status.BROKEN: "error", Status.DRIFTED: "warning", Status.RECHECK: "notice"}
    lines = []
    for s in report.statuses:
        if s.status in level:
            message = _status_row(s).split(": ", 1)[-1].replace("\n", " ")
            lines.append(
                f"::{level[s.status]} file={s.file},line={s.line},title=annotation {s.status.value}::"
                f"{s.annotation}: {message}"
            )
    lines.append(f"::notice title=atlas diff::{summary_line(report)}")
    return "\n".join(lines)


def to_json(report: DiffReport) -> dict:
    def span(s):
        return {"path": s.path, "start": s.start, "end": s.end} if s else None

    return {
        "framework": report.framework,
        "old": {"ref": report.old.ref, "commit": report.old.commit},
        "new": {"ref": report.new.ref, "commit": report.new.commit},
        "summary": {k.value: n for k, n in sorted(report.counts.items(), key=lambda kv: kv[0].value)},
        "changes": [
            {
                "kind": c.kind.value,
                "symbol": c.symbol,
                "new_symbol": c.new_symbol,
                "old": span(c.old),
                "new": span(c.new),
                "detail": c.detail,
                "similarity": c.similarity,
            }
            for c in report.changes
        ],
        "annotations": [
            {
                "id": s.annotation,
                "symbol": s.symbol,
                "status": s.status.value,
                "reason": s.reason,
                "proposed": s.proposed,
                "candidates": list(s.candidates),
                "file": s.file,
                "line": s.line,
            }
            for s in report.statuses
        ],
        "num_reparsed_files": report.num_reparsed_files,
        "into": report.into,
        "broken": [
            {
                "annotation": b.annotation,
                "claim": b.claim,
                "evidence": b.evidence,
                "symbol": b.symbol,
                "pattern": b.pattern,
                "problem": b.problem,
                "file": b.file,
                "line": b.line,
                "suggestion": None
                if b.hit is None
                else {
                    "rule": b.hit.rule,
                    "symbol": b.hit.symbol,
                    "pattern": b.hit.pattern,
                    "occurrence": b.hit.occurrence,
                    "path": b.hit.path,
                    "line": b.hit.line,
                    "end_line": b.hit.end_line,
                    "changed_constant": b.hit.changed_constant,
                },
            }
            for b in report.broken
        ],
    }


def render_json(report: DiffReport) -> str:
    """Deterministic and compact (json's C encoder: a bump's report holds tens of thousands of changes)."""
    return json.dumps(to_json(report), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def save(report: DiffReport, build, text: str = "") -> None:
    """Keep the report as JSON in `<build>/diff/`, also as `last-<framework>.json` for the site's diff page.
    `text` is the report's render_json, when the caller has it already."""
    from atlas.yamlio import write_atomic

    folder = build / "diff"
    folder.mkdir(parents=True, exist_ok=True)
    text = (text or render_json(report)) + "\n"
    write_atomic(folder / f"{report.framework}-{report.old.ref}-{report.new.ref}.json", text)
    write_atomic(folder / f"last-{report.framework}.json", text)
