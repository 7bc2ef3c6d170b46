"""PettingZoo registration, spaces and the docstring's tables, configuration errors, illegal
actions, action text, rendering, determinism and state snapshots for
``rummy_env.contract_rummy_v0`` (env spec: the module docstring; rules:
docs/rules/contract_rummy.md). What every game shares (``api_test``, ``seed_test``, call
order, action text round trips, bad actions, rendering, determinism, snapshots, reward
modes) is tested once in ``test_env_common.py`` and ``test_api_common.py``."""

from __future__ import annotations

import re
from itertools import combinations

import numpy as np
import pytest
from docstring_tables import eval_size, observation_table, table_rows
from gymnasium import spaces

import rummy_env
from rummy_env import IllegalActionError, contract_rummy_v0

PLAYERS = (3, 4, 5, 8)
NUM_ACTIONS = {3: 1522, 4: 1837, 5: 2282, 8: 3227}  # docstring, "Action Values"
RANKS = "A23456789TJQK"
SUITS = "CDHS"


def obs_size(n: int) -> int:
    return 3 * n * n + 379 * n + 1290  # docstring, "Observation Shape"


def _random_legal(obs: dict, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


# ---------------------------------------------------------------- registration
def test_registered_with_pettingzoo_make():
    import pettingzoo

    env = pettingzoo.make("aec", "rummy/contract_rummy-v0")
    env.reset(seed=3)
    assert env.possible_agents == [f"player_{i}" for i in range(4)]
    assert env.unwrapped.rules.game == "contract_rummy"
    obs, *_ = env.last()
    assert obs["observation"].shape == (obs_size(4),)
    assert obs["action_mask"].shape == (NUM_ACTIONS[4],)
    env8 = pettingzoo.make("aec", "rummy/contract_rummy-v0", num_players=8)
    env8.reset(seed=3)
    assert env8.possible_agents == [f"player_{i}" for i in range(8)]
    assert env8.action_space("player_7").n == NUM_ACTIONS[8]
    assert rummy_env.__version__


# ---------------------------------------------------------------- spaces and the docstring
@pytest.mark.parametrize("n", PLAYERS)
def test_spaces_match_docstring(n):
    env = contract_rummy_v0.env(num_players=n)
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(n)]
    size = obs_size(n)
    for a in env.possible_agents:
        space = env.observation_space(a)
        assert isinstance(space, spaces.Dict) and set(space.spaces) == {"observation", "action_mask"}
        assert space["observation"].shape == (size,) and space["observation"].dtype == np.float32
        assert space["action_mask"].shape == (NUM_ACTIONS[n],) and space["action_mask"].dtype == np.int8
        assert env.action_space(a) == spaces.Discrete(NUM_ACTIONS[n])
        obs = env.observe(a)
        assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (size,)
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (NUM_ACTIONS[n],)
        assert space.contains(obs)
        assert obs["observation"].min() >= 0  # "Observation Values: [0, inf)"
    raw = env.unwrapped
    assert raw.observer.size == size and raw.layout.size == NUM_ACTIONS[n]


def test_docstring_header_numbers():
    doc = contract_rummy_v0.__doc__
    values = re.search(r"Action Values\s*\|\s*Discrete\(A\):([^|]*)for 3 / 4 / 5 / 8 players", doc).group(1)
    assert [int(v.replace(",", "")) for v in values.split("/")] == [NUM_ACTIONS[n] for n in PLAYERS]
    shape = re.search(r"Observation Shape\s*\|\s*\(3n² \+ 379n \+ 1290,\):([^|]*)for 3 / 4 / 5 / 8 players", doc)
    assert [int(v.replace(",", "")) for v in shape.group(1).split("/")] == [obs_size(n) for n in PLAYERS]
    assert "n = 3..8 (default 4)" in doc


@pytest.mark.parametrize("n", PLAYERS)
def test_observation_table_matches_offsets(n):
    offsets = contract_rummy_v0.raw_env(num_players=n).observer.offsets
    table = observation_table(contract_rummy_v0, n)
    assert [name for name, _ in table] == list(offsets), "observation parts differ from the docstring table"
    start = 0
    for name, size in table:
        sl = offsets[name]
        assert (sl.start, sl.stop - sl.start) == (start, size), f"part {name}: docstring says {size} at {start}"
        start += size
    assert start == obs_size(n)


def _docstring_action_table(n: int, jokers: int) -> list[tuple[str, int, int]]:
    """``(block, offset for 4 players, size for n players)`` rows of the docstring's table."""
    doc = contract_rummy_v0.__doc__
    section = doc[doc.index("## Action space"):doc.index("## Action mask")]
    rows = []
    for name, offset, size, _ in table_rows(section, 4):
        name, offset = name.strip("`"), int(offset)
        if size.startswith("13 x 5 / 15 / 25"):
            value = 13 * (5, 15, 25)[min(jokers, 2)]
        else:
            value = eval_size(size, M=3 * n, D=20)
        rows.append((name, offset, value))
    return rows


