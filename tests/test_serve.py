"""rummy-serve's API (docs/serve.md), in process through FastAPI's TestClient: the deal is the
AEC env's, every refusal has its status and changes nothing, games do not see each other,
an agent that raises ends only its game, idle games are cleaned up, a finished game's
recording replays, the live stream sends views, and nothing a seat is sent holds a card it
cannot see (the whole-game scans of every game are marked slow)."""

from __future__ import annotations

import json
import re
import socket
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="needs the serve extra: pip install -e '.[serve]'")
from fastapi.testclient import TestClient  # noqa: E402

import rummy_env  # noqa: E402
from rummy_env.agents import Agent  # noqa: E402
from rummy_env.recording import replay  # noqa: E402
from rummy_env.serve.app import create_app  # noqa: E402
from rummy_env.serve.cli import main as serve_main  # noqa: E402

RAISING = "test_serve:RaisingAgent"


class RaisingAgent(Agent):
    """An agent whose fourth decision raises."""

    def start_game(self, seat, seed):
        super().start_game(seat, seed)
        self.decisions = 0

    def act(self, decision):
        self.decisions += 1
        if self.decisions > 3:
            raise RuntimeError("this agent is broken")
        return int(np.flatnonzero(decision.action_mask)[0])


@pytest.fixture
def client():
    app = create_app(checkpoints=None, agents=[RAISING], idle_seconds=600)
    with TestClient(app) as test_client:
        test_client.store = app.state.store
        yield test_client
    app.state.store.games.clear()


def new_game(client, **fields) -> tuple[str, dict[str, str]]:
    body = {"game": "three_thirteen", "num_players": 3, "seat": 0, "opponents": ["greedy"], "seed": 5, **fields}
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 200, answer.text
    game = answer.json()
    return game["id"], {"Authorization": f"Bearer {game['token']}"}


def test_a_game_is_dealt_as_the_aec_env_deals_it_and_answers_the_persons_turn(client):
    game_id, auth = new_game(client, game="contract_rummy", num_players=4, seat=None, opponents=["expert"], seed=17)
    view = client.get(f"/api/games/{game_id}/view", headers=auth).json()
    env = rummy_env.contract_rummy_v0.env(num_players=4)
    env.reset(seed=17)
    dealt = env.unwrapped.describe()
    assert view["hands"] == dealt["hands"] and view["discard"] == dealt["discard"] and view["legal"] == []
    game_id, auth = new_game(client, seat=1)  # agents play seat 0 first
    view = client.get(f"/api/games/{game_id}/view", headers=auth).json()
    assert view["to_act"] == "player_1" and view["legal"] == ["draw stock", "draw discard"]
    assert list(view["hands"]) == ["player_1"] and view["log"][0][:2] == [1, 0] and view["since"] == view["log"]
    after = client.post(f"/api/games/{game_id}/actions", json={"action": "draw stock"}, headers=auth).json()
    assert after["drawn"] and set(after["drawn"]) <= set(after["hands"]["player_1"])
    assert after["legal"] and all(text.startswith(("discard", "go out")) for text in after["legal"])


@pytest.mark.parametrize("body, status, named", [
    ({"game": "gin"}, 400, "unknown game 'gin'"),
    ({"opponents": ["grandmaster"]}, 400, "unknown agent 'grandmaster'"),
    ({"opponents": ["os:system"]}, 400, "unknown agent 'os:system'"),
    ({"num_players": 9}, 400, "played by 2, 3, 4 players, not 9"),
    ({"seat": 3}, 400, "seat must be 0..2"),
    ({"opponents": ["greedy", "greedy", "greedy"]}, 400, "opponents takes one agent spec"),
    ({"seed": "five"}, 422, "seed"),
    ({"rules": {"max_turns_per_round": "many"}}, 400, "max_turns_per_round"),
    ({"game": 3}, 422, "game"),
    ({"colour": "red"}, 422, "colour"),
])
def test_a_game_that_cannot_be_made_is_refused_with_its_reason(client, body, status, named):
    answer = client.post("/api/games", json={"game": "three_thirteen", "num_players": 3, **body})
    assert answer.status_code == status and named in answer.json()["error"], answer.text
    assert not client.store.games


