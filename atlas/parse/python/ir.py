"""The per-file facts the Python parser produces and the call resolver consumes: scopes holding a small typed IR.

Expressions say what a value is built from; targets where a value goes; statements what a scope does, in order.
The walker (atlas.parse.python.walk) builds structured statements (`If`, `Loop`, `Try`, `Branches`, with `Break`
and `Continue`); the flow pass (atlas.parse.python.flow) numbers every binding of a local name, tells each read
which bindings reach it, and flattens the structure away: the resolver sees straight-line statements only.

The classes are plain dataclasses, compiled to native classes with mypyc (a frozen dataclass costs 4x more to make
there), so treat them as immutable once the flow pass is done. atlas.parse.python.codec packs them as tuples for the
parse cache and between processes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from atlas.model import Symbol

# -- expressions ---------------------------------------------------------------------------------------------------


@dataclass
class Name:
    """A name read. `versions`: the bindings of this scope's local name that reach the read (set by the flow pass;
    None for a name that is not local to the scope, looked up outward)."""

    id: str
    versions: tuple[int, ...] | None = None


@dataclass
class Attribute:
    value: Expr
    attr: str


@dataclass
class Site:
    """Where a call is: its first and last line, and the callee as written (shortened); `col` and `end_col` are
    the byte columns of its start and end (as Python's `ast` counts them: a call's end is its own closing
    parenthesis, so (end_line, end_col) names one call of a file)."""

    line: int
    end_line: int
    text: str
    col: int = 0
    end_col: int = 0


@dataclass
class Starred:
    """`*value` in a call's arguments or a display's elements."""

    value: Expr


@dataclass
class Keyword:
    """`name=value` in a call; `**value` when name is None."""

    name: str | None
    value: Expr


@dataclass
class Call:
    func: Expr
    args: tuple[Expr, ...]  # Starred for *args
    keywords: tuple[Keyword, ...]
    site: Site


@dataclass
class Subscript:
    value: Expr
    index: Expr
    line: int = 0


@dataclass
class Operation:
    """An operator applied to operands: `method` is the special method Python calls on the first operand
    (`a + b` -> `__add__`, `a < b` -> `__lt__`, `x in c` -> `__contains__` on c, listed first), `reflected` the
    one it tries on the second when the first has none (`__radd__`); `keeps` when the result may be an operand
    itself (`a or b`, `a + b` on lists)."""

    method: str
    operands: tuple[Expr, ...]
    reflected: str
    keeps: bool
    line: int


@dataclass
class Slice:
    """`value[lower:upper]` (a missing bound is None)."""

    value: Expr
    lower: Expr | None
    upper: Expr | None
    line: int = 0


ConstantValue = int | float | str | bytes | bool | None


@dataclass
class Constant:
    value: ConstantValue


@dataclass
class Display:
    """A list, tuple or set display (or a comprehension's elements): a new container, named by `alloc`
    (module:byte offset), that holds `elements` (Starred: the elements of an iterable)."""

    elements: tuple[Expr, ...]
    alloc: str


@dataclass
class DictEntry:
    key: Expr | None  # None: `**value` merges another dict
    value: Expr


@dataclass
class DictDisplay:
    entries: tuple[DictEntry, ...]
    alloc: str


@dataclass
class Lambda:
    scope: str  # the id of the lambda's scope


@dataclass
class Either:
    """One of several values: `a if c else b`, `a or b`, `a + b` (a list concatenation keeps both lists)."""

    options: tuple[Expr, ...]


@dataclass
class Elements:
    """The elements of an iterable: `yield from value`, `*value`."""

    value: Expr


@dataclass
class Narrow:
    """`value` where the code checked its type (`isinstance(value, types)`, `type(value) is types`): only what can be
    an instance of one of `types` (a class or a tuple of classes); what cannot be one when `negative`. With `identity`
    (`value is types`, `value == types`): only the class `types` itself, or anything but it when `negative`.
    `asserted` when an `assert` made the check (the statements after it run only where it holds). With `guard`,
    `types` is the function called on the value (`if supports_pp(model):`): the types its `TypeIs[...]` or
    `TypeGuard[...]` return annotation names (Scope.guards) are checked, nothing when it has none. With `attribute`
    (`hasattr(value, "attribute")`), what has the attribute, or has not when `negative`; `types` is unused."""

    value: Expr
    types: Expr
    line: int
    negative: bool = False
    identity: bool = False
    asserted: bool = False
    guard: bool = False
    attribute: str = ""


@dataclass
class Unknown:
    """A value the IR does not follow (arithmetic, comparisons)."""


UNKNOWN: Final = Unknown()

Expr = (
    Name
    | Attribute
    | Call
    | Subscript
    | Operation
    | Slice
    | Constant
    | Display
    | DictDisplay
    | Lambda
    | Either
    | Elements
    | Starred
    | Narrow
    | Unknown
)

# -- assignment targets ---------------------------------------------------------------------------------------------


@dataclass
class NameTarget:
    """A name bound; `version` numbers the binding among the scope's bindings of that name (flow pass; 0 is a
    parameter's)."""

    id: str
    version: int = 0


@dataclass
class StarTarget:
    """`*rest` among the elements of an Unpack: takes the elements the others leave."""

    target: Target


@dataclass
class Unpack:
    """`a, *b, c = ...`: each element target gets the matching element (a Starred target the rest)."""

    elements: tuple[Target, ...]


Target = NameTarget | Attribute | Subscript | Unpack | StarTarget | Unknown

# -- annotations ----------------------------------------------------------------------------------------------------


@dataclass
class Annotation:
    """A type an annotation names: an instance of `type` (or the class itself for `type[X]`, `is_class`); for a
    container annotation (`list[X]`, `dict[K, X]`, `Sequence[X]`...) `container` is "list" or "dict" and `type`
    the elements' (values') type."""

    type: Expr
    is_class: bool = False
    container: str = ""


# -- statements -----------------------------------------------------------------------------------------------------


@dataclass
class Assign:
    targets: tuple[Target, ...]  # `a = b = value`: each target gets the value
    value: Expr
    annotations: tuple[Annotation, ...]
    line: int


@dataclass
class Evaluate:
    """An expression evaluated for its effect (calls), e.g. an expression statement or a condition (`truth`: the
    test of an if, elif or while, whose truth value Python takes)."""

    value: Expr
    line: int
    truth: bool = False


@dataclass
class Return:
    value: Expr
    line: int


@dataclass
class Yield:
    value: Expr
    line: int


@dataclass
class Raise:
    value: Expr
    line: int


@dataclass
class For:
    """The header of a `for` loop (or a comprehension's `for` clause): `target` takes each element of `iterable`."""

    target: Target
    iterable: Expr
    line: int


@dataclass
class With:
    """`with context as target` (target None without `as`): calls `__enter__` (or `__aenter__`) and `__exit__`."""

    context: Expr
    target: Target | None
    is_async: bool
    line: int


@dataclass
class ImportedName:
    name: str  # "*" for a star import
    alias: NameTarget  # the name it binds (the name itself without `as`)


@dataclass
class Import:
    """`import module` (binds the top package; `alias` holds that name) or `import module as alias`."""

    module: str
    alias: NameTarget
    has_as: bool
    line: int


@dataclass
class ImportFrom:
    module: str  # made absolute
    names: tuple[ImportedName, ...]
    line: int


@dataclass
class Define:
    """`def` or `class` (the scope `scope`) binding `target`; decorators and defaults are evaluated here."""

    scope: str
    target: NameTarget
    is_class: bool
    line: int


# Structure the flow pass reads and removes:
@dataclass
class If:
    """Branches of which one runs (`if`/`elif`/`else`, `match` cases): `arms`; `exhaustive` when one always runs."""

    arms: tuple[tuple[Stmt, ...], ...]
    exhaustive: bool
    line: int


@dataclass
class Loop:
    """`for`/`while`: `body` runs zero or more times (`header` first each time), then `orelse` unless a `break`."""

    header: tuple[Stmt, ...]
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]
    line: int