@pytest.mark.parametrize("n", PLAYERS)
def test_action_table_matches_layout(n):
    raw = contract_rummy_v0.raw_env(num_players=n)
    jokers = raw.rules.deck.num_jokers
    assert jokers == (1 if n <= 4 else 2)
    rows = _docstring_action_table(n, jokers)
    assert [r[0] for r in rows[:2]] == ["draw_stock", "draw_discard"]
    assert raw.action_to_text(0) == "draw stock" and raw.action_to_text(1) == "draw discard"
    blocks = raw.layout.blocks
    assert [r[0] for r in rows[2:]] == list(blocks)
    start = 2
    for name, offset_4p, size in rows[2:]:
        assert blocks[name].size == size, f"block {name}: docstring size {size}, layout {blocks[name].size}"
        assert blocks[name].start == start
        if n == 4:
            assert offset_4p == start, f"block {name}: docstring offset {offset_4p}, layout {start}"
        start += size
    assert start == raw.layout.size == NUM_ACTIONS[n]


def _face(card: str) -> int:
    return 52 if card == "JK" else SUITS.index(card[1]) * 13 + RANKS.index(card[0])


@pytest.mark.parametrize("n", PLAYERS)
def test_action_ids_and_text_follow_the_docstring(n):
    raw = contract_rummy_v0.raw_env(num_players=n)
    blocks, M = raw.layout.blocks, 3 * n
    text = raw.action_to_text
    assert [text(blocks["deep_draw"].start + k) for k in range(19)] == [f"draw discard {d}" for d in range(2, 21)]
    # faces are suit * 13 + rank, AC = 0, KS = 51, JK = 52
    every = [r + s for s in SUITS for r in RANKS] + ["JK"]
    assert [text(blocks["discard"].start + f) for f in range(53)] == [f"discard {c}" for c in every]
    for card in ("AC", "7H", "KS", "JK", "TD"):
        for slot in (0, 1, M - 1):
            assert raw.text_to_action(f"lay off {card} on {slot}") == blocks["lay_off"].start + slot * 53 + _face(card)
            if card != "JK":
                assert raw.text_to_action(f"swap {card} on {slot}") == blocks["swap"].start + slot * 52 + _face(card)
    assert text(blocks["lay_off"].stop - 1) == f"lay off JK on {M - 1}"
    assert text(blocks["swap"].stop - 1) == f"swap KS on {M - 1}"
    # meld_set: rank by rank, every set of 1-4 distinct suits with 0-2 jokers (at most the
    # game's) making 3 or 4 cards, suits in the order C D H S, then +w
    jokers = raw.rules.deck.num_jokers
    sets = [text(a) for a in range(blocks["meld_set"].start, blocks["meld_set"].stop)]
    expected = {
        f"meld set {r} {''.join(c)}" + (f" +{w}" if w else "")
        for r in RANKS for k in range(1, 5) for c in combinations(SUITS, k) for w in range(min(2, jokers) + 1)
        if 3 <= k + w <= 4
    }
    assert len(sets) == len(expected) and set(sets) == expected
    assert [RANKS.index(s.split()[2]) for s in sets] == sorted(RANKS.index(s.split()[2]) for s in sets)
    # meld_run: suit by suit, spans of positions 0 (ace low) .. 13 (ace high), length 3..13, not both aces
    runs = [text(a) for a in range(blocks["meld_run"].start, blocks["meld_run"].stop)]
    position = list(RANKS) + ["A"]
    expected_runs = [f"meld run {s} {position[lo]} {position[hi]}" for s in SUITS for lo in range(14)
                     for hi in range(lo + 2, min(13, lo + 12) + 1) if not (lo == 0 and hi == 13)]
    assert runs == expected_runs
    assert {"meld run S A 3", "meld run S Q A", "meld run H A K", "meld run H 2 A"} <= set(runs)
    assert "meld run S A A" not in runs and "meld run S K 2" not in runs


def test_lenient_action_text():
    """Every id's text round-trips in test_api_common.py; these are the spellings it also reads."""
    raw = contract_rummy_v0.raw_env(num_players=3)
    assert raw.action_to_text(np.int64(5)) == "draw discard 5"
    assert raw.text_to_action("discard 10H") == raw.text_to_action("discard TH")
    assert raw.text_to_action("meld set 7 SHD") == raw.text_to_action("meld set 7 DHS")
    assert raw.text_to_action("meld set 7 hs +1") == raw.text_to_action("meld set 7 HS +1")
    assert raw.text_to_action("meld run s 10 a") == raw.text_to_action("meld run S T A")


