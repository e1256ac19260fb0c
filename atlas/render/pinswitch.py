"""The pin-set switch on every page: one site holds several pin sets (the first at the root of html/, the others
in html/<set>/); each set's root gets a data file naming the sets, where their roots are, what they pin and
which pages each has, so a page can offer the same page at the other pins (or that set's diff page)."""

from __future__ import annotations

import json
import posixpath


def switch_data(current: str, roots: dict[str, str], refs: dict[str, str], pages: dict[str, list[str]]) -> str:
    """The pinsets.js of one set's root: sets in order, each with its root relative to this one."""
    here = roots[current]
    sets = []
    for name, root in roots.items():
        relative = posixpath.relpath(root or ".", here or ".")
        sets.append(
            {
                "name": name,
                "root": "" if relative == "." else relative + "/",
                "refs": refs.get(name, ""),
                "pages": pages.get(name, []) if name != current else [],
            }
        )
    payload = json.dumps({"current": current, "sets": sets}, separators=(",", ":"), sort_keys=True)
    return f'(window.atlasData=window.atlasData||{{}})["pinsets"]={payload};\n'
