"""`atlas diff`: what changed between two pins (symbols, signatures, calls, kernel registrations) and which
annotations it broke. Detection is pure and yields typed Changes; report.py renders them."""

from atlas.diff.annotations import AnnotationStatus, Status, annotation_statuses
from atlas.diff.apply import apply_suggestions, suggested_texts
from atlas.diff.report import DiffReport, render_github, render_human, render_json, render_markdown, save
from atlas.diff.run import diff
from atlas.diff.symbols import symbol_changes

__all__ = [
    "AnnotationStatus",
    "DiffReport",
    "Status",
    "annotation_statuses",
    "apply_suggestions",
    "diff",
    "render_github",
    "render_human",
    "render_json",
    "render_markdown",
    "save",
    "suggested_texts",
    "symbol_changes",
]
