"""Contract annotations: YAML anchored to symbols (and statements inside them) at each pin, validated against a
versioned schema and resolved against atlas.graph's index. Sits above graph, below diff/render/cli."""

from atlas.annotate.check import CheckReport, check, probe_spec
from atlas.annotate.loader import AnnotationError, annotation_files, load_annotations, load_checked
from atlas.annotate.model import Anchor, Annotation, Bottleneck, Claim, Contract, Cost, Evidence
from atlas.annotate.resolve import EvidenceResolution, Resolution, Resolver, SymbolIndex, resolve
from atlas.annotate.review import (
    Deciding,
    Reviewed,
    ReviewError,
    ReviewRecord,
    ReviewRow,
    load_reviews,
    review_findings,
    reviewed_statements,
)
from atlas.annotate.schema import SCHEMA, schema_json
from atlas.annotate.statements import Statement, statements

__all__ = [
    "Anchor",
    "Annotation",
    "AnnotationError",
    "Bottleneck",
    "CheckReport",
    "Claim",
    "Contract",
    "Cost",
    "Deciding",
    "Evidence",
    "EvidenceResolution",
    "Resolution",
    "Resolver",
    "Reviewed",
    "ReviewError",
    "ReviewRecord",
    "ReviewRow",
    "SCHEMA",
    "Statement",
    "SymbolIndex",
    "annotation_files",
    "check",
    "load_annotations",
    "load_checked",
    "load_reviews",
    "probe_spec",
    "resolve",
    "review_findings",
    "reviewed_statements",
    "schema_json",
    "statements",
]
