"""rummy-play, driven by scripted input: a whole game against baselines, answers by number,
by text and by a unique beginning, bad answers asked again, quitting, and command-line
errors as one line with exit code 2."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from typing import Iterator

import pytest
from rich.console import Console

import rummy_env
from rummy_env.agents import make_agent
from rummy_env.play import choose, play
from rummy_env.play import main as play_main


def _script(answers: Iterator[str], seen: list[str]):
    def read(prompt: str) -> str:
        answer = next(answers)
        seen.append(answer)
        return answer
    return read


def _console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=100, color_system=None), out


def test_a_whole_game_against_greedy_shows_the_table_rounds_and_the_result():
    env = rummy_env.three_thirteen_v0.env(num_players=3).unwrapped
    console, out = _console()
    seen: list[str] = []
    finished = play(env, [make_agent("greedy"), make_agent("greedy")], seat=1, seed=4, console=console,
                    read=_script(iter(lambda: "1", None), seen))
    text = out.getvalue()
    assert finished and env.game_state.phase.name == "GAME_OVER"
    assert text.count("Round ") >= 11 and "Round 11 over" in text and "Game over." in text and "Winner:" in text
    assert "wild rank 3" in text and "player_1 (you)" in text and "Since your last turn: player_0:" in text
    assert "Discard pile:" in text and "Your hand:" in text and "1  draw stock" in text
    assert len(seen) == sum(1 for line in text.splitlines() if line.startswith("Your hand:"))



def test_the_card_just_drawn_is_marked_and_each_round_end_shows_every_hand_as_scored():
    """After "draw stock" the hand shows the drawn card starred (and only then); a round's
    table gives every seat's hand as it was scored, its penalty beside it."""
    env = rummy_env.three_thirteen_v0.env(num_players=2).unwrapped
    console, out = _console()
    answers = iter(["draw stock", "?", "1", "quit"])
    assert not play(env, [make_agent("greedy")], seat=0, seed=2, console=console, read=_script(answers, []))
    hands = [line for line in out.getvalue().splitlines() if line.startswith("Your hand:")]
    assert "*" not in hands[0] and hands[1].count("*") == 1 and hands[1] == hands[2]
    drawn = hands[1].split("*")[1].split()[0].strip("]")
    assert drawn not in hands[0].split()
    console, out = _console()
    play(env, [make_agent("greedy")], seat=0, seed=2, console=console, read=_script(iter(lambda: "1", None), []))
    text = out.getvalue()
    assert text.count("hand as scored") == 11
    block = text[text.index("Round 1 over"):text.index("round 2 of 11")]
    rows = [line for line in block.splitlines() if "player_" in line]
    assert len(rows) == 2 and all(re.search(r"\d+ +. (\[?(10|[2-9JQKA])[CDHS]|\(no cards\))", row) for row in rows), rows

def test_answers_by_number_text_and_unique_beginning_and_bad_ones_are_asked_again():
    legal = ["draw stock", "draw discard"]
    assert choose("2", legal) == (1, "")
    assert choose("Draw  Stock", legal) == (0, "")
    assert choose("draw d", legal) == (1, "")
    assert choose("draw", legal)[1] == "'draw' could be 2 actions: draw stock, draw discard"
    assert choose("3", legal)[1] == "3 is not on the menu: choose 1 to 2"
    assert choose("discard 7H", legal)[1] == "'discard 7H' is not a legal action now (? lists them)"

    env = rummy_env.three_thirteen_v0.env(num_players=2).unwrapped
    console, out = _console()
    answers = iter(["xyz", "0", "draw", "?", "draw s", "quit"])
    assert not play(env, [make_agent("random")], seat=0, seed=1, console=console, read=_script(answers, []))
    text = out.getvalue()
    assert "'xyz' is not a legal action now" in text and "0 is not on the menu" in text
    assert "'draw' could be 2 actions" in text and "Game ended by the player." in text
    assert text.count("1  draw stock") == 2 and "discard" in text.split("1  draw stock")[-1]  # ? listed, then drawn


@pytest.mark.parametrize("game", ["contract_rummy", "toonerville_rook"])
def test_a_contract_game_shows_the_contract_the_table_melds_and_buy_questions(game: str):
    env = rummy_env.GAMES[game].env(num_players=3).unwrapped
    console, out = _console()
    answers = iter(["1"] * 150 + ["quit"])
    play(env, [make_agent("greedy") for _ in range(2)], seat=0, seed=2, console=console, read=_script(answers, []))
    text = out.getvalue()
    assert "contract: 2 set(s) + 0 run(s)" in text and "table meld 0" in text
    if env.rules.contract_play.buying:  # Toonerville Rook asks the seats in turn whether they buy a discard
        assert "is on offer to you" in text and "1  buy" in text


@pytest.mark.parametrize("args, words", [
    (["poker"], "argument game: invalid choice: 'poker'"),
    (["three_thirteen", "--players", "9"], "three_thirteen is played by 2, 3, 4 players, not 9"),
    (["three_thirteen", "--seat", "4"], "--seat must be 0..3, not 4"),
    (["three_thirteen", "--opponents", "greedy", "random"], "--opponents takes one spec for all or 3"),
    (["three_thirteen", "--opponents", "grredy"], "unknown agent spec 'grredy'"),
    (["three_thirteen", "--opponents", "nowhere/x.pt"], "nowhere/x.pt"),
    (["three_thirteen", "--seed", "many"], "argument --seed: invalid int value: 'many'"),
])
def test_command_line_errors_are_one_line_and_exit_2(args, words, capsys):
    """The command's main in this process (the piped game below runs it as a real process)."""
    with pytest.raises(SystemExit) as exit_:
        play_main(args)
    out = capsys.readouterr()
    assert exit_.value.code == 2 and out.out == ""
    assert out.err.count("\n") == 1 and out.err.startswith("rummy-play: error: ") and words in out.err


def test_the_command_plays_from_piped_input():
    done = subprocess.run([sys.executable, "-m", "rummy_env.play", "three_thirteen", "--players", "2", "--seed", "5",
                           "--opponents", "random"], capture_output=True, text=True, input="1\n" * 3, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Your hand:" in done.stdout and "Game ended by the player." in done.stdout  # input ran out