@pytest.mark.parametrize("garbage", [
    "", "   ", "fly away", "draw", "draw deck", "draw discard 1", "draw discard 21", "draw discard x",
    "discard", "discard ZZ", "discard 1H", "discard 7X", "discard JK JK", "go out 7H",
    "meld set 7", "meld set 7 DH", "meld set 7 DHSC +1", "meld set 7 DDH", "meld set 7 DH +0", "meld set 7 D +3",
    "meld set 7 DH +x", "meld set JK DHS", "meld run H 3 4", "meld run S A A", "meld run S K 2", "meld run X 3 6",
    "meld run H 3", "lay off 7H", "lay off 7H on 12", "lay off 7H on x", "lay off 7H to 2", "swap JK on 0",
    "swap 7H on 12", "swap 7H", "7H", "meld set 7 DHS extra",
])
def test_text_to_action_rejects_malformed_text(garbage):
    raw = contract_rummy_v0.raw_env(num_players=4)  # 12 meld slots: 0..11
    with pytest.raises(ValueError):
        raw.text_to_action(garbage)


# ---------------------------------------------------------------- configuration errors
@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"num_players": 2}, ["3 to 8 players", "2"]),
        ({"num_players": 9}, ["3 to 8 players", "9"]),
        ({"num_players": "4"}, ["3 to 8 players", "'4'"]),
        ({"num_players": 4.0}, ["3 to 8 players"]),
        ({"num_players": True}, ["3 to 8 players"]),
        ({"num_jokers": -1}, ["num_jokers", "-1"]),
        ({"num_jokers": 9}, ["num_jokers", "9"]),
        ({"num_jokers": "1"}, ["num_jokers"]),
        ({"num_decks": 0}, ["num_decks", "0"]),
        ({"num_decks": 1.5}, ["num_decks"]),
        ({"max_deep_draw": 0}, ["max_deep_draw", "0"]),
        ({"max_table_melds": 0}, ["max_table_melds", "0"]),
        ({"max_turns_per_round": 0}, ["max_turns_per_round", "0"]),
        ({"max_turns_per_round": 2.5}, ["max_turns_per_round"]),
        ({"reward_mode": "foo"}, ["reward_mode", "foo"]),
        ({"render_mode": "rgb_array"}, ["render_mode", "rgb_array"]),
        ({"colour": "red"}, ["bad configuration", "colour"]),
        ({"num_cards": 10}, ["bad configuration", "num_cards"]),
        # deals that cannot fit: players x hand size + 1 upcard > cards
        ({"num_players": 5, "num_decks": 1}, ["5 players", "12 cards", "61", "54"]),
        ({"num_players": 8, "num_decks": 1, "num_jokers": 1}, ["8 players", "10 cards", "81", "53"]),
        ({"num_players": 4, "num_decks": 1, "num_jokers": 0, "max_deep_draw": 5}, None),
    ],
)
def test_bad_configuration_raises_value_error(kwargs, words):
    if words is None:  # the control: 4 x 12 + 1 = 49 <= 52 cards fits
        contract_rummy_v0.env(**kwargs).reset(seed=0)
        return
    with pytest.raises(ValueError) as info:
        contract_rummy_v0.env(**kwargs)
    message = str(info.value)
    for word in words:
        assert word in message, f"{message!r} should mention {word!r}"


def test_bad_configuration_through_make():
    import pettingzoo

    with pytest.raises(ValueError, match="3 to 8 players"):
        pettingzoo.make("aec", "rummy/contract_rummy-v0", num_players=2)


@pytest.mark.parametrize("n, decks, jokers", [(3, 1, 1), (4, 1, 1), (5, 2, 2), (8, 2, 2)])
def test_default_cards(n, decks, jokers):
    deck = contract_rummy_v0.raw_env(num_players=n).rules.deck
    assert (deck.num_decks, deck.num_jokers) == (decks, jokers)
    assert sum(deck.face_counts()) == 52 * decks + jokers


