"""Recording and replay (rummy_env.recording, docs/recording.md): a game of every registered
game, recorded through the wrapper with a mix of baselines, replays exactly from its JSON
line; a record that departs from its game is refused naming the step; the wrapper records
whole games only, and is a PettingZoo env like any other."""

from __future__ import annotations

import copy
import json
import warnings

import pytest
from pettingzoo.test import api_test

import rummy_env
from rummy_env.agents import make_agent, play_game
from rummy_env.recording import (
    FORMAT,
    RecordError,
    RecordingWrapper,
    ReplayError,
    read_records,
    record_line,
    recording_file,
    replay,
    replay_steps,
)

MIXES = {  # spec per seat: every baseline plays in every game, whole games at the default rules
    "three_thirteen": ["greedy", "random", "expert", "greedy"],
    "contract_rummy": ["expert", "greedy", "random", "expert"],
    "toonerville_rook": ["random", "expert", "greedy", "greedy"],
    "contract_rummy_quick": ["greedy", "expert", "greedy", "random"],
}


def record_game(game: str, specs: list[str], seed: int = 5, **env_kwargs) -> tuple[dict, object]:
    """One game of ``specs`` recorded through the wrapper: its record and ``play_game``'s result."""
    env = RecordingWrapper(rummy_env.GAMES[game].env(num_players=len(specs), **env_kwargs), players=specs)
    result = play_game(env, [make_agent(spec) for spec in specs], seed)
    (record,) = env.records
    return record, result


@pytest.fixture(scope="module")
def records() -> dict[str, tuple[dict, object]]:
    return {game: record_game(game, MIXES.get(game, ["greedy", "random", "expert", "greedy"]))
            for game in rummy_env.GAMES}


def test_every_registered_game_has_a_mix():
    assert set(MIXES) == set(rummy_env.GAMES)  # a new game gets the default mix: add it here


@pytest.mark.parametrize("game", rummy_env.GAMES)
def test_a_recorded_game_replays_exactly_from_its_json_line(game, records):
    record, result = records[game]
    assert record["format"] == FORMAT and record["game"] == game
    assert record["env"] == {"num_players": 4, "rules": {}, "reward_mode": "relative"}
    assert record["players"] == MIXES[game] and record["options"] is None
    assert len(record["actions"]) == sum(result.decisions)
    assert record["result"] == {"scores": result.scores, "round_penalties": result.round_penalties,
                                "winners": result.winners}
    layout = rummy_env.GAMES[game].env().unwrapped.layout
    assert all(a["text"] == layout.text(a["action"]) for a in record["actions"])
    line = record_line(record)
    assert line.endswith("\n") and "\n" not in line[:-1]
    assert replay(json.loads(line)) == result  # scores, penalties, winners, and decisions per seat


def test_replay_steps_yield_the_deal_then_every_action():
    record, _ = record_game("three_thirteen", ["greedy", "random"], max_turns_per_round=8)
    steps = [(step, env.describe()["turns"], env.describe()["round"]) for step, env in replay_steps(record)]
    assert [s for s, _, _ in steps] == list(range(len(record["actions"]) + 1))
    assert steps[0][1:] == (0, 1) and steps[-1][2] == 11


def test_the_rules_and_reward_mode_are_recorded_and_rebuilt():
    record, result = record_game("toonerville_rook", ["random", "greedy", "random"], max_turns_per_round=6,
                                 max_buys_per_round=1, reward_mode="win")
    assert record["env"] == {"num_players": 3, "rules": {"max_turns_per_round": 6, "max_buys_per_round": 1},
                             "reward_mode": "win"}
    assert replay(record) == result


def test_a_game_dealt_from_the_env_stream_records_the_seed_it_drew():
    env = RecordingWrapper(rummy_env.GAMES["contract_rummy"].env(max_turns_per_round=6))
    agents = [make_agent("random") for _ in range(4)]
    play_game(env, agents, seed=11)
    play_game(env, agents, seed=None)  # the env's next game: its drawn seed is recorded
    first, second = env.records
    assert first["seed"] == 11 and second["seed"] != 11
    assert first["players"] == [f"player_{s}" for s in range(4)]
    replay(first), replay(second)


def test_scenario_options_are_recorded_and_dealt_again():
    env = RecordingWrapper(rummy_env.GAMES["three_thirteen"].env(num_players=2, max_turns_per_round=5))
    options = {"dealer": 1, "round": 10, "scores": [30, 40]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unknown key is ignored with a warning, and not recorded
        result = play_game(env, [make_agent("greedy"), make_agent("random")], 3, options={**options, "x": 1})
    (record,) = env.records
    assert record["options"] == options
    assert len(record["result"]["round_penalties"]) == 2
    assert replay(record).scores == result.scores


def test_only_whole_games_are_recorded_and_illegal_actions_are_not():
    env = RecordingWrapper(rummy_env.GAMES["three_thirteen"].env(num_players=2, max_turns_per_round=3))
    env.reset(seed=1)
    env.step(0)
    with pytest.raises(rummy_env.IllegalActionError):
        env.step(0)  # a second draw
    env.reset(seed=2)  # the unfinished game is dropped
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(obs["action_mask"].nonzero()[0][0]))
    (record,) = env.records
    assert record["seed"] == 2 and all(a["action"] is not None for a in record["actions"])
    replay(record)
    env.players = ["one", "two", "three"]
    with pytest.raises(ValueError, match="players names 3 seats, but the game has 2"):
        env.reset(seed=3)
    assert env.unwrapped.game_seed == 2  # refused before the env was reset


