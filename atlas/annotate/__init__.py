"""Contract annotations: YAML anchored to symbols (and statements inside them) at each pin, validated against a
versioned schema and resolved against atlas.graph's index. Sits above graph, below diff/render/cli."""

from atlas.annotate.check import CheckReport, check, probe_spec
from atlas.annotate.loader import AnnotationError, annotation_files, load_annotations
from atlas.annotate.model import Anchor, Annotation, Bottleneck, Claim, Contract, Cost, Evidence
from atlas.annotate.resolve import EvidenceResolution, Resolution, Resolver, SymbolIndex, resolve
from atlas.annotate.schema import SCHEMA, schema_json

__all__ = [
    "Anchor",
    "Annotation",
    "AnnotationError",
    "Bottleneck",
    "CheckReport",
    "Claim",
    "Contract",
    "Cost",
    "Evidence",
    "EvidenceResolution",
    "Resolution",
    "Resolver",
    "SCHEMA",
    "SymbolIndex",
    "annotation_files",
    "check",
    "load_annotations",
    "probe_spec",
    "resolve",
    "schema_json",
]