def test_every_refusal_has_its_status_and_changes_nothing(client):
    game_id, auth = new_game(client)
    other_id, other_auth = new_game(client)
    url = f"/api/games/{game_id}"
    before = client.get(f"{url}/view", headers=auth).json()
    refusals = [
        (client.get(f"{url}/view"), 401, "needs the game's token"),
        (client.get(f"{url}/view", headers={"Authorization": "Basic abc"}), 401, "needs the game's token"),
        (client.get(f"{url}/view", headers=other_auth), 403, "not this game's"),
        (client.get(f"{url}/view", headers={"Authorization": "Bearer caf\u00e9".encode()}), 403, "not this game's"),
        (client.get("/api/games/nosuchgame/view", headers=auth), 404, "no game 'nosuchgame'"),
        (client.post(f"{url}/actions", json={"action": "discard 2C"}, headers=auth), 409, "is not legal now"),
        (client.post(f"{url}/actions", json={"action": "shuffle the deck"}, headers=auth), 409, "names no action"),
        (client.post(f"{url}/actions", json={"action": 3}, headers=auth), 422, "action"),
        (client.post(f"{url}/actions", json={}, headers=auth), 422, "Field required"),
        (client.post(f"{url}/actions", content=b"{not json", headers={**auth, "Content-Type": "application/json"}), 422,
         "malformed"),
        (client.post(f"{url}/actions", json={"action": "draw stock"}, headers=other_auth), 403, "not this game's"),
        (client.post(f"{url}/steps", json={"steps": 1}, headers=auth), 409, "a person plays in this game"),
        (client.get(f"{url}/recording", headers=auth), 409, "only a finished game"),
    ]
    for answer, status, named in refusals:
        assert answer.status_code == status and named in answer.json()["error"], answer.text
    illegal = next(answer.json() for answer, _, named in refusals if named == "is not legal now")
    assert illegal["legal"] == ["draw stock", "draw discard"]
    assert client.get(f"{url}/view", headers=auth).json() == before
    assert client.get(f"/api/games/{other_id}/view", headers=other_auth).json()["version"] == before["version"]


def test_two_games_at_once_keep_their_own_state(client):
    first, first_auth = new_game(client, seed=1)
    second, second_auth = new_game(client, seed=1)
    untouched = client.get(f"/api/games/{second}/view", headers=second_auth).json()
    client.post(f"/api/games/{first}/actions", json={"action": "draw stock"}, headers=first_auth)
    one = client.get(f"/api/games/{first}/view", headers=first_auth).json()
    two = client.get(f"/api/games/{second}/view", headers=second_auth).json()
    assert one["phase"] == "play" and two == untouched
    assert one["id"] != two["id"] and len(one["hands"]["player_0"]) == len(two["hands"]["player_0"]) + 1


def test_an_agent_that_raises_ends_its_game_and_not_the_server(client):
    broken, auth = new_game(client, seat=None, opponents=[RAISING, "greedy", "greedy"])
    fine, fine_auth = new_game(client)
    view = client.post(f"/api/games/{broken}/steps", json={"steps": 50}, headers=auth).json()
    assert view["over"] and "test_serve:RaisingAgent (seat 0) failed (RuntimeError)" in view["error"]
    assert "broken" not in json.dumps(view)  # the agent's own message stays in the server's log
    assert view["actions"] >= 3
    assert client.post(f"/api/games/{broken}/steps", json={"steps": 1}, headers=auth).json()["actions"] == view["actions"]
    assert client.post(f"/api/games/{fine}/actions", json={"action": "draw stock"}, headers=fine_auth).status_code == 200



