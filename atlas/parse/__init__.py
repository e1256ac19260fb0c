"""Parsing: source files of a pinned tree -> per-file facts (symbols, scopes, call sites). Pure: no git, no graph.

`atlas.parse.python` holds the Python layer (tree-sitter); `atlas.parse.kernels` the C++/CUDA/Triton layer."""
