"""The IR of atlas.parse.python.ir as nested tuples of plain values and back: what a parse worker sends to the
process that resolves its tree and what the parse cache stores (marshal bytes; pickling native objects costs more
than the parse). Each node is a tuple whose first item says which class it is; only this module reads them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from atlas.model import Span, Symbol, SymbolKind
from atlas.parse.python.ir import (
    UNKNOWN,
    Annotation,
    Assign,
    Attribute,
    Call,
    Constant,
    Define,
    DictDisplay,
    DictEntry,
    Display,
    Either,
    Elements,
    Evaluate,
    Expr,
    For,
    Import,
    ImportedName,
    ImportFrom,
    Keyword,
    Lambda,
    ModuleFacts,
    Name,
    NameTarget,
    Narrow,
    Operation,
    Param,
    Raise,
    Return,
    Scope,
    Site,
    Slice,
    Starred,
    StarTarget,
    Step,
    Stmt,
    Subscript,
    Target,
    Unpack,
    With,
    Yield,
)

NAME: Final = 0
ATTRIBUTE: Final = 1
CALL: Final = 2
SUBSCRIPT: Final = 3
SLICE: Final = 4
CONSTANT: Final = 5
DISPLAY: Final = 6
DICT: Final = 7
LAMBDA: Final = 8
EITHER: Final = 9
ELEMENTS: Final = 10
STARRED: Final = 11
UNKNOWN_CODE: Final = 12
NAME_TARGET: Final = 13
UNPACK: Final = 14
STAR_TARGET: Final = 15
OPERATION: Final = 16
NARROW: Final = 17
ASSIGN: Final = 20
EVALUATE: Final = 21
RETURN: Final = 22
YIELD: Final = 23
RAISE: Final = 24
FOR: Final = 25
WITH: Final = 26
IMPORT: Final = 27
IMPORT_FROM: Final = 28
DEFINE: Final = 29
_KINDS: Final = {k.value: k for k in SymbolKind}


def pack(facts: ModuleFacts) -> tuple:
    return (
        facts.module,
        facts.path,
        facts.is_package,
        facts.num_lines,
        tuple(
            (
                s.id,
                s.kind.value,
                s.span.start if s.span else 0,
                s.span.end if s.span else 0,
                s.signature,
                s.decorators,
                s.bases,
            )
            for s in facts.symbols
        ),
        pack_scopes(facts.scopes),
    )


def unpack(data: tuple, component: Callable[[str], str] | None = None) -> ModuleFacts:
    """The ModuleFacts `pack` flattened; `component` (symbol id -> component name) tags the symbols on the way."""
    module, path, is_package, num_lines, symbols, scopes = data
    return ModuleFacts(
        module, path, is_package, unpack_symbols(path, symbols, component), [_scope(row) for row in scopes], num_lines
    )


def unpack_symbols(path: str, rows: tuple, component: Callable[[str], str] | None = None) -> list[Symbol]:
    """The Symbols of the file at `path` from their packed rows (`pack(facts)[4]`): all that a symbol index needs."""
    kinds = _KINDS
    return [
        Symbol(
            sid, kinds[kind], Span(path, start, end), signature, decorators, bases, component(sid) if component else ""
        )
        for sid, kind, start, end, signature, decorators, bases in rows
    ]


def pack_scopes(scopes: list[Scope]) -> tuple:
    return tuple(
        (
            c.id,
            c.kind,
            c.parent,
            c.module,
            c.start,
            c.end,
            tuple(
                (p.name, _e(p.default) if p.default is not None else None, _annotations(p.annotations), p.star)
                for p in c.params
            ),
            tuple(_e(d) for d in c.decorators),
            c.decorator_names,
            tuple(_e(b) for b in c.bases),
            _annotations(c.returns),
            c.is_generator,
            c.local_names,
            c.global_names,
            c.nonlocal_names,
            tuple((_s(step.stmt), step.top, step.strong, step.line, step.guard) for step in c.steps),
            c.exit_versions,
            c.called_names,
            tuple(c.fields),
            _annotations(c.guards),
            c.guard_negates,
        )
        for c in scopes
    )


def _scope(row: tuple) -> Scope:
    (
        sid,
        kind,
        parent,
        module,
        start,
        end,
        params,
        decorators,
        decorator_names,
        bases,
        returns,
        is_generator,
        local_names,
        global_names,
        nonlocal_names,
        steps,
        exit_versions,
        called_names,
        fields,
        guards,
        guard_negates,
    ) = row
    return Scope(
        sid,
        kind,
        parent,
        module,
        start,
        end,
        tuple(
            Param(name, _expr(default) if default is not None else None, _annotation_list(annots), star)
            for name, default, annots, star in params
        ),
        tuple(_expr(d) for d in decorators),
        decorator_names,
        tuple(_expr(b) for b in bases),
        _annotation_list(returns),
        is_generator,
        local_names,
        global_names,
        nonlocal_names,
        [],
        [Step(_stmt(s), top, strong, line, guard) for s, top, strong, line, guard in steps],
        exit_versions,
        called_names,
        list(fields),
        _annotation_list(guards),
        guard_negates,
    )


# -- packing --------------------------------------------------------------------------------------------------------


def _annotations(annotations: tuple[Annotation, ...]) -> tuple:
    return tuple((_e(a.type), a.is_class, a.container) for a in annotations)


def _e(e: Any) -> tuple:
    """An expression or a target as a tuple."""
    if isinstance(e, Name):
        return (NAME, e.id, e.versions)
    if isinstance(e, Attribute):
        return (ATTRIBUTE, _e(e.value), e.attr)
    if isinstance(e, Call):
        return (
            CALL,
            _e(e.func),
            tuple(_e(a) for a in e.args),
            tuple((k.name, _e(k.value)) for k in e.keywords),
            e.site.line,
            e.site.end_line,
            e.site.text,
            e.site.col,
            e.site.end_col,
        )
    if isinstance(e, Subscript):
        return (SUBSCRIPT, _e(e.value), _e(e.index), e.line)
    if isinstance(e, Operation):
        return (OPERATION, e.method, tuple(_e(x) for x in e.operands), e.reflected, e.keeps, e.line)
    if isinstance(e, Slice):
        return (
            SLICE,
            _e(e.value),
            _e(e.lower) if e.lower is not None else None,
            _e(e.upper) if e.upper is not None else None,
            e.line,
        )
    if isinstance(e, Constant):
        return (CONSTANT, e.value)
    if isinstance(e, Display):
        return (DISPLAY, tuple(_e(x) for x in e.elements), e.alloc)
    if isinstance(e, DictDisplay):
        return (DICT, tuple((_e(x.key) if x.key is not None else None, _e(x.value)) for x in e.entries), e.alloc)
    if isinstance(e, Lambda):
        return (LAMBDA, e.scope)
    if isinstance(e, Either):
        return (EITHER, tuple(_e(x) for x in e.options))
    if isinstance(e, Elements):
        return (ELEMENTS, _e(e.value))
    if isinstance(e, Starred):
        return (STARRED, _e(e.value))
    if isinstance(e, Narrow):
        return (NARROW, _e(e.value), _e(e.types), e.line, e.negative, e.identity, e.asserted, e.guard, e.attribute)
    if isinstance(e, NameTarget):
        return (NAME_TARGET, e.id, e.version)
    if isinstance(e, Unpack):
        return (UNPACK, tuple(_e(x) for x in e.elements))
    if isinstance(e, StarTarget):
        return (STAR_TARGET, _e(e.target))
    return (UNKNOWN_CODE,)


def _s(s: Stmt) -> tuple:
    if isinstance(s, Assign):
        return (ASSIGN, tuple(_e(t) for t in s.targets), _e(s.value), _annotations(s.annotations), s.line)
    if isinstance(s, Evaluate):
        return (EVALUATE, _e(s.value), s.line, s.truth)
    if isinstance(s, Return):
        return (RETURN, _e(s.value), s.line)
    if isinstance(s, Yield):
        return (YIELD, _e(s.value), s.line)
    if isinstance(s, Raise):
        return (RAISE, _e(s.value), s.line)
    if isinstance(s, For):
        return (FOR, _e(s.target), _e(s.iterable), s.line)
    if isinstance(s, With):
        return (WITH, _e(s.context), _e(s.target) if s.target is not None else None, s.is_async, s.line)
    if isinstance(s, Import):
        return (IMPORT, s.module, _e(s.alias), s.has_as, s.line)
    if isinstance(s, ImportFrom):
        return (IMPORT_FROM, s.module, tuple((n.name, _e(n.alias)) for n in s.names), s.line)
    if isinstance(s, Define):
        return (DEFINE, s.scope, _e(s.target), s.is_class, s.line)
    raise ValueError(f"{type(s).__name__} is not a flat statement")  # structure is flattened before packing


# -- unpacking ------------------------------------------------------------------------------------------------------


def _annotation_list(rows: tuple) -> tuple[Annotation, ...]:
    return tuple(Annotation(_expr(e), is_class, container) for e, is_class, container in rows)


def _expr(t: tuple) -> Expr:
    code: int = t[0]
    if code == NAME:
        return Name(t[1], t[2])
    if code == ATTRIBUTE:
        return Attribute(_expr(t[1]), t[2])
    if code == CALL:
        return Call(
            _expr(t[1]),
            tuple(_expr(a) for a in t[2]),
            tuple(Keyword(k, _expr(v)) for k, v in t[3]),
            Site(t[4], t[5], t[6], t[7], t[8]),
        )
    if code == SUBSCRIPT:
        return Subscript(_expr(t[1]), _expr(t[2]), t[3])
    if code == OPERATION:
        return Operation(t[1], tuple(_expr(x) for x in t[2]), t[3], t[4], t[5])
    if code == SLICE:
        return Slice(
            _expr(t[1]), _expr(t[2]) if t[2] is not None else None, _expr(t[3]) if t[3] is not None else None, t[4]
        )
    if code == CONSTANT:
        return Constant(t[1])
    if code == DISPLAY:
        return Display(tuple(_expr(x) for x in t[1]), t[2])
    if code == DICT:
        return DictDisplay(tuple(DictEntry(_expr(k) if k is not None else None, _expr(v)) for k, v in t[1]), t[2])
    if code == LAMBDA:
        return Lambda(t[1])
    if code == EITHER:
        return Either(tuple(_expr(x) for x in t[1]))
    if code == ELEMENTS:
        return Elements(_expr(t[1]))
    if code == STARRED:
        return Starred(_expr(t[1]))
    if code == NARROW:
        return Narrow(_expr(t[1]), _expr(t[2]), t[3], t[4], t[5], t[6], t[7], t[8])
    return UNKNOWN


def _target(t: tuple) -> Target:
    code: int = t[0]
    if code == NAME_TARGET:
        return NameTarget(t[1], t[2])
    if code == ATTRIBUTE:
        return Attribute(_expr(t[1]), t[2])
    if code == SUBSCRIPT:
        return Subscript(_expr(t[1]), _expr(t[2]), t[3])
    if code == UNPACK:
        return Unpack(tuple(_target(x) for x in t[1]))
    if code == STAR_TARGET:
        return StarTarget(_target(t[1]))
    return UNKNOWN


def _name_target(t: tuple) -> NameTarget:
    return NameTarget(t[1], t[2])


def _stmt(t: tuple) -> Stmt:
    code: int = t[0]
    if code == ASSIGN:
        return Assign(tuple(_target(x) for x in t[1]), _expr(t[2]), _annotation_list(t[3]), t[4])
    if code == EVALUATE:
        return Evaluate(_expr(t[1]), t[2], t[3])
    if code == RETURN:
        return Return(_expr(t[1]), t[2])
    if code == YIELD:
        return Yield(_expr(t[1]), t[2])
    if code == RAISE:
        return Raise(_expr(t[1]), t[2])
    if code == FOR:
        return For(_target(t[1]), _expr(t[2]), t[3])
    if code == WITH:
        return With(_expr(t[1]), _target(t[2]) if t[2] is not None else None, t[3], t[4])
    if code == IMPORT:
        return Import(t[1], _name_target(t[2]), t[3], t[4])
    if code == IMPORT_FROM:
        return ImportFrom(t[1], tuple(ImportedName(n, _name_target(a)) for n, a in t[2]), t[3])
    if code == DEFINE:
        return Define(t[1], _name_target(t[2]), t[3], t[4])
    raise ValueError(f"unknown statement code {code}")