@pytest.mark.slow
def test_the_shipped_checkpoints_are_offered_and_play(client):
    """Every checkpoint under --checkpoints is offered; a shipped one plays its seats."""
    pytest.importorskip("torch", reason="a checkpoint plays through the trainer (the train extra)")
    folder = Path(__file__).resolve().parent.parent / "checkpoints"
    app = create_app(checkpoints=folder)
    with TestClient(app) as with_checkpoints:
        offered = with_checkpoints.get("/api/options").json()["agents"]
        assert {"checkpoints/three_thirteen.pt", "checkpoints/scratch/three_thirteen.pt"} <= {
            str(Path(a).relative_to(folder.parent)) for a in offered if a.endswith(".pt")}
        spec = str(folder / "scratch" / "three_thirteen.pt")
        game_id, auth = new_game(with_checkpoints, num_players=4, seat=None, opponents=[spec])
        view = with_checkpoints.post(f"/api/games/{game_id}/steps", json={"steps": 30}, headers=auth).json()
        assert view["error"] is None and view["actions"] == 30 and view["players"] == [spec] * 4
        unfit = with_checkpoints.post("/api/games", json={"game": "three_thirteen", "num_players": 3, "opponents": [spec]})
        assert unfit.status_code == 400 and "cannot play seat 1" in unfit.json()["error"]
        assert "observation_size" in unfit.json()["error"]
    app.state.store.games.clear()

def test_an_idle_game_is_cleaned_up(client):
    game_id, auth = new_game(client)
    client.store.games[game_id].used -= 601
    answer = client.get(f"/api/games/{game_id}/view", headers=auth)
    assert answer.status_code == 404 and "idle" in answer.json()["error"] and not client.store.games


def test_idle_games_are_swept_without_a_request():
    app = create_app(checkpoints=None, idle_seconds=0.2)
    with TestClient(app) as quiet:
        new_game(quiet)
        time.sleep(0.5)  # the sweep runs every idle_seconds / 2
        assert not app.state.store.games


def play_out(client, game_id, auth, choose=lambda legal: legal[0]) -> list[tuple[int, dict]]:
    """Plays the person's seat to the game's end (``choose`` picks among the legal actions);
    every answer the seat got, as (status, JSON)."""
    answers = []
    view = client.get(f"/api/games/{game_id}/view", headers=auth).json()
    answers.append((200, view))
    while not view["over"]:
        answer = client.post(f"/api/games/{game_id}/actions", json={"action": choose(view["legal"])}, headers=auth)
        view = answer.json()
        answers.append((answer.status_code, view))
    return answers


def test_a_finished_game_downloads_as_a_recording_that_replays_and_opens_as_a_page(client):
    game_id, auth = new_game(client, num_players=2, opponents=["expert"], rules={"max_turns_per_round": 6})
    answers = play_out(client, game_id, auth)
    assert all(status == 200 for status, _ in answers)
    final = answers[-1][1]
    assert final["result"] and len(final["rounds"]) == 11 and "hand" not in final
    download = client.get(f"/api/games/{game_id}/recording", headers=auth)
    assert download.status_code == 200 and "attachment" in download.headers["content-disposition"]
    record = json.loads(download.text)
    assert record["players"] == ["person", "expert"] and replay(record).scores == final["result"]["scores"]
    assert len(record["actions"]) == final["actions"]
    page = client.post("/api/replays", content=download.text)
    assert page.status_code == 200 and 'id="replay-data"' in page.text
    refused = client.post("/api/replays", content=b"not a recording")
    assert refused.status_code == 422 and "not a recording" in refused.json()["error"]


def test_the_live_stream_sends_the_view_as_it_changes(client):
    game_id, auth = new_game(client, num_players=2, seat=None, opponents=["greedy"], rules={"max_turns_per_round": 4})
    token = auth["Authorization"].split()[1]
    assert client.get(f"/api/games/{game_id}/live?token=wrong").status_code == 403
    while not client.post(f"/api/games/{game_id}/steps", json={"steps": 100}, headers=auth).json()["over"]:
        pass
    with client.stream("GET", f"/api/games/{game_id}/live?token={token}") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        events = [json.loads(line[len("data: "):]) for line in stream.iter_lines() if line.startswith("data: ")]
    assert len(events) == 1 and events[0]["over"] and events[0]["id"] == game_id  # a finished game's stream ends


@pytest.mark.parametrize("args, named", [
    (["--agent", "nosuch:Agent"], "--agent nosuch:Agent"),
    (["--port", "-1"], "argument --port: expected an integer of at least 0"),
    (["--port", "{busy}"], "cannot listen on 127.0.0.1:"),
    (["--checkpoints", "no/such/folder"], "--checkpoints no/such/folder is not a folder"),
])
def test_the_command_line_refuses_bad_input_in_one_line(capsys, args, named):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        with pytest.raises(SystemExit) as stop:
            serve_main([a.replace("{busy}", port) for a in args])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"rummy-serve: error: {named}"), err


