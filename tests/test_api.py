"""PettingZoo registration and spaces, configuration errors, illegal actions, rendering and
action text for ``rummy_env.three_thirteen_v0`` (env spec: the module docstring; rules:
docs/rules/three_thirteen.md). What every game shares (``api_test``, ``seed_test``, call
order, action text round trips, bad actions, rendering, determinism, snapshots, reward
modes) is tested once in ``test_env_common.py`` and ``test_api_common.py``."""

from __future__ import annotations

import numpy as np
import pytest

import rummy_env
from rummy_env import three_thirteen_v0

PLAYERS = (2, 3, 4)
NUM_ACTIONS = 106  # 2 draws + 52 discards + 52 go outs (docstring, "Action space")
OBS_SIZE = {2: 350, 3: 407, 4: 464}  # docstring, "Observation Shape"


# ---------------------------------------------------------------- registration
def test_registered_with_pettingzoo_make():
    import pettingzoo

    env = pettingzoo.make("aec", "rummy/three_thirteen-v0")
    env.reset(seed=3)
    assert env.possible_agents == [f"player_{i}" for i in range(4)]
    assert env.unwrapped.rules.game == "three_thirteen"
    obs, reward, term, trunc, info = env.last()
    assert obs["observation"].shape == (OBS_SIZE[4],)
    assert obs["action_mask"].shape == (NUM_ACTIONS,)
    env2 = pettingzoo.make("aec", "rummy/three_thirteen-v0", num_players=2)
    env2.reset(seed=3)
    assert env2.possible_agents == ["player_0", "player_1"]
    assert rummy_env.__version__


@pytest.mark.parametrize("n", PLAYERS)
def test_spaces_match_docstring(n):
    env = three_thirteen_v0.env(num_players=n)
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(n)]
    for a in env.possible_agents:
        space = env.observation_space(a)
        assert space["observation"].shape == (OBS_SIZE[n],)
        assert space["observation"].dtype == np.float32
        assert space["action_mask"].shape == (NUM_ACTIONS,)
        assert space["action_mask"].dtype == np.int8
        obs = env.observe(a)
        assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (OBS_SIZE[n],)
        assert obs["action_mask"].dtype == np.int8
    assert env.unwrapped.observer.size == OBS_SIZE[n]
    offsets = env.unwrapped.observer.offsets
    table = _docstring_observation_table(n)
    assert [name for name, _ in table] == list(offsets), "observation parts differ from the docstring table"
    for name, size in table:
        sl = offsets[name]
        assert sl.stop - sl.start == size, f"part {name}: docstring says {size}, layout has {sl.stop - sl.start}"
    assert sum(size for _, size in table) == OBS_SIZE[n]


def _docstring_observation_table(n: int) -> list[tuple[str, int]]:
    """``(part, size)`` rows of the docstring's observation table, sizes evaluated for n."""
    doc = three_thirteen_v0.__doc__
    section = doc[doc.index("## Observation"):doc.index("## Rewards")]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("part", "") or set(cells[0]) <= set("-"):
            continue
        size = cells[1].replace(" (n-1)", " * (n - 1)").replace("n", str(n))
        rows.append((cells[0], eval(size, {})))
    return rows


# ---------------------------------------------------------------- configuration errors
@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"num_players": 1}, ["2 to 4 players", "1"]),
        ({"num_players": 5}, ["2 to 4 players", "5"]),
        ({"num_players": "x"}, ["2 to 4 players", "'x'"]),
        ({"num_players": 2.0}, ["2 to 4 players"]),
        ({"num_players": True}, ["2 to 4 players"]),
        ({"reward_mode": "foo"}, ["reward_mode", "foo"]),
        ({"render_mode": "foo"}, ["render_mode", "foo"]),
        ({"max_turns_per_round": 0}, ["max_turns_per_round", "0"]),
        ({"max_turns_per_round": -3}, ["max_turns_per_round"]),
        ({"max_turns_per_round": 2.5}, ["max_turns_per_round"]),
        ({"num_decks": 0}, ["num_decks"]),
        ({"num_decks": "two"}, ["num_decks"]),
        ({"colour": "red"}, ["bad configuration", "colour"]),
        # 4 x 13 + 1 upcard = 53 cards > 52
        ({"num_players": 4, "num_decks": 1}, ["4 players", "13 cards", "53", "52"]),
    ],
)
def test_bad_configuration_raises_value_error(kwargs, words):
    with pytest.raises(ValueError) as info:
        three_thirteen_v0.env(**kwargs)
    message = str(info.value)
    for word in words:
        assert word in message, f"{message!r} should mention {word!r}"


