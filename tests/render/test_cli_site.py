"""`atlas build` / `atlas serve` argument and error paths (the build itself is tested in test_site and, on the
real trees, test_real_site)."""

from atlas.cli import main


def test_serve_without_a_build_says_what_to_do(tmp_path, capsys):
    assert main(["serve", "--out", str(tmp_path / "nothing")]) == 2
    assert "run `atlas build` first" in capsys.readouterr().err


def test_build_refuses_formats_it_does_not_produce(capsys):
    assert main(["build", "--format", "dot"]) == 2
    assert "invalid choice: 'dot' (choose from 'human', 'json')" in capsys.readouterr().err
    assert main(["--format", "dot", "build"]) == 2  # given before the verb: refused by the verb
    assert "choose one of: human, json" in capsys.readouterr().err
