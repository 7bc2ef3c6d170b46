"""rummy-replay (rummy_env.replay): the per-step states a page holds are the replayed game's
own, a seat's page holds no other seat's cards, the pages are self-contained and compact,
and every user error is one line and exit code 2 with nothing written. The page's script
is tested in a browser by test_replay_browser.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import rummy_env
from rummy_env.agents import make_agent, play_game
from rummy_env.recording import RecordingWrapper, record_line, recording_file, replay_steps
from rummy_env.replay import game_view, page_data, run_in_order, step_state
from rummy_env.replay_page import render_page

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def recorded(game: str, specs: list[str], seed: int = 2, **env_kwargs) -> dict:
    env = RecordingWrapper(rummy_env.GAMES[game].env(num_players=len(specs), **env_kwargs), players=specs)
    play_game(env, [make_agent(spec) for spec in specs], seed)
    return env.records[0]


@pytest.fixture(scope="module")
def games() -> dict[str, dict]:
    return {
        "three_thirteen": recorded("three_thirteen", ["greedy", "random", "expert"]),
        "contract_rummy": recorded("contract_rummy", ["expert", "greedy", "random", "greedy"]),
        "toonerville_rook": recorded("toonerville_rook", ["greedy", "random", "expert"], max_turns_per_round=12),
    }


def states_of(data: dict) -> list[dict]:
    """Each step's full state, rebuilt from the changes as the page's script does."""
    states = [data["frames"][0]]
    for change in data["frames"][1:]:
        states.append({**states[-1], **change})
    return states


@pytest.mark.parametrize("game", ["three_thirteen", "contract_rummy", "toonerville_rook"])
def test_every_step_of_a_page_is_the_replayed_games_state(game, games):
    record = games[game]
    data = json.loads(json.dumps(page_data(record)))  # as the page's script reads it
    states = states_of(data)
    assert len(states) == len(record["actions"]) + 1
    assert data["actions"] == [[a["seat"], a["text"]] for a in record["actions"]]
    assert data["result"] == record["result"] and data["players"] == record["players"]
    for step, env in replay_steps(record):
        expected = step_state(game_view(env, None), data["names"], _Named(data["cards"]))
        shown = {key: value for key, value in states[step].items() if key not in ("drawn", "ended")}
        assert shown == json.loads(json.dumps(expected)), step
    last = states[-1]
    assert last["scores"] == record["result"]["scores"] and last["penalties"] == record["result"]["round_penalties"]



@pytest.mark.parametrize("game, seat", [
    ("three_thirteen", None), ("toonerville_rook", 1),
    *(pytest.param(game, seat, marks=pytest.mark.slow) for game, seat in
      [("three_thirteen", 1), ("contract_rummy", None), ("contract_rummy", 1), ("toonerville_rook", None)])])
def test_a_page_outlines_the_cards_drawn_and_shows_every_hand_as_scored(game, seat, games):
    """A draw's cards are marked in the drawer's hand (in a seat's page, that seat's draws
    only): the top discard when it was taken. At each round's end every hand is there as it
    was scored: its unmelded cards (every card, in a contract game) add up to its penalty."""
    record = games[game]
    data = json.loads(json.dumps(page_data(record, seat)))
    states = states_of(data)
    env = rummy_env.GAMES[game].raw_env(num_players=len(record["players"]), **record["env"]["rules"])
    values, cards = env.engine.ctx.natural_values, data["cards"]
    wild_value = env.rules.contract_play.wild_penalty if env.rules.contract_play else None
    draws = ends = 0
    for step, (actor, text) in enumerate(data["actions"], 1):
        state, before = states[step], states[step - 1]
        drawn = dict(state["drawn"] or [])
        assert seat is None or set(drawn) <= {seat}
        for drawer, cards_drawn in drawn.items():
            assert all(c in state[f"hand{drawer}"] for c in cards_drawn)
        if text.startswith("draw") and seat in (None, actor) and actor in drawn:
            if text == "draw discard":
                assert drawn[actor] == [before["top"]]
            draws += 1
        if len(state["penalties"]) > len(before["penalties"]):
            ends += 1
            for hand, penalty in zip(state["ended"], state["penalties"][-1]):
                melds, loose = hand
                counted = [c for m in melds for c in m] + loose if wild_value is not None else loose
                faces = [env.engine.card_set.parse(cards[c]) for c in counted]
                assert sum(values[f] if f < len(values) else wild_value for f in faces) == penalty, (hand, penalty)
        else:
            assert state["ended"] is None
    assert draws > 10 and ends == env.rules.num_rounds

def test_runs_are_shown_low_to_high_with_each_wild_where_it_stands(games):
    runs = 0
    for game in ("three_thirteen", "contract_rummy", "toonerville_rook"):
        for _, env in replay_steps(games[game]):
            cs = env.engine.card_set
            for meld in env.game_state.table:
                if meld.meld.kind != "run":
                    continue
                runs += 1
                ordered = run_in_order(meld, cs)
                assert sorted(ordered) == sorted(meld.cards)
                wilds = iter(meld.meld.wild_positions(cs.num_ranks))
                naturals = list(meld.meld.naturals)
                places = [cs.rank(naturals.pop(naturals.index(f))) if f in naturals else next(wilds) for f in ordered]
                assert places == list(range(meld.meld.low, meld.meld.high + 1)) or (
                    places[-1] == 0 and places[:-1] == list(range(meld.meld.low, meld.meld.high)))  # an ace high
    assert runs > 20


class _Named:
    """The page's card numbering, read back (a card the page never named fails the test)."""

    def __init__(self, texts: list[str]) -> None:
        self.index = {text: i for i, text in enumerate(texts)}

    def __call__(self, text):
        return None if text is None else self.index[text]