def test_bad_configuration_through_make():
    import pettingzoo

    with pytest.raises(ValueError, match="2 to 4 players"):
        pettingzoo.make("aec", "rummy/three_thirteen-v0", num_players=5)


@pytest.mark.parametrize("n, decks", [(2, 1), (3, 1), (2, 2), (4, 2), (4, 3)])
def test_dealable_configurations_accepted(n, decks):
    env = three_thirteen_v0.env(num_players=n, num_decks=decks)
    env.reset(seed=1, options={"round": 11})
    raw = env.unwrapped
    assert sum(raw.rules.deck.face_counts()) == 52 * decks
    assert all(size == 13 for size in raw.game_state.hand_sizes)


@pytest.mark.parametrize("n, decks", [(2, 1), (3, 2), (4, 2)])
def test_default_deck_count(n, decks):
    assert three_thirteen_v0.raw_env(num_players=n).rules.deck.num_decks == decks


def test_bad_reset_options_raise_value_error():
    env = three_thirteen_v0.env(num_players=2)
    for options in ({"round": 0}, {"round": 12}, {"dealer": 2}, {"scores": [1]},
                    {"deck": ["AC"] * 52}, {"scores": {"player_0": 0}}):
        with pytest.raises(ValueError):
            env.reset(seed=0, options=options)


# ---------------------------------------------------------------- rendering
@pytest.mark.parametrize("n", PLAYERS)
def test_render_ansi_returns_text(n):
    env = three_thirteen_v0.env(num_players=n, render_mode="ansi")
    env.reset(seed=5)
    text = env.render()
    assert isinstance(text, str) and text
    for a in env.possible_agents:
        assert a in text
    assert "three_thirteen" in text and "round 1/11" in text
    raw = env.unwrapped
    cur = raw.agent_selection
    for card in raw.describe()["hands"][cur]:
        assert card in text


# ---------------------------------------------------------------- illegal actions
# ---------------------------------------------------------------- action space and text
def test_action_text_follows_the_docstring():
    """Every id's text round-trips in test_api_common.py; these are the docstring's ids."""
    raw = three_thirteen_v0.raw_env(num_players=2)
    assert raw.action_to_text(0) == "draw stock"
    assert raw.action_to_text(1) == "draw discard"
    assert raw.action_to_text(2) == "discard AC"
    assert raw.action_to_text(2 + 51) == "discard KS"
    assert raw.action_to_text(54) == "go out AC"
    assert raw.action_to_text(105) == "go out KS"
    # face = suit * 13 + rank, suits C, D, H, S and ranks A, 2, ..., T, J, Q, K
    assert raw.text_to_action("discard 7H") == 2 + 2 * 13 + 6
    assert raw.text_to_action("go out TD") == 54 + 13 + 9
    assert raw.text_to_action("go out 10D") == 54 + 13 + 9


@pytest.mark.parametrize("garbage", ["fly away", "discard ZZ", "", "go out", "   ", "discard", "draw",
                                     "draw deck", "go out 7H 8H", "discard 1H", "discard 7X",
                                     "go away 7H", "discard JK", "7H"])
def test_text_to_action_rejects_garbage(garbage):
    raw = three_thirteen_v0.raw_env(num_players=2)
    with pytest.raises(ValueError):
        raw.text_to_action(garbage)


def _deck_with(cards_at: dict[int, str]) -> list[str]:
    """A one-deck order with the given cards at the given positions, the rest in order."""
    every = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    rest = [c for c in every if c not in cards_at.values()]
    return [cards_at[i] if i in cards_at else rest.pop(0) for i in range(52)]


def test_legal_actions_ascending():
    """``Engine.legal_actions`` promises ascending ids. (At commit 05e63cd the go-out ids came
    in the solver's group order, [..., 103, 93] here, unless a wild could be left out.)"""
    env = three_thirteen_v0.env(num_players=2)
    # Round 4 (6 cards, 6s wild), dealer player_1: player_0 is dealt deck[0, 2, ..., 10] and
    # draws deck[13], holding 6H TH JH QH AS 6S JS; both AS and JS may be discarded to go out.
    deck = _deck_with({0: "6H", 2: "TH", 4: "JH", 6: "QH", 8: "AS", 10: "6S", 13: "JS"})
    env.reset(seed=0, options={"round": 4, "dealer": 1, "deck": deck})
    env.step(0)
    raw = env.unwrapped
    legal = raw.engine.legal_actions(raw.game_state)
    assert {raw.text_to_action("go out AS"), raw.text_to_action("go out JS")} <= set(legal)
    assert legal == sorted(legal)
