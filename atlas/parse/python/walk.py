"""The state of the walk over one parsed file, shared by the walker's parts (expressions, statements, imports): the
file, the symbols and scopes found so far, the scope and the block being filled. The parts are module functions
taking this state first, as mypyc's own IR builder is written; atlas.parse.python.extract runs them."""

from __future__ import annotations

import sys
from typing import Any, Final

from atlas.model import SymbolKind
from atlas.parse.python.ir import Assign, Attribute, Name, NameTarget, Scope, StarTarget, Stmt, Unpack, With

_ATTRIBUTE: Final = SymbolKind.ATTRIBUTE.value


class FileWalk:
    """One file being walked. `block` is the statement list being filled (a scope's body, or a branch or loop body
    inside it); `symbols` holds rows as atlas.parse.python.codec packs them (a parse worker sends rows; extract makes
    Symbols for callers in-process)."""

    def __init__(self, source: bytes, path: str, module: str, is_package: bool, scope: Scope):
        self.src = source
        self.ascii = source.isascii()
        self.chars = source.decode("latin-1")
        self.path = path
        self.module = sys.intern(module)
        self.is_package = is_package
        self.symbols: list[tuple] = []
        self.scopes: list[Scope] = [scope]
        self.scope = scope
        self.block: list[Stmt] = scope.body
        self.seen_attrs: set[str] = set()
        self.defined: set[str] = set()  # ids of def/class symbols: an assignment of the same name adds no attribute
        self.jit_calls: set[str] = set()  # functions made kernels by a call: `k = triton.jit(...)(fn)`
        self.lambda_counts: dict[str, int] = {}
        self.receivers: dict[int, frozenset[str]] = {}  # per scope node (its first byte): statements._receivers
        self.renames: dict[str, str] = {}  # inside a comprehension: its variables, under names of their own
        self.narrowed: dict[str, tuple[str, str]] = {}  # in a function: "p.attr" -> (p, attr) for each attribute of a
        # parameter a type check named (narrowed_attribute); its reads are the local name "p.attr" from then on
        self.check_names: dict[str, tuple[list[Any], list[Any]]] = {}  # a local name bound to a condition of type
        # checks (`ok = isinstance(x, T) and ...`) -> what holds when it is true and when it is false (name_checks)

    def text(self, node: Any) -> str:
        """The node's source text: a slice of the source decoded byte for byte (Latin-1, so byte offsets are
        string offsets), decoded again as UTF-8 only when the slice holds a non-ASCII byte."""
        text = self.chars[node.start_byte : node.end_byte]
        return text if self.ascii or text.isascii() else text.encode("latin-1").decode("utf-8", "replace")

    def name(self, node: Any) -> str:
        """The node's text interned: names and ids recur across files, and the resolver's keys compare faster when
        equal strings are one object (marshal keeps them interned on the way to the parent)."""
        return sys.intern(self.text(node))

    def add_symbol(
        self, sid: str, kind: SymbolKind, node: Any, signature: str = "", decorators: Any = (), bases: Any = ()
    ) -> None:
        if kind is not SymbolKind.ATTRIBUTE:
            self.defined.add(sid)
            if sid in self.seen_attrs:  # `name = other` earlier, then `def name`: the definition is the symbol
                self.symbols = [s for s in self.symbols if s[0] != sid or s[1] != _ATTRIBUTE]
        self.symbols.append(
            (
                sid,
                kind.value,
                node.start_point[0] + 1,
                node.end_point[0] + 1,
                signature,
                tuple(decorators),
                tuple(bases),
            )
        )

    def emit(self, stmt: Stmt) -> None:
        self.block.append(stmt)
        if self.narrowed and isinstance(stmt, (Assign, With)):
            targets = stmt.targets if isinstance(stmt, Assign) else () if stmt.target is None else (stmt.target,)
            self._rebind_narrowed(targets, stmt.line)

    def narrowed_attribute(self, base: str, attr: str, line: int) -> str:
        """`base.attr` (base a parameter of the function being walked) is the subject of a type check: from here on
        the function reads it as the local name "base.attr", which the check narrows as it narrows a name. The name
        is bound to the attribute at the function's start and again after each statement that writes the attribute
        or rebinds `base`, so a check holds only until then (as mypy narrows a member)."""
        name = sys.intern(f"{base}.{attr}")
        if name not in self.narrowed:
            self.narrowed[name] = (base, attr)
            self.scope.local_names.add(name)
            self.scope.body.insert(0, _reread(name, base, attr, line))
        return name

    def _rebind_narrowed(self, targets: Any, line: int) -> None:
        todo = list(targets)
        while todo:
            t = todo.pop()
            if isinstance(t, Unpack):
                todo.extend(t.elements)
            elif isinstance(t, StarTarget):
                todo.append(t.target)
            elif isinstance(t, NameTarget):
                self._rebind(t.id, "", line)
            elif isinstance(t, Attribute) and isinstance(t.value, Name):
                self._rebind(t.value.id, t.attr, line)

    def _rebind(self, base: str, attr: str, line: int) -> None:
        """Bind the narrowed attributes of `base` again to what they hold: `base.attr` was written, or (attr "")
        `base` itself was bound."""
        for name, (owner, field) in self.narrowed.items():
            if owner == base and (not attr or field == attr):
                self.block.append(_reread(name, owner, field, line))

    def bind(self, name: str) -> None:
        """`name` is bound in the current scope (local, unless declared global or nonlocal there). A condition a name
        was bound to says nothing once the name, or a name it checks, is bound again."""
        if self.check_names:
            self.forget_checks(name)
        scope = self.scope
        if name not in scope.global_names and name not in scope.nonlocal_names:
            scope.local_names.add(name)
        elif name in scope.global_names:  # a module variable, bound from here
            self.scopes[0].local_names.add(name)

    def name_checks(self, name: str, checks: tuple[list[Any], list[Any]]) -> None:
        """`name = <condition>` bound `name` for the first time in this scope, to a condition that makes type checks
        of local names (statements.type_checks): testing the name later makes the same checks, until `name` or a
        checked name is bound again (bind) or a loop begins or ends (`forget_checks("")`: a loop body may run after
        a later statement of its own rebinds the checked name). Checks of a parameter's attribute are not kept."""
        if all("." not in c[0] for c in checks[0] + checks[1]):
            self.check_names[name] = checks

    def forget_checks(self, name: str) -> None:
        """`name` is bound again: drop the conditions bound to it or checking it (every one for "")."""
        for held, (when_true, when_false) in list(self.check_names.items()):
            if not name or held == name or any(c[0] == name for c in when_true + when_false):
                del self.check_names[held]

    def nested(self, fill: Any, *args: Any) -> tuple[Stmt, ...]:
        """The statements `fill(*args)` emits, as a block of their own (a branch or loop body)."""
        saved = self.block
        self.block = []
        fill(self, *args)
        block, self.block = self.block, saved
        return tuple(block)

    def enter(self, scope: Scope) -> tuple[Scope, list[Stmt], dict[str, tuple[str, str]], dict[str, Any]]:
        """Start filling `scope` (a def, class or lambda body); returns what `leave` restores."""
        saved = (self.scope, self.block, self.narrowed, self.check_names)
        self.scopes.append(scope)
        self.scope = scope
        self.block = scope.body
        self.narrowed = {}
        self.check_names = {}
        for p in scope.params:
            scope.local_names.add(p.name)
        return saved

    def leave(self, saved: tuple[Scope, list[Stmt], dict[str, tuple[str, str]], dict[str, Any]]) -> None:
        self.scope, self.block, self.narrowed, self.check_names = saved

    def alloc(self, node: Any) -> str:
        """The allocation id of a container made by this node: module and byte offset."""
        return f"{self.module}:{node.start_byte}"


def _reread(name: str, base: str, attr: str, line: int) -> Assign:
    """`name = base.attr`: the local name a narrowed attribute is read as, bound to what the attribute holds."""
    return Assign((NameTarget(name),), Attribute(Name(base), attr), (), line)
