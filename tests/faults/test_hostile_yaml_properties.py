"""Hostile YAML, generated (hypothesis): whatever bytes an annotation or manifest holds, `yamlio.load` either returns
data whose alias-expanded tree is within the bounds, or raises one ConfigError that starts with file:line, in little
time. The fixed cases of each class are in test_bad_bytes.py; these generate the class."""

from __future__ import annotations

import re
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atlas import yamlio
from atlas.errors import ConfigError

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
TOKENS = [
    b"a: ",
    b"&x ",
    b"*x",
    b"[",
    b"]",
    b"{",
    b"}",
    b"- ",
    b"\n",
    b"  ",
    b"'",
    b'"',
    b"\\",
    b":",
    b",",
    b"#",
    b"!!python/object:os.system",
    b"<<: *x",
    b"\xff",
    b"\x00",
    b"\t",
    b"? ",
    b"|",
    b">",
    b"%YAML 1.2",
    b"---",
    b"...",
    b"&y [*x, *x, *x]",
    b"key",
    b"1e999",
    b"~",
    b"\xe4\xb8\xad",
    b"\r",
    b"\xef\xbb\xbf",
    b"\x1b",
]
TIME_LIMIT_S = 5.0  # "a few seconds" (issue 20), on a machine other jobs share


def _outcome(path: Path, data: bytes):
    """Load `data` from `path`: (the loaded data or None, the error message or None), asserting the promise: only a
    ConfigError escapes, it names the file and a line, and it comes quickly."""
    path.write_bytes(data)
    started = time.perf_counter()
    try:
        loaded, message = yamlio.load(path), None
    except ConfigError as exc:
        loaded, message = None, str(exc)
        assert re.match(rf"{re.escape(str(path))}:\d+: ", message), message
        assert "\n" not in message, message
    assert time.perf_counter() - started < TIME_LIMIT_S
    return loaded, message


def _size(node, depth=0) -> int:
    """Nodes of the alias-expanded tree (only called where the bounds say it is small)."""
    if isinstance(node, dict):
        return 1 + sum(_size(v, depth + 1) for v in node.values())
    if isinstance(node, (list, tuple)):
        return 1 + sum(_size(v, depth + 1) for v in node)
    return 1


@SETTINGS
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=120))
def test_token_soup_loads_or_is_one_config_error(tmp_path_factory, pieces):
    path = tmp_path_factory.mktemp("soup") / "soup.yaml"
    loaded, _ = _outcome(path, b"".join(pieces))
    if loaded is not None:
        assert _size(loaded) <= yamlio.MAX_NODES


@SETTINGS
@given(width=st.integers(2, 30), levels=st.integers(1, 40))
def test_alias_chains_are_bounded_before_anything_walks_them(tmp_path_factory, width, levels):
    """Level i repeats level i-1 `width` times: width**levels nodes once expanded. Within the bound it loads whole;
    past it, a ConfigError names the file, however large the expansion."""
    lines = ["l0: &l0 [x]"] + [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, levels + 1)]
    path = tmp_path_factory.mktemp("bomb") / "bomb.yaml"
    loaded, message = _outcome(path, "\n".join(lines).encode())
    sizes = [2]  # nodes of level 0 expanded: [x]
    for _ in range(levels):
        sizes.append(1 + width * sizes[-1])
    expanded = 1 + sum(sizes)  # the mapping holding every level
    if expanded <= yamlio.MAX_NODES and levels < yamlio.MAX_DEPTH:
        assert loaded is not None, message
    elif width**levels > yamlio.MAX_NODES:
        assert message is not None and ("nodes" in message or levels >= yamlio.MAX_DEPTH - 2), message


@SETTINGS
@given(st.lists(st.sampled_from(["flow-list", "flow-map", "block-map", "block-list"]), min_size=1, max_size=160))
def test_nesting_past_the_bound_is_refused_with_a_line(tmp_path_factory, kinds):
    """Any mix of block nesting, then flow nesting inside it: a few levels under MAX_DEPTH load, more than MAX_DEPTH
    are a ConfigError (with file:line, as _outcome checks)."""
    text, opening, closing, indent, levels = "", "", "", 0, 0
    for kind in kinds:
        if kind == "flow-list":
            opening, closing = opening + "[", "]" + closing
        elif kind == "flow-map":
            opening, closing = opening + "{k: ", "}" + closing
        elif closing:  # block nesting only outside flow collections
            continue
        elif kind == "block-map":
            text, indent = text + " " * indent + "k:\n", indent + 2
        else:
            text, indent = text + " " * indent + "-\n", indent + 2
        levels += 1
    text += " " * indent + opening
    path = tmp_path_factory.mktemp("deep") / "deep.yaml"
    loaded, message = _outcome(path, (text + "x" + closing + "\n").encode())
    if levels < yamlio.MAX_DEPTH - 2:
        assert message is None, message
    elif levels > yamlio.MAX_DEPTH + 1:
        assert message is not None and "nested" in message


@SETTINGS
@given(st.text(min_size=1, max_size=200), st.sampled_from(["utf-8", "utf-16", "utf-32", "latin-1", "gb18030"]))
def test_bytes_that_are_not_utf8_are_refused(tmp_path_factory, text, encoding):
    """A file written in another encoding loads only when its bytes are UTF-8 without NUL; otherwise it is refused
    with file:line, never read as something else with replacement characters."""
    try:
        data = f"summary: {text!r}\n".encode(encoding)
    except UnicodeEncodeError:
        return
    path = tmp_path_factory.mktemp("enc") / "enc.yaml"
    _, message = _outcome(path, data)
    try:
        valid = b"\0" not in data and bool(data.decode("utf-8"))
    except UnicodeDecodeError:
        valid = False
    if not valid:
        assert message is not None