def test_the_wrapper_passes_pettingzoos_api_test():
    env = RecordingWrapper(rummy_env.GAMES["three_thirteen"].env(num_players=2, max_turns_per_round=6))
    with pytest.warns(UserWarning, match="reset ignores the unknown option"):
        api_test(env, num_cycles=300)
    assert env.records and all(record["options"] is None for record in env.records)
    for record in env.records:
        replay(record)


# ---------------------------------------------------------------- records that do not replay
def tampered(record: dict, change) -> dict:
    copied = copy.deepcopy(record)
    change(copied)
    return copied


def first_step_of(record: dict, text_start: str) -> int:
    return next(i for i, a in enumerate(record["actions"]) if a["text"].startswith(text_start))


def test_a_changed_action_is_refused_naming_its_step(records):
    record, _ = records["contract_rummy"]
    layout = rummy_env.GAMES["contract_rummy"].env().unwrapped.layout
    i = first_step_of(record, "discard")
    other = layout.parse("discard JK") if record["actions"][i]["text"] != "discard JK" else layout.parse("discard AC")

    def change(r):
        r["actions"][i].update(action=other, text=layout.text(other))  # consistent, but a card not held

    total = len(record["actions"])
    with pytest.raises(ReplayError, match=rf"^step {i + 1} of {total}: illegal action {other} "):
        replay(tampered(record, change))


@pytest.mark.parametrize("change, message", [
    (lambda r: r["actions"][3].update(text="discard 2C"), r"^step 4 of \d+: action \d+ is '.*', but the record says 'discard 2C'"),
    (lambda r: r["actions"][0].update(seat=(r["actions"][0]["seat"] + 1) % 4), r"^step 1 of \d+: the record has seat \d acting, but player_\d is to act"),
    (lambda r: r["actions"][5].update(action=10**6), r"^step 6 of \d+: action 1000000 is outside the action space"),
    (lambda r: r["actions"].pop(), r"after all \d+ recorded actions the game is not over: the record is cut short"),
    (lambda r: r["actions"].append(dict(r["actions"][-1])), r"^step \d+ of \d+: the game is already over"),
    (lambda r: r["result"]["scores"].reverse(), r"the replayed scores \[.*\] differ from the recorded"),
    (lambda r: r["result"].update(winners=[]), r"the replayed winners"),
])
def test_a_record_that_departs_from_its_game_is_refused(records, change, message):
    record, _ = records["three_thirteen"]
    with pytest.raises(ReplayError, match=message):
        replay(tampered(record, change))


@pytest.mark.parametrize("change, message", [
    (lambda r: r.pop("format"), "not a rummy_env recording"),
    (lambda r: r.update(format="rummy_env-record-99"), "record format 'rummy_env-record-99' is not one this version reads"),
    (lambda r: r.update(game="gin"), "the record's game 'gin' is not one of three_thirteen"),
    (lambda r: r.pop("seed"), "the record's 'seed' is missing"),
    (lambda r: r["actions"][2].pop("text"), "step 3: an action is"),
    (lambda r: r["env"].update(num_players=9), "the record's env options do not build three_thirteen"),
    (lambda r: r["result"].pop("winners"), "'result' needs"),
])
def test_data_that_is_not_a_record_is_refused(records, change, message):
    record, _ = records["three_thirteen"]
    with pytest.raises(RecordError, match=message):
        replay(tampered(record, change))


# ---------------------------------------------------------------- files
def test_a_recording_file_is_written_whole_or_not_at_all(tmp_path, records):
    path = tmp_path / "games.jsonl"
    with recording_file(path) as write:
        for record, _ in records.values():
            write(record)
    assert [n for n, _ in read_records(path)] == [1, 2, 3, 4]
    assert [r for _, r in read_records(path)] == [record for record, _ in records.values()]
    failed = tmp_path / "failed.jsonl"
    with pytest.raises(RuntimeError):
        with recording_file(failed) as write:
            write(records["three_thirteen"][0])
            raise RuntimeError("the run stopped")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.jsonl"]


def test_reading_a_file_that_is_not_a_recording_names_the_line(tmp_path, records):
    path = tmp_path / "bad.jsonl"
    path.write_text(record_line(records["three_thirteen"][0]) + "\n" + '{"format": 1}\n')
    with pytest.raises(RecordError, match=r"bad.jsonl, line 3: record format 1 is not one"):
        list(read_records(path))
    path.write_text("hello\n")
    with pytest.raises(RecordError, match=r"bad.jsonl, line 1: not JSON .*: not a recording"):
        list(read_records(path))
