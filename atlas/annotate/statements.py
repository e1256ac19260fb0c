"""Every statement an annotation makes, one per reviewable field: its summary, each item of its contract's list
fields, each scalar contract field, each claim, and each claim's own verdict at another pin set. The review record
(atlas.annotate.review) keys its rows on (annotation, field, pin set) and compares their text with these."""

from __future__ import annotations

from dataclasses import dataclass, fields

from atlas.annotate.model import Annotation, Contract, Cost

DEFAULT = "default"

# The statement kinds in the order counts and pages list them: summary, the contract's fields, claims.
KINDS = ("summary", *(f.name for f in fields(Contract)), "claims")


@dataclass(frozen=True, slots=True)
class Statement:
    annotation: str
    framework: str
    field: str  # summary | contract.<name> | contract.<name>[i] | claims.<claim id>
    text: str  # as the annotation states it, whitespace collapsed
    pin_set: str = DEFAULT
    file: str = ""  # the annotation file, and the line the statement is written on
    line: int = 0

    @property
    def kind(self) -> str:
        """summary, a contract field's name (input, invariants, cost, ...) or claims."""
        head, _, rest = self.field.partition(".")
        return rest.partition("[")[0] if head == "contract" else head

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.annotation, self.field, self.pin_set)


def collapse(text: str) -> str:
    """A statement's text with its whitespace collapsed: how the record and the annotation are compared."""
    return " ".join(str(text).split())


def cost_text(cost: Cost) -> str:
    return f"{cost.dimension} {cost.effect}: {cost.detail}"


def statements(annotation: Annotation) -> list[Statement]:
    """The annotation's statements at the default pin, then each claim's own verdict at another pin set (its `at:`
    entry). An annotation's `at:` entry only moves the code; its statements there are the default pin's."""
    a = annotation
    line = dict(a.field_lines)
    out = [_statement(a, "summary", a.summary, line.get("summary", a.line))]
    for f in fields(Contract):
        value = getattr(a.contract, f.name)
        name = f"contract.{f.name}"
        if isinstance(value, tuple):
            for i, item in enumerate(value):
                text = cost_text(item) if isinstance(item, Cost) else item
                out.append(_statement(a, f"{name}[{i}]", text, line.get(f"{name}[{i}]", a.line)))
        elif value:
            out.append(_statement(a, name, value, line.get(name, a.line)))
    out.extend(_statement(a, f"claims.{c.id}", c.claim, c.line) for c in a.claims)
    for c in a.claims:
        for pin_set, verdict in c.at:
            out.append(_statement(a, f"claims.{c.id}", c.claim, verdict.line, pin_set))
    return out


def _statement(a: Annotation, name: str, text: str, line: int, pin_set: str = DEFAULT) -> Statement:
    return Statement(a.id, a.framework, name, collapse(text), pin_set, a.file, line)