# ---------------------------------------------------------------- hidden information
CARD_WORD = re.compile(r"[A-Za-z0-9]+")
REPRESENTS = re.compile(r'"represents": ?\[[^\]]*\]')


class Scan:
    """Everything a seat is sent, scanned for cards it cannot see: at each answer, the faces
    whose every copy is in another hand or the stock and none of whose copies the seat has
    ever seen (in its hand, the pile, the table, an action played face up, a round's shown
    hands, a buy question); no answer may name one. ``checked`` counts the (answer, hidden face) pairs looked at."""

    def __init__(self, game) -> None:
        self.game, self.public, self.checked = game, set(), 0

    def see(self, answer_text: str, view: dict | None) -> None:
        raw, seat = self.game.raw, self.game.seat
        cards = raw.engine.card_set
        state = raw.game_state
        if view is not None:  # what the seat has been shown is public to it from now on
            self.public |= set(view.get("hands", {}).get(raw.possible_agents[seat], []))
            self.public |= set(view["discard"]) | {c for m in view["melds"] for c in m["cards"]}
            self.public |= {w for _, _, text, _ in view["log"] + view["since"] for w in text.split()}  # cards played face up
            self.public |= {c for r in view["rounds"] for h in r["hands"] for c in [*sum(h["melds"], []), *h["loose"]]}
            for key in ("taken_from_discard", "must_place"):
                if view.get(key):
                    self.public.add(view[key])
            if view.get("buy_question"):
                self.public.add(view["buy_question"]["card"])
        stock = set(state.stock)
        hidden = {cards.format(f) for f in range(len(state.hands[0]))
                  if f in stock or any(hand[f] for s, hand in enumerate(state.hands) if s != seat)}
        secret = hidden - self.public
        # a run's "represents" names the places its wilds stand for, not cards
        words = set(CARD_WORD.findall(REPRESENTS.sub("", answer_text)))
        leaked = sorted(secret & words)
        assert not leaked, f"sent to seat {seat}: {leaked} in ...{answer_text[max(0, answer_text.find(leaked[0]) - 200):][:400]}"
        self.checked += len(secret)


def scan_whole_game(client, game: str, players: int, opponents: list[str], seed: int) -> Scan:
    game_id, auth = new_game(client, game=game, num_players=players, seat=1, opponents=opponents, seed=seed)
    served = client.store.games[game_id]
    scan = Scan(served)
    token = auth["Authorization"].split()[1]
    rng = np.random.default_rng(seed)
    view = client.get(f"/api/games/{game_id}/view", headers=auth).json()
    scan.see(json.dumps(view), view)
    while not view["over"]:
        refused = client.post(f"/api/games/{game_id}/actions", json={"action": "discard nothing"}, headers=auth)
        scan.see(refused.text, None)
        legal = view["legal"]
        answer = client.post(f"/api/games/{game_id}/actions", json={"action": legal[rng.integers(len(legal))]},
                             headers=auth)
        view = answer.json()
        scan.see(answer.text, view)
    assert view["error"] is None and len(view["rounds"]) == served.raw.rules.num_rounds
    with client.stream("GET", f"/api/games/{game_id}/live?token={token}") as stream:
        scan.see("".join(stream.iter_lines()), None)
    scan.see(client.get("/").text, None)
    return scan


def test_nothing_sent_to_a_seat_names_a_card_it_cannot_see(client):
    scan = scan_whole_game(client, "three_thirteen", 3, ["expert"], seed=3)
    assert scan.checked > 1000


@pytest.mark.slow
@pytest.mark.parametrize("game", list(rummy_env.GAMES))
def test_nothing_sent_to_a_seat_in_a_whole_game_names_a_card_it_cannot_see(client, game):
    players = rummy_env.GAMES[game].default_players
    scan = scan_whole_game(client, game, players, ["expert", "greedy", "random"][:players - 1], seed=11)
    assert scan.checked > 300
