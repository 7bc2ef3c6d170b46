"""The one way a command line reports a user's error (rummy_env.cli)."""

from __future__ import annotations

import pytest

from rummy_env.cli import OneLineParser, fail


def test_fail_prints_one_line_and_exits_2(capsys):
    with pytest.raises(SystemExit) as info:
        fail("rummy-x", "bad value\n  for --games")
    assert info.value.code == 2
    assert capsys.readouterr().err == "rummy-x: error: bad value for --games\n"


def test_a_parser_error_is_one_line_naming_the_problem(capsys):
    parser = OneLineParser(prog="rummy-x")
    parser.add_argument("--games", type=int)
    with pytest.raises(SystemExit) as info:
        parser.parse_args(["--games", "many"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1
    assert err.startswith("rummy-x: error: argument --games: invalid int value: 'many'")
    assert err.rstrip().endswith("(see rummy-x --help)")


def test_output_paths_are_checked_without_writing_anything(tmp_path, capsys, monkeypatch):
    from rummy_env.cli import check_writable, check_writable_folder

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a_file").write_text("")
    check_writable("rummy-x", "--json", "out.json")
    check_writable_folder("rummy-x", "--out", "new/deeper")
    for check, path, problem in [
        (check_writable, ".", "--json . is a folder"),
        (check_writable, "missing/out.json", "--json missing/out.json is in missing, which does not exist"),
        (check_writable, "a_file/out.json", "--json a_file/out.json is in a_file, which is not a folder"),
        (check_writable_folder, "a_file/deeper", "--json a_file/deeper: a_file is not a folder"),
    ]:
        with pytest.raises(SystemExit) as info:
            check(prog="rummy-x", option="--json", path=path)
        assert info.value.code == 2 and capsys.readouterr().err == f"rummy-x: error: {problem}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]
