"""``benchmarks/one_deal.py``: one deal of a game played on its own, with its cards and
rules as in the full game; the agent in each seat in turn; a bad deal or agent is one line
on stderr, exit code 2."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from rummy_env import GAMES
from rummy_env.agents import make_agent, play_game

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def one_deal(benchmark):
    return benchmark("one_deal")


@pytest.mark.parametrize("game, deal", [("contract_rummy", 7), ("contract_rummy", 1), ("three_thirteen", 11)])
def test_the_env_plays_that_deal_alone_with_the_full_games_rules(one_deal, game: str, deal: int):
    full = GAMES[game].rules()
    env = one_deal.one_deal_env(game, deal)
    assert env.rules == replace(full, rounds=(full.rounds[deal - 1],))
    result = play_game(env, [make_agent("greedy") for _ in range(4)], seed=2)
    assert len(result.round_penalties) == 1


def test_the_agent_sits_in_each_seat_in_turn_and_the_summary_compares_it_with_the_others(one_deal):
    same = one_deal.play_deal("contract_rummy", 7, "expert", "expert", seed=4)
    assert [r.seat for r in same] == [0, 1, 2, 3]
    assert all(r.penalties == same[0].penalties for r in same)  # one deal, the same players
    lines = one_deal.summary([same])
    assert lines[0].endswith("less the others' [95%]: 0.000 +- n/a") and "0.000 +- n/a" in lines[1]
    mixed = one_deal.play_deal("contract_rummy", 7, "random", "expert", seed=4)
    assert all(r.penalties[r.seat] > 0 for r in mixed)  # random never goes out with every card
    assert one_deal.summary([mixed])[1].split(": ")[-1] != "0.000 +- n/a"


@pytest.mark.parametrize("argv, message", [
    (["contract_rummy", "--deal", "8"], "--deal must be 1 to 7 for contract_rummy, not 8"),
    (["contract_rummy", "--deal", "0"], "--deal"),
    (["contract_rummy", "--deal", "7", "--agent", "nobody"], "unknown agent spec 'nobody'"),
    (["gin", "--deal", "1"], "invalid choice: 'gin'"),
])
def test_bad_input_is_one_line_and_exit_code_2(argv: list[str], message: str):
    proc = subprocess.run([sys.executable, str(BENCHMARKS / "one_deal.py"), *argv], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and message in proc.stderr


def test_the_same_seed_prints_the_same_figures():
    argv = [sys.executable, str(BENCHMARKS / "one_deal.py"), "contract_rummy", "--deal", "3", "--agent", "greedy",
            "--games", "3", "--seed", "5", "--workers", "1"]
    runs = [subprocess.run(argv, capture_output=True, text=True, check=True).stdout for _ in range(2)]
    assert runs[0] == runs[1] and len(runs[0].splitlines()) == 3 and "3 deals from seed 5" in runs[0]
