"""By-name dispatch for the call resolver: calls that run a method named by a string literal
(`collective_rpc("execute_model")`), per the framework's rules (atlas.graph.resolve.rules). The calls are noted
while the rounds run and linked after them, when every class's bases are known."""

from __future__ import annotations

from atlas.graph.resolve.bindings import Bindings
from atlas.model import Provenance


class Dispatch(Bindings):
    """A part of Solver (atlas.graph.resolve.state): `note_named_call` during the rounds, `dispatch_by_name` after
    them."""

    def note_named_call(self, rule, args, kwargs, site) -> None:
        """A by-name call (atlas.graph.resolve.rules): remember the method its string literal names."""
        named = args[0] if args and args[0][0] == "k" else next((a for k, a in kwargs if k == rule.argument), None)
        if named is not None and named[0] == "k" and isinstance(named[1], str) and named[1].isidentifier():
            self.named_calls.add((self.ctx[2], site[0], named[1], rule))

    def dispatch_by_name(self) -> None:
        """After the rounds (every class's bases known): an edge from each by-name call to the named method of the
        rule's classes and to its overrides in their subclasses."""
        subclasses: dict[str, list[str]] = {}
        for cls in sorted(self.bases):
            for base in self.mro(cls)[1:]:
                subclasses.setdefault(base, []).append(cls)
        for caller, line, method, rule in sorted(self.named_calls, key=lambda c: c[:3]):
            for cls in rule.classes:
                targets = {m[1] for m in self.class_attr(cls, method, ("i", cls)) if m[0] == "bm"} if (
                    cls in self.scopes) else set()
                targets |= {f"{sub}.{method}" for sub in subclasses.get(cls, ())
                            if method in self.scopes[sub].local_names and f"{sub}.{method}" in self.scopes}
                for fid in sorted(targets):
                    self.out.edges.setdefault((caller, fid), {}).setdefault(line, Provenance.STRING_DISPATCH)
