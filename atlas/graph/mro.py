"""Method resolution order: C3 linearization over the bases the resolver found (internal class ids, `x:<external>`
and `b:<builtin>` entries), falling back to depth-first order where C3 has no answer."""

from __future__ import annotations

from collections.abc import Callable


def linearize(
    cls: str,
    bases: dict[str, tuple],
    mro_of: Callable[[str], tuple[str, ...]] | None = None,
    _active: frozenset = frozenset(),
) -> tuple[str, ...]:
    """The MRO of `cls`, starting with `cls`; `bases[cls]` holds, per written base, the classes it may be. `mro_of`
    gives a base's MRO (a memo: hierarchies where each base may be several classes are exponential to walk
    again); without it, they are linearized here."""
    if cls in _active:
        return (cls,)
    active = _active | {cls}
    direct = [b for alts in bases.get(cls, ()) for b in alts]
    seqs = [
        [b] if b.startswith(("x:", "b:")) else list(mro_of(b) if mro_of else linearize(b, bases, None, active))
        for b in direct
    ]
    seqs.append(list(direct))
    out = [cls]
    while True:
        seqs = [s for s in seqs if s]
        if not seqs:
            return tuple(out)
        for seq in seqs:
            head = seq[0]
            if not any(head in s[1:] for s in seqs):
                break
        else:
            return tuple(dict.fromkeys(out + [c for s in seqs for c in s]))  # no C3 order: depth-first
        out.append(head)
        for s in seqs:
            if s and s[0] == head:
                del s[0]