@dataclass
class Try:
    body: tuple[Stmt, ...]
    handlers: tuple[tuple[Stmt, ...], ...]
    orelse: tuple[Stmt, ...]
    final: tuple[Stmt, ...]
    line: int


@dataclass
class Break:
    line: int


@dataclass
class Continue:
    line: int


@dataclass
class Exit:
    """A `return` or `raise` has run: nothing after it in the block runs."""


Stmt = (
    Assign
    | Evaluate
    | Return
    | Yield
    | Raise
    | For
    | With
    | Import
    | ImportFrom
    | Define
    | If
    | Loop
    | Try
    | Break
    | Continue
    | Exit
)


@dataclass
class Step:
    """A flat statement as the resolver runs it: `top` is the line of the scope's top-level statement that holds
    it, `strong` whether it runs every time the scope does (not under if/for/while/try/with): a write to an attribute
    or a container slot by such a statement hides that scope's earlier writes from the reads after it. `guard`: see
    below."""

    stmt: Stmt
    top: int
    strong: bool
    line: int  # the statement's own line
    guard: tuple[tuple[str, int, tuple[int, ...]], ...] = ()  # (name, version, inputs): bindings of the type checks
    # that hold it (a Narrow); the statement runs only when each can hold a value (a branch whose check no value
    # passes never runs), or, for a check with `inputs` (that x is not a T, is a class, has an attribute or passes a
    # call that may be a type guard), when the versions it
    # narrowed held nothing either (nothing flowed there: the check says nothing)


