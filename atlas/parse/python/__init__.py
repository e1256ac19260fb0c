"""The Python layer of the parser: tree-sitter parse of one file into ModuleFacts (symbols + scope IR).

Contract: symbol ids are the dotted paths Python would import (`vllm.v1.core.sched.scheduler.Scheduler.schedule`);
the module id comes from the repository path with `manifest.package_root` stripped; nested functions are
`outer.inner`, lambdas `<lambdaN>` numbered per scope as PyCG does."""

from atlas.parse.python.codec import pack, unpack, unpack_symbols
from atlas.parse.python.extract import extract, extract_packed
from atlas.parse.python.grammar import LANGUAGE, parser
from atlas.parse.python.ir import ModuleFacts, Scope
from atlas.parse.python.modules import module_name

__all__ = [
    "LANGUAGE",
    "ModuleFacts",
    "Scope",
    "extract",
    "extract_packed",
    "module_name",
    "pack",
    "parser",
    "unpack",
    "unpack_symbols",
]