@pytest.mark.parametrize("kwargs", [
    {"num_players": 3, "num_jokers": 0},
    {"num_players": 4, "num_decks": 2, "num_jokers": 1},
    {"num_players": 5, "num_decks": 3, "num_jokers": 4},
    {"num_players": 8, "num_decks": 2, "num_jokers": 0},
    {"num_players": 3, "max_deep_draw": 1},
    {"num_players": 4, "max_deep_draw": 3, "max_table_melds": 2},
])
def test_other_configurations_play_to_the_end(kwargs):
    """Overrides of the rules' parameters (docs/rules/contract_rummy.md#configuration): the
    layout follows them (no swap block without jokers, no deep draws with max_deep_draw 1),
    and random games end after 7 deals."""
    env = contract_rummy_v0.env(max_turns_per_round=12, **kwargs)
    raw = env.unwrapped
    blocks = raw.layout.blocks
    assert ("swap" in blocks) == (kwargs.get("num_jokers", 1) > 0)
    assert ("deep_draw" in blocks) == (kwargs.get("max_deep_draw", 20) >= 2)
    if "max_table_melds" in kwargs:
        assert blocks["lay_off"].size == kwargs["max_table_melds"] * raw.engine.card_set.num_faces
    assert sum(raw.rules.deck.face_counts()) == 52 * kwargs.get("num_decks", 1) + kwargs.get("num_jokers", 1)
    rng = np.random.default_rng(0)
    for seed in range(2):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            assert not trunc
            if term:
                env.step(None)
                continue
            assert len(raw.game_state.table) <= raw.rules.contract_play.max_table_melds
            env.step(_random_legal(obs, rng))
        assert len(raw.game_state.round_penalties) == 7


def test_bad_reset_options_raise_value_error():
    env = contract_rummy_v0.env(num_players=3)
    every = [r + s for s in SUITS for r in RANKS] + ["JK"]
    for options in ({"round": 0}, {"round": 8}, {"round": "1"}, {"dealer": 3}, {"dealer": -1},
                    {"scores": [1, 2]}, {"scores": [0, 0, 0.5]}, {"scores": {"player_0": 0}},
                    {"deck": every[:-1]}, {"deck": every[:-1] + ["AC"]},
                    {"deck": every[:-1] + ["XX"]}, {"deck": "AC 2C"}):
        with pytest.raises(ValueError):
            env.reset(seed=0, options=options)
    for seed in ("0", 1.5, True):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=seed)
    with pytest.raises(ValueError):
        env.reset(seed=0, options=[("round", 2)])
    env.reset(seed=np.int64(3), options={"round": 7, "dealer": 1, "scores": {"player_0": 5, "player_1": 0,
                                                                             "player_2": 9}})
    d = env.unwrapped.describe()
    assert (d["round"], d["dealer"], d["current"]) == (7, 1, "player_2")
    assert d["scores"] == {"player_0": 5, "player_1": 0, "player_2": 9}
    assert all(len(h) == 12 for h in d["hands"].values())


# ---------------------------------------------------------------- illegal actions
def test_illegal_action_message_names_action_and_agent():
    env = contract_rummy_v0.env(num_players=4)
    env.reset(seed=0)
    raw = env.unwrapped
    agent = env.agent_selection
    before, described = raw.get_state(), raw.describe()
    for text in ("discard KS", "lay off 7H on 0", "meld set 7 DHS", "swap 7H on 3"):  # never legal before drawing
        with pytest.raises(IllegalActionError) as info:
            env.step(raw.text_to_action(text))
        assert isinstance(info.value, ValueError)
        assert agent in str(info.value) and text in str(info.value) and "draw stock" in str(info.value)
    assert raw.describe() == described
    after = raw.get_state()
    assert after.state.hands == before.state.hands and after.state.stock == before.state.stock
    assert after.state.rng.getstate() == before.state.rng.getstate() and after.agent_selection == agent


# ---------------------------------------------------------------- masks and text
# ---------------------------------------------------------------- rendering
@pytest.mark.parametrize("n", PLAYERS)
def test_render_ansi_returns_text(n):
    env = contract_rummy_v0.env(num_players=n, render_mode="ansi")
    env.reset(seed=5)
    text = env.render()
    assert isinstance(text, str) and text
    for a in env.possible_agents:
        assert a in text
    assert "contract_rummy" in text and "round 1/7" in text and "contract 2 sets + 0 runs" in text
    raw = env.unwrapped
    for card in raw.describe()["hands"][raw.agent_selection]:
        assert card in text
    env.reset(seed=5, options={"round": 7})
    assert "round 7/7" in env.render() and "contract 0 sets + 3 runs, all cards" in env.render()


def test_render_shows_melds():
    env = contract_rummy_v0.env(num_players=3, render_mode="ansi", max_turns_per_round=30)
    env.reset(seed=0)
    raw = env.unwrapped
    rng = np.random.default_rng(1)
    meld = raw.layout.blocks["meld_set"].start
    for agent in env.agent_iter():
        obs, _, term, _, _ = env.last()
        if term:
            pytest.fail("no meld was laid in a whole game")
        legal = np.flatnonzero(obs["action_mask"])
        melds = legal[legal >= meld]
        env.step(int(melds[0]) if len(melds) else int(rng.choice(legal)))
        if raw.game_state.table:
            break
    text = env.render()
    for m in raw.describe()["melds"]:
        assert f"meld {m['slot']} ({m['owner']}, {m['kind']}): {' '.join(m['cards'])}" in text


# ---------------------------------------------------------------- determinism and snapshots
# ---------------------------------------------------------------- rewards