# -- scopes and files -----------------------------------------------------------------------------------------------


@dataclass
class Param:
    name: str
    default: Expr | None
    annotations: tuple[Annotation, ...]
    star: str  # "" | "*" | "**"


@dataclass
class Scope:
    """A module, class, function or lambda body."""

    id: str
    kind: str  # module | class | function | lambda
    parent: str  # "" for a module
    module: str
    start: int
    end: int
    params: tuple[Param, ...] = ()
    decorators: tuple[Expr, ...] = ()
    decorator_names: tuple[str, ...] = ()  # as written, without "@"
    bases: tuple[Expr, ...] = ()  # classes
    returns: tuple[Annotation, ...] = ()
    is_generator: bool = False
    local_names: set[str] = field(default_factory=set)
    global_names: set[str] = field(default_factory=set)  # declared `global`
    nonlocal_names: set[str] = field(default_factory=set)  # declared `nonlocal`
    body: list[Stmt] = field(default_factory=list)  # structured, as the walker made it (emptied by the flow pass)
    steps: list[Step] = field(default_factory=list)  # flat, as the resolver runs them
    exit_versions: dict[str, tuple[int, ...]] = field(default_factory=dict)  # module and class bodies: the bindings
    # of each name that reach the end of the body (what other modules and methods see)
    called_names: set[str] = field(default_factory=set)  # every `name(...)` in the scope: a quick test before
    # looking for calls of parameters
    fields: list[str] = field(default_factory=list)  # classes: the names annotated in the body, in order (a
    # dataclass's or NamedTuple's fields; ClassVar and InitVar left out)
    guards: tuple[Annotation, ...] = ()  # functions returning `TypeIs[X]` or `TypeGuard[X]`: X, what a true result
    # says the first argument is
    guard_negates: bool = False  # TypeIs: a false result says the argument is none of them (TypeGuard says nothing)


@dataclass
class ModuleFacts:
    """Everything one file says: its symbols for the index and its scopes for call resolution."""

    module: str
    path: str
    is_package: bool
    symbols: list[Symbol]
    scopes: list[Scope]
    num_lines: int
