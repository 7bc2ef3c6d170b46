"""``benchmarks/round_endings.py``: every round of the games it plays, each seat's end of it
as the game scored it; who went out and who was down read right; a bad game or agent is
one line on stderr, exit code 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rummy_env import GAMES
from rummy_env.agents import make_agent, play_game
from rummy_env.evaluate import block_seed

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def round_endings(benchmark):
    return benchmark("round_endings")


@pytest.mark.parametrize("game", ["contract_rummy", "three_thirteen"])
def test_each_seats_penalties_add_up_to_the_games_scores(round_endings, game: str):
    specs = ["greedy", "random", "greedy", "random"]
    games = 2
    rounds = round_endings.round_endings(game, specs, games, seed=5)
    per_game = len(GAMES[game].rules().rounds)
    assert len(rounds) == games * per_game
    for g in range(games):
        env = GAMES[game].env(num_players=4)
        result = play_game(env, [make_agent(spec) for spec in specs], block_seed(5, g))
        of_game = rounds[g * per_game:(g + 1) * per_game]
        assert [r[0].deal for r in of_game] == list(range(per_game))
        assert [[s.penalty for s in r] for r in of_game] == result.round_penalties


@pytest.mark.parametrize("game", ["contract_rummy", "three_thirteen"])
def test_the_seat_that_went_out_scored_nothing_and_was_not_counted_down(round_endings, game: str):
    rounds = round_endings.round_endings(game, ["greedy"] * 4, 2, seed=11)
    contract = GAMES[game].rules().contract_play is not None
    outs = 0
    for r in rounds:
        out = [s for s in r if s.went_out]
        assert len(out) <= 1 and all(s.penalty == 0 and not s.down for s in out)
        outs += len(out)
        if contract:
            # a contract hand is empty only once out, and every card scores: 0 means out
            assert [s.penalty == 0 for s in r] == [s.went_out for s in r]
            if GAMES[game].rules().rounds[r[0].deal].down_means_out:
                assert not any(s.down for s in r)
        else:
            assert not any(s.down for s in r)
    assert outs > 0


def test_the_contract_table_splits_the_penalty_by_going_down(round_endings):
    rounds = round_endings.round_endings("contract_rummy", ["greedy"] * 4, 1, seed=3)
    text = round_endings.table("contract_rummy", rounds)
    assert "penalty not down" in text.splitlines()[0]
    assert len(text.splitlines()) == 1 + 7
    assert "down" not in round_endings.table("three_thirteen", round_endings.round_endings(
        "three_thirteen", ["greedy"] * 4, 1, seed=3)).splitlines()[0]
    assert any(s.down for r in rounds for s in r)


@pytest.mark.parametrize("args, words", [
    (["contract_rummy", "--agents", "expert", "expert"], "for 3 to 8 players, not 2"),
    (["three_thirteen", "--agents", "nope", "expert", "expert", "expert"], "unknown agent spec 'nope'"),
    (["three_thirteen", "--games", "0"], "--games"),
])
def test_bad_input_is_one_line_and_exit_code_2(args: list[str], words: str):
    done = subprocess.run([sys.executable, str(BENCHMARKS / "round_endings.py"), *args], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and words in done.stderr
