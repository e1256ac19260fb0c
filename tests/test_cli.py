"""The CLI's help and options: every verb describes itself with two examples and offers only the --format values
it produces; one spelling per option; unknown options and verbs get the nearest valid one; `atlas callgraph`
takes the package folder or its parent."""

import argparse

import pytest

from atlas.cli import main, parser


def _verbs(p: argparse.ArgumentParser, prefix=()):
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                nested = any(isinstance(a, argparse._SubParsersAction) for a in sub._actions)
                if nested:
                    yield from _verbs(sub, (*prefix, name))
                else:
                    yield (*prefix, name), sub


VERBS = dict(_verbs(parser()))


def test_the_verbs_are_all_there():
    names = {" ".join(k) for k in VERBS}
    assert {"show", "find", "mcp", "graph callees", "graph path", "graph verify", "check", "diff"} <= names


@pytest.mark.parametrize("name", sorted(" ".join(k) for k in VERBS))
def test_every_verb_has_a_description_two_examples_and_its_own_formats(name):
    sub = VERBS[tuple(name.split())]
    assert sub.description and len(sub.description) > 40
    examples = sub.epilog.splitlines()
    assert (
        examples[0] == "examples:" and len(examples) == 3 and all(e.strip().startswith("atlas ") for e in examples[1:])
    )
    (fmt,) = [a for a in sub._actions if "--format" in a.option_strings]
    assert set(fmt.choices) <= {"human", "json", "markdown", "github", "dot", "mermaid", "pycg"}
    assert fmt.choices != ("human", "json", "markdown", "github", "dot", "mermaid", "pycg")  # never all seven
    options = [o for a in sub._actions for o in a.option_strings]
    assert "--pin" not in options  # one spelling: --pins
    pins = next(a for a in sub._actions if "--pins" in a.option_strings)
    assert "cpu" in pins.help


def test_a_format_the_verb_does_not_produce_is_refused_by_argparse(capsys):
    assert main(["show", "Scheduler.schedule", "--format", "dot"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'dot'" in err and "human" in err


def test_a_verb_refuses_a_format_it_does_not_produce_after_it_or_before_it(tmp_path, capsys):
    """Issue 34: `atlas index --format github` exited 0 with nothing on stdout. The verb's own --format choices
    refuse it (argparse), and a --format given before the verb is refused by the verb (output.require); one line,
    exit 2, either way."""
    folders = ["--cache", str(tmp_path / "cache"), "--build", str(tmp_path / "build")]
    assert main(["index", "--format", "github", *folders]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "invalid choice: 'github'" in err and len(err.strip().splitlines()) == 1
    assert main(["--format", "github", *folders, "index"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip() == "atlas: error: atlas index does not produce --format github; choose one of: human, json"


@pytest.mark.parametrize(
    "argv, suggestion",
    [
        (["graph", "callees", "X", "--depht", "2"], "did you mean --depth"),
        (["shwo", "X"], "did you mean show"),
        (["--frmat", "json", "show", "X"], "did you mean --format"),
    ],
)
def test_unknown_words_get_the_nearest_valid_one(argv, suggestion, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert suggestion in err and err.count("\n") == 1


def test_callgraph_takes_the_package_folder_or_its_parent(tmp_path, capsys):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from pkg.core import run\n")
    (pkg / "core.py").write_text("def helper():\n    pass\n\ndef run():\n    helper()\n")
    assert main(["callgraph", str(pkg), "--format", "json"]) == 0
    from_package = capsys.readouterr()
    assert main(["callgraph", str(tmp_path), "--format", "json"]) == 0
    from_parent = capsys.readouterr()
    assert from_package.out == from_parent.out
    assert '"pkg.core.run": [\n    "pkg.core.helper"' in from_package.out and '""' not in from_package.out
    assert "pkg as `pkg`" in from_package.err
