"""By-name dispatch for the call resolver: calls that run a method named by a string literal
(`collective_rpc("execute_model")`), per the framework's rules (atlas.graph.resolve.rules). The calls are noted
while the rounds run and linked after them, when every class's bases are known."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas.graph.resolve import classes
from atlas.graph.resolve.rules import ByName
from atlas.graph.resolve.values import BOUND_METHOD, DISPATCHED, INSTANCE, Values, instance
from atlas.model import Provenance
from atlas.parse.python.ir import Constant, Expr, Keyword, Site

if TYPE_CHECKING:
    from atlas.graph.resolve.solver import Solver


def note_named_call(s: Solver, rule: ByName, args: tuple[Expr, ...], keywords: tuple[Keyword, ...], site: Site) -> None:
    """A by-name call: remember the method its string literal names."""
    named: Expr | None = (
        args[0]
        if args and isinstance(args[0], Constant)
        else next((k.value for k in keywords if k.name == rule.argument), None)
    )
    if isinstance(named, Constant) and isinstance(named.value, str) and named.value.isidentifier():
        call = (s.ctx.caller, site.line, named.value, rule)
        if call not in s.named_calls:
            s.named_calls.add(call)
            s.cells.mark(s.cells.topic("named", rule.call))


def served_names(s: Solver, receivers: Values) -> list[str]:
    """The method names by-name calls send to the classes of `receivers`: what `getattr(worker, method)` may find
    where the serving side looks up a name it received (`method, args, kwargs, rank = mq.dequeue()` in a worker's
    RPC loop) rather than one the code shows."""
    rules: set[ByName] = set()
    for v in receivers:
        if v.kind == INSTANCE or v.kind == DISPATCHED:
            ancestors = classes.mro_walk(s, v.name)[1]
            rules.update(rule for rule in s.by_name.values() if any(c in ancestors for c in rule.classes))
    for rule in rules:
        s.cells.watch(s.cells.topic("named", rule.call))
    return sorted({method for _, _, method, rule in s.named_calls if rule in rules})


def link_by_name(s: Solver) -> None:
    """After the rounds (every class's bases known): an edge from each by-name call to the named method of the
    rule's classes and to its overrides in their subclasses, less those that only raise NotImplementedError where
    another of them does not."""
    subclasses: dict[str, list[str]] = {}
    for cls in sorted(s.bases):
        for base in classes.mro(s, cls)[1:]:
            subclasses.setdefault(base, []).append(cls)
    for caller, line, method, rule in sorted(s.named_calls, key=lambda c: c[:3]):
        for cls in rule.classes:
            targets = (
                {m.name for m in classes.class_attr(s, cls, method, instance(cls)) if m.kind == BOUND_METHOD}
                if cls in s.scopes
                else set()
            )
            targets |= {
                f"{sub}.{method}"
                for sub in subclasses.get(cls, ())
                if method in s.scopes[sub].local_names and f"{sub}.{method}" in s.scopes
            }
            implemented = {t for t in targets if t not in s.not_implemented}  # a stub where others run code: none
            for fid in sorted(implemented or targets):  # (calls.unimplemented)
                s.out.edges.setdefault((caller, fid), {}).setdefault(line, Provenance.STRING_DISPATCH)
