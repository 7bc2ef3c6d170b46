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