def test_a_seats_page_holds_its_own_hand_and_no_other(games):
    record = games["contract_rummy"]
    data = page_data(record, seat=2)
    assert {key for frame in data["frames"] for key in frame if key.startswith("hand")} == {"hand2"}
    states = states_of(data)
    for step, env in replay_steps(record):
        if step % 97 == 0:
            assert [data["cards"][c] for c in states[step]["hand2"]] == env.describe("player_2")["hands"]["player_2"]


def test_a_page_is_self_contained_and_compact(games):
    record = games["contract_rummy"]
    page = render_page(page_data(record))
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)  # nothing fetched: no network needed
    assert "@import" not in page and "<script src" not in page
    assert page.count("</script>") == 2  # the data cannot close its script element early
    assert len(page.encode()) < 40_000 + 200 * len(record["actions"])  # changes per step, not whole states


# ---------------------------------------------------------------- the command line
def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rummy_env.replay", *args], capture_output=True, text=True,
                          cwd=cwd, env=dict(os.environ, PYTHONPATH=REPO), timeout=300)


def test_one_page_per_game_of_a_recording(tmp_path, games):
    with recording_file(tmp_path / "games.jsonl") as write:
        for record in games.values():
            write(record)
    done = run("games.jsonl", "--out", "pages", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    names = ["games-1.html", "games-2.html", "games-3.html"]
    assert done.stdout.split() == [str(Path("pages") / name) for name in [*names, "index.html"]]
    assert sorted(p.name for p in (tmp_path / "pages").iterdir()) == sorted([*names, "index.html"])
    assert "Contract Rummy, 4 players" in (tmp_path / "pages" / "games-2.html").read_text()
    index = (tmp_path / "pages" / "index.html").read_text()
    assert re.findall(r'<a href="([^"]+)">', index) == names and "Toonerville Rook" in index
    for record in games.values():  # a row per game: its seed and final scores
        assert f"<td>{record['seed']}</td>" in index and f"player_0: {record['result']['scores'][0]}" in index


def test_by_default_the_pages_go_into_one_folder_named_after_the_recording(tmp_path, games):
    """Not into the current folder: ``games.jsonl`` makes ``games/`` beside it, with its index."""
    (tmp_path / "runs").mkdir()
    with recording_file(tmp_path / "runs" / "games.jsonl") as write:
        for record in games.values():
            write(record)
    done = run(str(Path("runs") / "games.jsonl"), "--seat", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"]
    pages = ["games-1-seat2.html", "games-2-seat2.html", "games-3-seat2.html", "index-seat2.html"]
    assert sorted(p.name for p in (tmp_path / "runs" / "games").iterdir()) == pages
    assert done.stdout.split() == [str(Path("runs") / "games" / page) for page in pages]
    (tmp_path / "plain").write_text((tmp_path / "runs" / "games.jsonl").read_text())  # no suffix to drop
    assert run("plain", cwd=tmp_path).returncode == 0 and (tmp_path / "plain-pages" / "index.html").exists()


@pytest.mark.parametrize("args, message", [
    (["missing.jsonl"], "missing.jsonl does not exist"),
    (["."], ". is a folder"),
    (["notes.txt"], "notes.txt, line 1: not JSON"),
    (["empty.jsonl"], "empty.jsonl holds no games"),
    (["games.jsonl", "--seat", "3"], "--seat 3: the game on line 1 has 3 players, seats 0 to 2"),
    (["games.jsonl", "--seat", "-1"], "--seat -1: the game on line 1 has 3 players"),
    (["games.jsonl", "--seat", "one"], "argument --seat: invalid int value: 'one' (see rummy-replay --help)"),
    (["games.jsonl", "--out", "notes.txt"], "--out notes.txt: notes.txt is not a folder"),
    (["games.jsonl", "--bogus"], "unknown option --bogus (see rummy-replay --help)"),
    (["games.jsonl", "--sead", "2"], "unknown option --sead; did you mean --seat?"),
    (["tampered.jsonl"], "tampered.jsonl, line 2: step 5 of"),
])
def test_every_user_error_is_one_line_and_exit_2_with_nothing_written(tmp_path, games, args, message):
    record = games["three_thirteen"]
    (tmp_path / "games.jsonl").write_text(record_line(record))
    changed = json.loads(json.dumps(record))
    changed["actions"][4]["text"] = "discard 2C" if changed["actions"][4]["text"] != "discard 2C" else "discard 3C"
    (tmp_path / "tampered.jsonl").write_text(record_line(record) + record_line(changed))
    (tmp_path / "notes.txt").write_text("not a recording\n")
    (tmp_path / "empty.jsonl").write_text("\n")
    before = sorted(p.name for p in tmp_path.iterdir())
    done = run(*args, "--out", "pages", cwd=tmp_path) if "--out" not in args else run(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("rummy-replay: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert message in done.stderr and done.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == before
