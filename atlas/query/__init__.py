"""The one query layer the faces share (the CLI, the site, the MCP server): symbol lookup and search, a symbol's
full view (place, calls, callers, contracts with each statement's review, claims, runtime), call trees, steered
paths, claims across pins, diff slices, unresolved sites. Each answer is a typed result naming its pin; the faces
render it (`to_json` is the JSON edge). Sits above runtime (it reads the traces and recordings) and below render
and the faces."""

from atlas.query.contracts import (
    ClaimTable,
    ContractView,
    Mechanism,
    StatementReview,
    claim_table,
    claims_across,
    contracts_of,
    mechanism,
)
from atlas.query.diffs import KIND_WORDS, DiffSlice, diff_slice, kinds_of
from atlas.query.jsonable import to_json
from atlas.query.lookup import Hit, Located, find, locate, similar
from atlas.query.paths import PathAnswer, call_paths
from atlas.query.runtime import RuntimeView, runtime_of
from atlas.query.session import Atlas, PinRef
from atlas.query.sites import UnresolvedSites, unresolved
from atlas.query.symbols import SymbolView, show
from atlas.query.trees import Tree, tree

__all__ = [
    "KIND_WORDS",
    "Atlas",
    "ClaimTable",
    "ContractView",
    "DiffSlice",
    "Hit",
    "Located",
    "Mechanism",
    "PathAnswer",
    "PinRef",
    "RuntimeView",
    "StatementReview",
    "SymbolView",
    "Tree",
    "UnresolvedSites",
    "call_paths",
    "claim_table",
    "claims_across",
    "contracts_of",
    "diff_slice",
    "find",
    "kinds_of",
    "locate",
    "mechanism",
    "runtime_of",
    "show",
    "similar",
    "to_json",
    "tree",
    "unresolved",
]
