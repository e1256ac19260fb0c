"""atlas: a source-annotated code atlas of vLLM and SGLang.

Pipeline: model -> sources (pins, git) -> parse (tree-sitter, libcst) -> graph (networkx) -> annotate (contracts)
-> diff -> render (site) -> cli. See docs/architecture.md."""

__version__ = "0.1.0"
