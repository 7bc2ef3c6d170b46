"""Spaces and the docstring's tables, action ids and text, the observation's parts and their
content, ``describe()`` and rendering, configuration and reset-option errors, illegal
actions (the buy question included), determinism and state snapshots, rewards and the buy
limit for ``rummy_env.toonerville_rook_v0`` (env spec: the module docstring; rules and
decisions: docs/rules/toonerville_rook.md). What every game shares is tested once in
``test_env_common.py`` and ``test_api_common.py``.

Scenarios use the reset options of docs/rules/README.md#scenario-set-up; most have 4
players and dealer 3, so seat 0 plays first and seat 1 is the first asked in a buy
question."""

from __future__ import annotations

import json
import re
from collections import Counter
from itertools import combinations_with_replacement

import numpy as np
import pytest
from docstring_tables import eval_size, observation_table, table_rows
from gymnasium import spaces
from scenario import (
    P,
    arrange_deck,
    desc,
    legal,
    play,
    reset_to,
    toonerville_rook_cards,
)

import rummy_env
from rummy_env import IllegalActionError, toonerville_rook_v0
from rummy_env.state import Phase

PLAYERS = (3, 4, 5)
NUM_ACTIONS = {3: 5515, 4: 6587, 5: 7491}  # docstring, "Action Values"
COLOURS = "RYGB"
ROOK = 56
BUY, PASS = 2, 3
CONTRACT = {1: (2, 0), 2: (1, 1), 3: (0, 2), 4: (3, 0), 5: (2, 1), 6: (1, 2), 7: (4, 0), 8: (0, 3),
            9: (5, 0), 10: (0, 4), 11: (2, 2)}
HAND_SIZE = {**{r: 12 for r in range(1, 9)}, 9: 15, 10: 16, 11: 14}
SLOT = 8  # meld slots per player by default (docstring, "Configuration")


def obs_size(n: int) -> int:
    return 8 * n * n + 984 * n + 308  # docstring, "Observation Shape"


def face(card: str) -> int:
    """Faces are colour * 14 + number - 1, ``ROOK`` = 56 (docstring, "Action space")."""
    return ROOK if card == "ROOK" else COLOURS.index(card[-1]) * 14 + int(card[:-1]) - 1


def one_hot(size: int, *hot: int) -> np.ndarray:
    v = np.zeros(size, dtype=np.float32)
    for k in hot:
        v[k] += 1
    return v


def _random_legal(obs: dict, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def part(env, agent: str, name: str) -> np.ndarray:
    raw = env.unwrapped
    return raw.observe(agent)["observation"][raw.observer.offsets[name]]


# Hands of the buy scenario (4 players, dealer 3, round 1): seat 0 plays first, the upcard
# 7R is offered when it draws from the stock; the stock gives the buyer's penalty card and
# then seat 0's draw.
BUY_HANDS = [
    ["1R", "2R", "3R", "4R", "5R", "6R", "8R", "9R", "10R", "11R", "12R", "13R"],
    ["1Y", "2Y", "3Y", "4Y", "5Y", "6Y", "7Y", "8Y", "9Y", "10Y", "11Y", "12Y"],
    ["1G", "2G", "3G", "4G", "5G", "6G", "7G", "8G", "13Y", "14Y", "14R", "ROOK"],
    ["1B", "2B", "3B", "4B", "5B", "6B", "7B", "8B", "9B", "10B", "11B", "12B"],
]


def buy_env(penalty: str = "9G", draw: str = "13G", **config):
    """The buy scenario after seat 0's ``draw stock``: seat 1 is asked about 7R."""
    env = toonerville_rook_v0.env(num_players=4, **config)
    deck = arrange_deck(toonerville_rook_cards(4), 4, 3, BUY_HANDS, "7R", [penalty, draw])
    reset_to(env, deck, 3, 1)
    play(env, "draw stock")
    return env


# ---------------------------------------------------------------- creation and spaces
def test_default_env_and_registration():
    import pettingzoo

    env = toonerville_rook_v0.env()
    env.reset(seed=3)
    raw = env.unwrapped
    assert env.possible_agents == [f"player_{i}" for i in range(4)]
    assert raw.rules.game == "toonerville_rook" and raw.metadata["name"] == "toonerville_rook_v0"
    assert raw.rules.num_players == 4 and raw.rules.max_turns_per_round == 400
    assert raw.rules.contract_play.max_buys_per_round is None
    assert raw.rules.contract_play.max_table_melds == 32 and raw.reward_mode == "relative"
    assert raw.render_mode is None and raw.rules.num_rounds == 11
    assert env.action_space("player_0").n == NUM_ACTIONS[4]
    made = pettingzoo.make("aec", "rummy/toonerville_rook-v0", num_players=5)
    made.reset(seed=3)
    assert made.possible_agents == [f"player_{i}" for i in range(5)]
    assert made.unwrapped.rules.game == "toonerville_rook"
    assert rummy_env.__version__


@pytest.mark.parametrize("n", PLAYERS)
def test_spaces_match_docstring(n):
    env = toonerville_rook_v0.env(num_players=n)
    env.reset(seed=0)
    size = obs_size(n)
    assert env.possible_agents == [f"player_{i}" for i in range(n)]
    for a in env.possible_agents:
        space = env.observation_space(a)
        assert isinstance(space, spaces.Dict) and set(space.spaces) == {"observation", "action_mask"}
        assert space["observation"].shape == (size,) and space["observation"].dtype == np.float32
        assert space["action_mask"].shape == (NUM_ACTIONS[n],) and space["action_mask"].dtype == np.int8
        assert env.action_space(a) == spaces.Discrete(NUM_ACTIONS[n])
        obs = env.observe(a)
        assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (size,)
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (NUM_ACTIONS[n],)
        assert space.contains(obs) and obs["observation"].min() >= 0
    raw = env.unwrapped
    assert raw.observer.size == size and raw.layout.size == NUM_ACTIONS[n]
    deck = raw.rules.deck
    assert sum(deck.face_counts()) == 57 * n and deck.face_counts()[ROOK] == n


def test_docstring_header_numbers():
    doc = toonerville_rook_v0.__doc__
    values = re.search(r"Action Values\s*\|\s*Discrete\(A\):([^|]*)for 3 / 4 / 5 players", doc).group(1)
    assert [int(v.replace(",", "")) for v in values.split("/")] == [NUM_ACTIONS[n] for n in PLAYERS]
    shape = re.search(r"Observation Shape\s*\|\s*\(8n² \+ 984n \+ 308,\):([^|]*)for 3 / 4 / 5 players", doc)
    assert [int(v.replace(",", "")) for v in shape.group(1).split("/")] == [obs_size(n) for n in PLAYERS]
    assert "n = 3..5 (default 4)" in doc


@pytest.mark.parametrize("n", PLAYERS)
def test_observation_table_matches_parts_and_offsets(n):
    observer = toonerville_rook_v0.raw_env(num_players=n).observer
    table = observation_table(toonerville_rook_v0, n)
    assert [name for name, _ in table] == [p.name for p in observer.parts] == list(observer.offsets)
    start = 0
    for (name, size), p in zip(table, observer.parts):
        sl = observer.offsets[name]
        assert p.size == size and (sl.start, sl.stop - sl.start) == (start, size), \
            f"part {name}: docstring says {size} at {start}"
        start += size
    assert start == obs_size(n) == observer.size


def _docstring_action_table(n: int) -> list[tuple[str, int, int]]:
    """``(block, offset for 4 players, size for n players)`` rows of the docstring's table."""
    doc = toonerville_rook_v0.__doc__
    section = doc[doc.index("## Action space"):doc.index("## Turns and the buy question")]
    rows = []
    for name, offset, size, _ in table_rows(section, 4):
        if size.startswith("14 x 177 (3p) / 14 x 189 (4-5p)"):
            value = 14 * (177 if n == 3 else 189)
        else:
            value = eval_size(size, M=SLOT * n)
        rows.append((name.strip("`"), eval_size(offset, M=SLOT * 4), value))
    return rows


@pytest.mark.parametrize("n", PLAYERS)
def test_action_table_matches_layout(n):
    raw = toonerville_rook_v0.raw_env(num_players=n)
    rows = _docstring_action_table(n)
    assert [r[0] for r in rows] == ["draw_stock", "draw_discard", "buy", "discard", "meld_set", "meld_run",
                                    "lay_off", "swap"]
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


@pytest.mark.parametrize("n, offsets", [
    (3, {"buy": 2, "discard": 4, "meld_set": 61, "meld_run": 2539, "lay_off": 2803, "swap": 4171}),
    (4, {"buy": 2, "discard": 4, "meld_set": 61, "meld_run": 2707, "lay_off": 2971, "swap": 4795}),
    (5, {"buy": 2, "discard": 4, "meld_set": 61, "meld_run": 2707, "lay_off": 2971, "swap": 5251}),
])
def test_block_offsets_and_sizes(n, offsets):
    blocks = toonerville_rook_v0.raw_env(num_players=n).layout.blocks
    M = SLOT * n
    sizes = {"buy": 2, "discard": 57, "meld_set": 14 * (177 if n == 3 else 189), "meld_run": 264,
             "lay_off": M * 57, "swap": M * 56}
    assert {k: (b.start, b.size) for k, b in blocks.items()} == {k: (offsets[k], sizes[k]) for k in offsets}


def test_max_table_melds_sets_the_slot_blocks_and_table_slots():
    raw = toonerville_rook_v0.raw_env(num_players=3, max_table_melds=5)
    blocks = raw.layout.blocks
    assert (blocks["lay_off"].size, blocks["swap"].size) == (5 * 57, 5 * 56)
    assert raw.layout.size == 2971 - 14 * 12 + 5 * 113
    sl = raw.observer.offsets["table_slots"]
    assert sl.stop - sl.start == 5 * (3 + 115)
    assert raw.text_to_action("swap 14B on 4") == raw.layout.size - 1
    with pytest.raises(ValueError, match="on 5"):
        raw.text_to_action("lay off 7R on 5")


# ---------------------------------------------------------------- action ids and text
@pytest.mark.parametrize("n", PLAYERS)
def test_sample_action_ids_follow_the_docstring(n):
    raw = toonerville_rook_v0.raw_env(num_players=n)
    blocks, M = raw.layout.blocks, SLOT * n
    text, parse = raw.action_to_text, raw.text_to_action
    assert (text(0), text(1), text(BUY), text(PASS)) == ("draw stock", "draw discard", "buy", "pass")
    assert (parse("buy"), parse("pass")) == (BUY, PASS)
    every = [f"{k}{c}" for c in COLOURS for k in range(1, 15)] + ["ROOK"]
    assert [text(4 + f) for f in range(57)] == [f"discard {c}" for c in every]
    assert [face(c) for c in every] == list(range(57))
    assert (face("1R"), face("14B"), face("ROOK")) == (0, 55, 56)
    assert parse("discard ROOK") == 4 + 56 and parse("discard 1R") == 4 and parse("discard 14B") == 59
    for card in ("1R", "7R", "14G", "14B", "ROOK"):
        for slot in (0, 2, M - 1):
            lay = blocks["lay_off"].start + slot * 57 + face(card)
            assert parse(f"lay off {card} on {slot}") == lay and text(lay) == f"lay off {card} on {slot}"
            if card != "ROOK":
                swap = blocks["swap"].start + slot * 56 + face(card)
                assert parse(f"swap {card} on {slot}") == swap and text(swap) == f"swap {card} on {slot}"
    if n == 4:
        assert parse("lay off 7R on 2") == 2971 + 2 * 57 + 6
        assert parse("swap 7R on 2") == 2971 + 57 * 32 + 2 * 56 + 6
    assert text(blocks["lay_off"].stop - 1) == f"lay off ROOK on {M - 1}"
    assert text(blocks["swap"].stop - 1) == f"swap 14B on {M - 1}"
    for sample in ("meld set 5 RRY", "meld set 5 RYG", "meld set 12 RB +2", "meld run G 11 14"):
        a = parse(sample)
        assert text(a) == sample
    assert blocks["meld_set"].start <= parse("meld set 5 RRY") < blocks["meld_set"].stop
    assert blocks["meld_run"].start <= parse("meld run G 11 14") < blocks["meld_run"].stop


@pytest.mark.parametrize("n", PLAYERS)
def test_meld_set_and_meld_run_blocks_list_exactly_the_documented_melds(n):
    raw = toonerville_rook_v0.raw_env(num_players=n)
    blocks, text = raw.layout.blocks, raw.action_to_text
    copies = min(4, n)
    sets = [text(a) for a in range(blocks["meld_set"].start, blocks["meld_set"].stop)]
    expected = {
        f"meld set {r} {''.join(c)}" + (f" +{w}" if w else "")
        for r in range(1, 15) for k in range(1, 5) for c in combinations_with_replacement(COLOURS, k)
        if max(Counter(c).values()) <= copies for w in range(3) if k + w >= 3
    }
    assert len(sets) == len(set(sets)) == len(expected) == 14 * (177 if n == 3 else 189)
    assert set(sets) == expected
    numbers = [int(s.split()[2]) for s in sets]
    assert numbers == sorted(numbers)  # number by number
    assert ("meld set 5 RRRR" in sets) == (n >= 4) and "meld set 5 RRR" in sets and "meld set 5 R +2" in sets
    assert "meld set 5 RRRRY" not in sets and "meld set 5 RY" not in sets and "meld set 5 R +1" not in sets
    runs = [text(a) for a in range(blocks["meld_run"].start, blocks["meld_run"].stop)]
    expected_runs = {f"meld run {c} {lo} {hi}" for c in COLOURS for lo in range(1, 15) for hi in range(lo + 3, 15)}
    assert len(runs) == len(set(runs)) == len(expected_runs) == 264 and set(runs) == expected_runs
    colours = [COLOURS.index(r.split()[2]) for r in runs]
    assert colours == sorted(colours)  # colour by colour
    assert {"meld run G 11 14", "meld run R 1 4", "meld run B 1 14"} <= set(runs)


def test_the_rook_discard_text():
    """Every id's text round-trips in test_api_common.py."""
    raw = toonerville_rook_v0.raw_env(num_players=4)
    assert raw.action_to_text(np.int64(60)) == "discard ROOK"


def test_lenient_parsing():
    raw = toonerville_rook_v0.raw_env(num_players=4)
    parse = raw.text_to_action
    assert parse("BUY") == parse(" buy ") == BUY and parse("Pass") == PASS
    assert parse("Draw  Stock") == 0 and parse("DRAW discard") == 1
    assert parse("discard rook") == parse("discard ROOK") == 60 and parse("discard 7r") == parse("discard 7R")
    assert parse("meld set 5 YRR") == parse("meld set 5 RYR") == parse("meld set 5 rry") == parse("meld set 5 RRY")
    assert parse("meld set 12 br +2") == parse("meld set 12 RB +2")
    assert parse("meld set 9 BGYR") == parse("meld set 9 RYGB")
    assert parse("meld run g 11 14") == parse("meld run G 11 14")
    assert parse("LAY OFF rook ON 3") == parse("lay off ROOK on 3")
    assert parse("swap 7r on 2") == parse("swap 7R on 2")


@pytest.mark.parametrize("garbage", [
    "", "   ", "fly away", "draw", "draw deck", "draw discard 2", "draw discard 1", "buy 7R", "pass 1", "buy buy",
    "discard", "discard ZZ", "discard 7H", "discard JK", "discard AC", "discard 0R", "discard 15R", "discard 7X",
    "discard ROOK ROOK", "go out 7R",
    "meld set 5", "meld set 5 RY", "meld set 5 R +1", "meld set 5 RYGBR", "meld set 5 RRRRR", "meld set 5 RY +3",
    "meld set 5 RY +0", "meld set 5 RY +x", "meld set 5 +2", "meld set 15 RYG", "meld set 0 RYG",
    "meld set ROOK RYG", "meld set 5 RXG", "meld set 5 RYG extra", "meld set 7 DHS",
    "meld run G 11 13", "meld run G 12 14", "meld run G 13 2", "meld run G 14 3", "meld run G 5 5",
    "meld run G 11 15", "meld run G 0 3", "meld run X 3 6", "meld run G 3", "meld run ROOK 1 4", "meld run H 3 6",
    "lay off 7R", "lay off 7R on 32", "lay off 7R on x", "lay off 7R to 2", "lay off 7R on -1",
    "swap ROOK on 0", "swap 7R on 32", "swap 7R", "swap 7H on 0", "7R", "ROOK",
])
def test_text_to_action_rejects_malformed_text_naming_it(garbage):
    raw = toonerville_rook_v0.raw_env(num_players=4)  # 32 meld slots: 0..31
    with pytest.raises(ValueError) as info:
        raw.text_to_action(garbage)
    assert repr(garbage) in str(info.value)


@pytest.mark.parametrize("n, text, ok", [
    (3, "meld set 5 RRR", True), (3, "meld set 5 RRRY", True), (3, "meld set 5 RRRR", False),
    (3, "meld set 5 RRRR +1", False), (4, "meld set 5 RRRR", True), (5, "meld set 5 RRRR +2", True),
    (5, "meld set 5 RRRRR", False),
])
def test_set_actions_name_a_colour_at_most_min_4_players_times(n, text, ok):
    raw = toonerville_rook_v0.raw_env(num_players=n)
    if ok:
        assert raw.action_to_text(raw.text_to_action(text)) == text
    else:
        with pytest.raises(ValueError, match=re.escape(repr(text))):
            raw.text_to_action(text)


@pytest.mark.parametrize("n", PLAYERS)
def test_action_to_text_rejects_out_of_range_ids_naming_them(n):
    raw = toonerville_rook_v0.raw_env(num_players=n)
    for bad in (-1, NUM_ACTIONS[n], NUM_ACTIONS[n] + 1, 10**6):
        with pytest.raises(ValueError, match=str(bad)):
            raw.action_to_text(bad)
    assert raw.action_to_text(NUM_ACTIONS[n] - 1) == f"swap 14B on {SLOT * n - 1}"


# ---------------------------------------------------------------- configuration errors
@pytest.mark.parametrize("kwargs, words", [
    ({"num_players": 2}, ["3 to 5 players", "2"]),
    ({"num_players": 6}, ["3 to 5 players", "6"]),
    ({"num_players": "4"}, ["3 to 5 players", "'4'"]),
    ({"num_players": 4.0}, ["3 to 5 players"]),
    ({"num_players": True}, ["3 to 5 players"]),
    ({"max_buys_per_round": -1}, ["max_buys_per_round", "-1"]),
    ({"max_buys_per_round": True}, ["max_buys_per_round", "True"]),
    ({"max_buys_per_round": "x"}, ["max_buys_per_round", "'x'"]),
    ({"max_buys_per_round": 1.5}, ["max_buys_per_round"]),
    ({"max_table_melds": 0}, ["max_table_melds", "0"]),
    ({"max_table_melds": -3}, ["max_table_melds", "-3"]),
    ({"max_table_melds": "8"}, ["max_table_melds"]),
    ({"max_turns_per_round": 0}, ["max_turns_per_round", "0"]),
    ({"max_turns_per_round": 2.5}, ["max_turns_per_round"]),
    ({"reward_mode": "foo"}, ["reward_mode", "foo"]),
    ({"reward_mode": None}, ["reward_mode"]),
    ({"render_mode": "rgb_array"}, ["render_mode", "rgb_array"]),
    ({"colour": "red"}, ["bad configuration", "colour"]),
    ({"num_decks": 2}, ["bad configuration", "num_decks"]),  # Contract Rummy's parameters
    ({"num_jokers": 1}, ["bad configuration", "num_jokers"]),
    ({"max_deep_draw": 3}, ["bad configuration", "max_deep_draw"]),
])
def test_bad_configuration_raises_value_error(kwargs, words):
    with pytest.raises(ValueError) as info:
        toonerville_rook_v0.env(**kwargs)
    message = str(info.value)
    for word in words:
        assert word in message, f"{message!r} should mention {word!r}"


@pytest.mark.parametrize("kwargs", [
    {"max_buys_per_round": None}, {"max_buys_per_round": 0}, {"max_buys_per_round": 3}, {"max_table_melds": 1},
    {"num_players": 3, "reward_mode": "win", "render_mode": "ansi"}, {"num_players": 5, "reward_mode": "penalty"},
])
def test_good_configurations_are_accepted(kwargs):
    env = toonerville_rook_v0.env(**kwargs)
    env.reset(seed=0)
    assert env.unwrapped.describe()["round"] == 1


def test_bad_reset_options_raise_value_error_and_corrupt_nothing():
    n = 4
    env = toonerville_rook_v0.env(num_players=n)
    raw = env.unwrapped
    cards = toonerville_rook_cards(n)
    swapped = list(cards)
    swapped[swapped.index("7R")] = "7H"  # a standard deck's card
    no_rook = list(cards)
    no_rook.remove("ROOK")
    joker = list(cards)
    joker[joker.index("ROOK")] = "JK"
    extra = no_rook + ["5R"]  # right size, wrong multiset
    bad = [
        {"deck": swapped}, {"deck": no_rook}, {"deck": joker}, {"deck": extra},
        {"deck": cards + ["ROOK"]}, {"deck": toonerville_rook_cards(3)}, {"deck": toonerville_rook_cards(5)},
        {"deck": " ".join(cards)}, {"deck": cards[:-1] + [7]},
        {"round": 0}, {"round": 12}, {"round": "2"}, {"round": True}, {"round": 1.0},
        {"dealer": 4}, {"dealer": 5}, {"dealer": -1}, {"dealer": "0"},
        {"scores": [0, 0, 0]}, {"scores": [0] * 5}, {"scores": [0, 0, 0, 0.5]}, {"scores": {"player_0": 0}},
        {"scores": {f"player_{i}": 0 for i in range(5)}}, {"scores": 7},
    ]
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(7):  # into the game, past a buy question or two
        env.step(_random_legal(env.last()[0], rng))
    before = raw.describe()
    obs_before = {a: raw.observe(a)["observation"].tobytes() for a in env.possible_agents}
    for options in bad:
        with pytest.raises(ValueError):
            env.reset(seed=0, options=options)
    with pytest.raises(ValueError):
        env.reset(seed=0, options=[("round", 2)])
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed="1")
    # the game in progress is untouched, and a later valid reset works as in a fresh env
    assert raw.describe() == before
    assert {a: raw.observe(a)["observation"].tobytes() for a in env.possible_agents} == obs_before
    fresh = toonerville_rook_v0.env(num_players=n)
    for e in (env, fresh):
        e.reset(seed=5, options={"round": 11, "dealer": 2, "scores": {P(i): 10 * i for i in range(n)}})
    d = raw.describe()
    assert d == fresh.unwrapped.describe()
    assert (d["round"], d["dealer"], d["current"]) == (11, 2, "player_3")
    assert d["scores"] == {P(i): 10 * i for i in range(n)}
    assert all(len(h) == 14 for h in d["hands"].values())
    assert d["contract"] == {"sets": 2, "runs": 2, "down_means_out": False, "out_by_melding": True}
    deck = arrange_deck(cards, n, 0, [None] * n, "ROOK", hand_size=12)
    reset_to(env, deck, 0, 1)
    assert env.unwrapped.describe()["discard"] == ["ROOK"]


# ---------------------------------------------------------------- illegal actions
def _snapshot_view(env) -> tuple:
    raw = env.unwrapped
    st = raw.game_state
    return (
        raw.describe(), env.agent_selection, st.rng.getstate(), list(st.stock), st.phase, st.asked,
        {a: (raw.observe(a)["observation"].tobytes(), raw.observe(a)["action_mask"].tobytes())
         for a in env.possible_agents},
    )


def _assert_illegal(env, text: str) -> None:
    raw = env.unwrapped
    agent = env.agent_selection
    before = _snapshot_view(env)
    with pytest.raises(IllegalActionError) as info:
        env.step(raw.text_to_action(text))
    assert isinstance(info.value, ValueError)
    assert text in str(info.value) and agent in str(info.value), str(info.value)
    assert _snapshot_view(env) == before


def test_illegal_actions_during_the_buy_question():
    env = buy_env()
    raw = env.unwrapped
    assert env.agent_selection == P(1) and raw.game_state.phase == Phase.BUY
    for text in ("draw stock", "draw discard", "discard 7Y", "discard 7R", "meld set 7 RYG", "lay off 7Y on 0",
                 "swap 7Y on 0"):
        _assert_illegal(env, text)
    with pytest.raises(IllegalActionError) as info:
        env.step(raw.text_to_action("draw stock"))
    assert "legal now: buy, pass" in str(info.value)
    play(env, "pass")
    assert env.agent_selection == P(2)
    _assert_illegal(env, "draw stock")
    _assert_illegal(env, "discard ROOK")
    play(env, "buy")
    assert env.agent_selection == P(0) and raw.game_state.phase == Phase.PLAY
    for text in ("buy", "pass", "draw stock", "draw discard"):  # no question, no draw, in the play phase
        _assert_illegal(env, text)


def test_buy_and_pass_outside_a_buy_question_are_illegal():
    env = toonerville_rook_v0.env(num_players=4)
    env.reset(seed=0)
    raw = env.unwrapped
    assert raw.game_state.phase == Phase.DRAW
    for text in ("buy", "pass", "discard ROOK", "meld set 5 RYG", "lay off 7R on 0", "swap 7R on 0"):
        _assert_illegal(env, text)
    play(env, "draw discard")  # no question: the player took the top discard
    assert raw.game_state.phase == Phase.PLAY and env.agent_selection == raw.describe()["current"]
    for text in ("buy", "pass", "draw stock", "draw discard"):
        _assert_illegal(env, text)
    discard = next(t for t in legal(env) if t.startswith("discard"))
    who = env.agent_selection
    play(env, discard)
    assert env.agent_selection != who and raw.game_state.phase == Phase.DRAW
    _assert_illegal(env, discard)  # the next player has not drawn


def test_non_integer_and_out_of_range_actions_raise():
    env = buy_env()
    raw = env.unwrapped
    before = _snapshot_view(env)
    n_actions = NUM_ACTIONS[4]
    for bad in (-1, n_actions, 10**6, 2.0, "buy", True, None, np.float32(2)):
        with pytest.raises((AssertionError, IllegalActionError)):
            env.step(bad)
    for bad in (2.0, "buy", True, np.bool_(True), -1, n_actions, None, [2]):
        with pytest.raises(IllegalActionError):
            raw.step(bad)
    assert _snapshot_view(env) == before
    env.step(np.int64(PASS))  # numpy integers are accepted
    assert raw.describe()["buy_question"] == {"card": "7R", "asked": P(2)}


# ---------------------------------------------------------------- the buy question: mask, describe, render
def test_buy_question_mask_describe_and_render():
    env = buy_env()
    raw = env.unwrapped
    raw.render_mode = "ansi"
    d = desc(env)
    assert {"buy_question", "buys", "to_act", "current"} <= set(d)
    assert d["buy_question"] == {"card": "7R", "asked": P(1)}
    assert (d["current"], d["to_act"], d["phase"], env.agent_selection) == (P(0), P(1), "buy", P(1))
    assert d["buys"] == {P(i): 0 for i in range(4)} and d["turns"] == 0 and d["discard"] == ["7R"]
    for a in env.possible_agents:
        mask = raw.observe(a)["action_mask"]
        assert mask.dtype == np.int8
        assert np.flatnonzero(mask).tolist() == ([BUY, PASS] if a == P(1) else [])
    assert legal(env) == ["buy", "pass"]
    assert "buy question: player_1 may buy 7R" in env.render()
    assert "to act: player_1 (buy)" in env.render()
    # asked from the player's left round to its right; the player to act is never asked
    play(env, "pass")
    assert desc(env)["buy_question"] == {"card": "7R", "asked": P(2)} and env.agent_selection == P(2)
    assert "buy question: player_2 may buy 7R" in env.render()
    play(env, "pass")
    assert desc(env)["buy_question"] == {"card": "7R", "asked": P(3)}
    play(env, "pass")  # everyone passed: seat 0 draws from the stock
    d = desc(env)
    assert d["buy_question"] is None and (d["current"], d["to_act"], d["phase"]) == (P(0), P(0), "play")
    assert d["discard"] == ["7R"] and "9G" in d["hands"][P(0)] and d["turns"] == 1
    assert "buy question" not in env.render()
    # seat 0's discard is offered to seats 2, 3 (not seat 0, who discarded it), from seat 1's left
    play(env, "discard 13R", "draw stock")
    assert desc(env)["buy_question"] == {"card": "13R", "asked": P(2)}
    play(env, "pass")
    assert desc(env)["buy_question"] == {"card": "13R", "asked": P(3)}
    play(env, "pass")
    assert desc(env)["phase"] == "play" and env.agent_selection == P(1)


def test_describe_after_a_purchase_and_per_agent():
    env = buy_env()
    raw = env.unwrapped
    play(env, "pass", "buy")  # seat 2 buys 7R, with the penalty card 9G; then seat 0 draws 13G
    d = desc(env)
    assert d["buy_question"] is None and d["buys"] == {P(0): 0, P(1): 0, P(2): 1, P(3): 0}
    assert (d["current"], d["to_act"], d["phase"], d["turns"]) == (P(0), P(0), "play", 1)
    assert Counter(d["hands"][P(2)]) == Counter(BUY_HANDS[2] + ["7R", "9G"])
    assert Counter(d["hands"][P(0)]) == Counter(BUY_HANDS[0] + ["13G"])
    assert d["discard"] == [] and d["hand_sizes"] == {P(0): 13, P(1): 12, P(2): 14, P(3): 12}
    assert d["stock_size"] == 228 - 49 - 2
    assert json.loads(json.dumps(d)) == d
    for a in env.possible_agents:
        mine = raw.describe(a)
        assert mine["hands"] == {a: d["hands"][a]}
        assert {k: v for k, v in mine.items() if k != "hands"} == {k: v for k, v in d.items() if k != "hands"}
        assert json.loads(json.dumps(mine)) == mine
    with pytest.raises(ValueError, match="unknown agent"):
        raw.describe("player_4")
    # during a question too
    q = buy_env()
    dq = q.unwrapped.describe(P(3))
    assert dq["hands"] == {P(3): BUY_HANDS[3]} and dq["buy_question"] == {"card": "7R", "asked": P(1)}
    assert json.loads(json.dumps(dq)) == dq
    keys = {"hands", "discard", "melds", "gone_down", "contract", "contract_left", "wilds_owed", "buy_question",
            "buys", "current", "to_act", "phase", "round", "dealer", "scores", "stock_size", "turns"}
    assert keys <= set(dq)


@pytest.mark.parametrize("n", PLAYERS)
def test_render_ansi_and_human(n, capsys):
    env = toonerville_rook_v0.env(num_players=n, render_mode="ansi")
    env.reset(seed=5)
    text = env.render()
    assert isinstance(text, str) and "toonerville_rook" in text and "round 1/11" in text
    assert "contract 2 sets + 0 runs" in text
    for a in env.possible_agents:
        assert a in text
    env.reset(seed=5, options={"round": 11})
    assert "round 11/11" in env.render() and "contract 2 sets + 2 runs" in env.render()
    quiet = toonerville_rook_v0.env(num_players=n)
    quiet.reset(seed=5)
    assert quiet.render() is None
    loud = toonerville_rook_v0.env(num_players=n, render_mode="human")
    loud.reset(seed=5)
    loud.step(0)
    out = capsys.readouterr().out
    assert "toonerville_rook" in out and f"player_{n - 1}" in out


# ---------------------------------------------------------------- observation content
def test_observation_during_a_buy_question():
    env = buy_env()
    raw = env.unwrapped
    n = 4
    for seat in range(n):
        a = P(seat)
        assert np.array_equal(part(env, a, "buy_offer"), one_hot(57, face("7R")))
        assert np.array_equal(part(env, a, "discard_top"), one_hot(57, face("7R")))
        assert np.array_equal(part(env, a, "to_act"), one_hot(n, (1 - seat) % n))  # the asked seat
        assert np.array_equal(part(env, a, "turn_owner"), one_hot(n, (0 - seat) % n))  # whose turn it is
        assert np.array_equal(part(env, a, "phase"), one_hot(4, 3))
        assert np.array_equal(part(env, a, "dealer"), one_hot(n, (3 - seat) % n))
        assert not part(env, a, "buys").any() and not part(env, a, "known_held").any()
        assert not part(env, a, "taken_face").any() and part(env, a, "turns")[0] == 0
        assert part(env, a, "stock_size")[0] == pytest.approx((228 - 49) / 228)
    play(env, "pass")
    for seat in range(n):
        assert np.array_equal(part(env, P(seat), "to_act"), one_hot(n, (2 - seat) % n))
        assert np.array_equal(part(env, P(seat), "turn_owner"), one_hot(n, (0 - seat) % n))
        assert np.array_equal(part(env, P(seat), "buy_offer"), one_hot(57, face("7R")))
    play(env, "buy")
    for seat in range(n):
        a = P(seat)
        assert not part(env, a, "buy_offer").any() and not part(env, a, "discard_top").any()
        assert np.array_equal(part(env, a, "phase"), one_hot(4, 1))
        assert np.array_equal(part(env, a, "to_act"), one_hot(n, (0 - seat) % n))
        assert np.array_equal(part(env, a, "turn_owner"), one_hot(n, (0 - seat) % n))
        assert np.array_equal(part(env, a, "buys"), one_hot(n, (2 - seat) % n) * np.float32(0.1))
        assert part(env, a, "turns")[0] == np.float32(1 / 400)
        sizes = part(env, a, "hand_sizes") * 17
        assert np.allclose(sizes, [[13, 12, 14, 12][(seat + r) % n] for r in range(n)])
        known = part(env, a, "known_held").reshape(n - 1, 57)
        for rel in range(1, n):
            expected = one_hot(57, face("7R")) if (seat + rel) % n == 2 else np.zeros(57, np.float32)
            assert np.array_equal(known[rel - 1], expected), (seat, rel)
    hand2 = part(env, P(2), "hand")
    assert hand2[face("7R")] == 1 and hand2[face("9G")] == 1 and hand2.sum() == 14
    assert raw.observe(P(2))["observation"].min() >= 0


def test_the_penalty_card_is_seen_by_the_buyer_alone():
    """Two games that differ only in the buyer's penalty card: every other seat observes the
    same; the buyer differs in its hand only."""
    envs = [buy_env(penalty=p) for p in ("9G", "10B")]
    for env in envs:
        play(env, "pass", "buy")
    raw0, raw1 = (e.unwrapped for e in envs)
    for seat in (0, 1, 3):
        assert raw0.observe(P(seat))["observation"].tobytes() == raw1.observe(P(seat))["observation"].tobytes()
        assert raw0.describe(P(seat)) == raw1.describe(P(seat))
    o0, o1 = raw0.observe(P(2))["observation"], raw1.observe(P(2))["observation"]
    differ = np.flatnonzero(o0 != o1)
    assert set(differ) == {face("9G"), face("10B")}  # both in `hand`, the first part
    assert raw0.observer.offsets["hand"] == slice(0, 57)


def test_known_held_lasts_until_the_bought_face_is_discarded():
    env = buy_env()
    play(env, "pass", "buy", "discard 13R", "draw stock", "pass", "pass")  # seat 1's turn
    assert part(env, P(0), "known_held").reshape(3, 57)[1][face("7R")] == 1
    play(env, "discard 12Y", "draw stock")  # seat 2's turn: 12Y offered to seats 3, 0
    assert desc(env)["buy_question"] == {"card": "12Y", "asked": P(3)}
    play(env, "pass", "pass", "discard 7R")
    assert not part(env, P(0), "known_held").any() and not part(env, P(3), "known_held").any()
    assert part(env, P(0), "buys")[2] == np.float32(0.1)  # bought cards still counted this round


@pytest.mark.parametrize("round_no", range(1, 12))
def test_contract_round_and_seat_parts(round_no):
    n = 3
    env = toonerville_rook_v0.env(num_players=n)
    env.reset(seed=round_no, options={"round": round_no, "dealer": 1, "scores": [30, 0, 120]})
    sets, runs = CONTRACT[round_no]
    for seat in range(n):
        a = P(seat)
        assert np.array_equal(part(env, a, "contract"),
                              np.array([sets / 4, runs / 4, 1.0 if round_no == 11 else 0.0], np.float32))
        assert np.array_equal(part(env, a, "round"), one_hot(11, round_no - 1))
        assert np.array_equal(part(env, a, "dealer"), one_hot(n, (1 - seat) % n))
        assert np.array_equal(part(env, a, "to_act"), one_hot(n, (2 - seat) % n))
        assert np.array_equal(part(env, a, "turn_owner"), one_hot(n, (2 - seat) % n))
        assert np.array_equal(part(env, a, "phase"), one_hot(4, 0))
        scores = [[0.3, 0.0, 1.2][(seat + r) % n] for r in range(n)]
        assert np.allclose(part(env, a, "scores"), scores)  # may exceed 1
        assert np.allclose(part(env, a, "hand_sizes"), HAND_SIZE[round_no] / 17)
        assert part(env, a, "hand").sum() == HAND_SIZE[round_no]
        assert not part(env, a, "contract_left").any() and not part(env, a, "gone_down").any()
        assert not part(env, a, "buy_offer").any() and not part(env, a, "buys").any()
    d = desc(env)
    assert d["contract"] == {"sets": sets, "runs": runs, "down_means_out": False, "out_by_melding": round_no == 11}


def _table_env():
    """Round 2 (1 run + 1 set), 4 players: seat 0 goes down with a set holding two 5R and a
    Rook, then a run 11G 12G ROOK 14G."""
    n = 4
    h0 = ["5R", "5R", "5Y", "ROOK", "11G", "12G", "14G", "ROOK", "1B", "3Y", "8G", "10B"]
    deck = arrange_deck(toonerville_rook_cards(n), n, 3, [h0, None, None, None], "13B", ["2Y"])
    env = reset_to(toonerville_rook_v0.env(num_players=n), deck, 3, 2)
    play(env, "draw discard")
    assert "meld set 5 RRY +1" in legal(env)
    play(env, "meld set 5 RRY +1")
    assert desc(env)["phase"] == "going_down"
    return env


def test_table_slots_for_a_set_with_duplicates_and_a_run_with_a_rook():
    n = 4
    env = _table_env()
    raw = env.unwrapped
    size = n + 115
    # going down in progress: contract_left and the phase
    for seat in range(n):
        assert np.array_equal(part(env, P(seat), "contract_left"), np.array([0, 0.25], np.float32))
        assert np.array_equal(part(env, P(seat), "phase"), one_hot(4, 2))
    play(env, "meld run G 11 14")
    d = desc(env)
    assert [(m["kind"], m["cards"], m["represents"]) for m in d["melds"]] == [
        ("set", ["5R", "5R", "5Y", "ROOK"], "5"), ("run", ["11G", "12G", "14G", "ROOK"], ["13G"])]
    for seat in range(n):
        slots = part(env, P(seat), "table_slots").reshape(SLOT * n, size)
        owner = one_hot(n, (0 - seat) % n)
        set_slot = np.concatenate([owner, [1, 0], one_hot(56, face("5R"), face("5R"), face("5Y")), np.zeros(56), [1]])
        run_slot = np.concatenate([owner, [0, 1], one_hot(56, face("11G"), face("12G"), face("14G")),
                                   one_hot(56, face("13G")), [0]])
        assert np.array_equal(slots[0], set_slot.astype(np.float32)), seat
        assert np.array_equal(slots[1], run_slot.astype(np.float32)), seat
        assert not slots[2:].any()
        table = one_hot(57, face("5R"), face("5R"), face("5Y"), ROOK, face("11G"), face("12G"), face("14G"), ROOK)
        assert np.array_equal(part(env, P(seat), "table"), table)
        assert np.array_equal(part(env, P(seat), "gone_down"), one_hot(n, (0 - seat) % n))
        assert not part(env, P(seat), "contract_left").any()
        assert np.array_equal(part(env, P(seat), "phase"), one_hot(4, 1))
        assert raw.observe(P(seat))["observation"].min() >= 0
    # the card taken from the discard pile: taken_face and known_held until played
    assert np.array_equal(part(env, P(0), "taken_face"), one_hot(57, face("13B")))
    assert "discard 13B" not in legal(env) and "discard 1B" in legal(env)  # the discard rule
    assert part(env, P(1), "known_held").reshape(3, 57)[2][face("13B")] == 1


def test_swapped_rook_is_owed_and_known():
    """Seat 1 swaps the run's Rook for 13G: wilds_owed is 1 and the Rook is known held."""
    n = 4
    h0 = ["5R", "5R", "5Y", "ROOK", "11G", "12G", "14G", "ROOK", "1B", "3Y", "8G", "10B"]
    h1 = ["13G", "9R", "9Y", "9G", "1Y", "2Y", "3Y", "6B", "8B", "10Y", "12R", "3R"]
    deck = arrange_deck(toonerville_rook_cards(n), n, 3, [h0, h1, None, None], "13B", ["2Y", "4Y"])
    env = reset_to(toonerville_rook_v0.env(num_players=n), deck, 3, 2)
    play(env, "draw discard", "meld set 5 RRY +1", "meld run G 11 14", "discard 1B", "draw stock")
    while desc(env)["phase"] == "buy":
        play(env, "pass")
    assert env.agent_selection == P(1) and "swap 13G on 1" in legal(env)
    play(env, "swap 13G on 1")
    d = desc(env)
    assert d["wilds_owed"] == 1 and "ROOK" in d["hands"][P(1)]
    assert d["melds"][1]["cards"] == ["11G", "12G", "14G", "13G"] and d["melds"][1]["represents"] == []
    for seat in range(n):
        assert part(env, P(seat), "wilds_owed")[0] == 1
    assert part(env, P(0), "known_held").reshape(3, 57)[0][ROOK] == 1
    assert not any(t.startswith("discard") for t in legal(env))  # the Rook must be played first
    # a player not yet down plays it in this turn's going down
    assert "meld run Y 1 4" in legal(env)
    play(env, "meld run Y 1 4")
    assert desc(env)["phase"] == "going_down" and desc(env)["wilds_owed"] == 0
    assert part(env, P(1), "wilds_owed")[0] == 0 and part(env, P(0), "known_held").reshape(3, 57)[0][ROOK] == 0
    play(env, "meld set 9 RYG")
    d = desc(env)
    assert d["gone_down"][P(1)] and d["phase"] == "play" and "discard 12R" in legal(env)
    assert d["melds"][2] == {"slot": 2, "owner": P(1), "kind": "run", "cards": ["1Y", "2Y", "3Y", "ROOK"],
                             "represents": ["4Y"]}


@pytest.mark.parametrize("n", PLAYERS)
def test_masks_legal_text_and_action_space_in_every_state(n):
    """Over a short game with buy questions: the same Discrete for every agent in every
    state, a mask only for the agent to act, matching ``legal_actions_text`` (ascending),
    and in a buy question exactly ``buy`` and ``pass``."""
    env = toonerville_rook_v0.env(num_players=n, max_turns_per_round=6)
    raw = env.unwrapped
    expected = spaces.Discrete(NUM_ACTIONS[n])
    rng = np.random.default_rng(n)
    env.reset(seed=n)
    questions = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        for a in env.possible_agents:
            assert env.action_space(a) == expected
            if a != agent:
                assert not raw.observe(a)["action_mask"].any()
        legal_ids = np.flatnonzero(obs["action_mask"]).tolist()
        assert raw.legal_actions_text() == [raw.action_to_text(a) for a in legal_ids]
        assert raw.engine.legal_actions(raw.game_state) == legal_ids
        d = raw.describe()
        assert d["to_act"] == agent
        if d["phase"] == "buy":
            questions += 1
            assert legal_ids == [BUY, PASS] and d["buy_question"]["asked"] == agent != d["current"]
        else:
            assert BUY not in legal_ids and PASS not in legal_ids and d["current"] == agent
        env.step(int(rng.choice(legal_ids)))
    assert questions > 10


# ---------------------------------------------------------------- determinism and snapshots
def _trace(env, actions: list[int]) -> list:
    """Observations and masks of every agent (as bytes), rewards and ``describe()`` after
    each action."""
    raw = env.unwrapped
    out = []
    for action in actions:
        env.step(action)
        out.append((
            env.agent_selection if env.agents else None,
            {a: (raw.observe(a)["observation"].tobytes(), raw.observe(a)["action_mask"].tobytes())
             for a in env.possible_agents},
            dict(raw.rewards), dict(raw._cumulative_rewards), raw.describe(),
        ))
    return out


def _random_actions(env, seed: int, rng_seed: int, options=None) -> list[int]:
    env.reset(seed=seed, options=options)
    rng = np.random.default_rng(rng_seed)
    actions = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        actions.append(_random_legal(obs, rng))
        env.step(actions[-1])
    return actions


@pytest.mark.parametrize("n", PLAYERS)
def test_same_seed_and_actions_give_identical_games(n):
    """Same seed + same actions = identical observations, masks, rewards and describe(), bit
    for bit, buy questions included: in a fresh env and in one reused after another game."""
    def make():
        return toonerville_rook_v0.env(num_players=n, max_turns_per_round=6)

    actions = _random_actions(make(), seed=99, rng_seed=1)
    assert actions.count(BUY) >= 3 and actions.count(PASS) >= 10
    fresh, reused = make(), make()
    _random_actions(reused, seed=5, rng_seed=2)  # a different game first
    traces = []
    for env in (fresh, reused):
        env.reset(seed=99)
        traces.append(_trace(env, actions))
    assert traces[0] == traces[1]
    assert fresh.unwrapped.game_state.phase == Phase.GAME_OVER
    assert len(fresh.unwrapped.game_state.round_penalties) == 11
    assert any(t[4]["phase"] == "buy" for t in traces[0])
    # a different seed deals differently
    other = make()
    other.reset(seed=100)
    fresh.reset(seed=99)
    assert other.unwrapped.describe()["hands"] != fresh.unwrapped.describe()["hands"]
    assert other.unwrapped.observe(P(0))["observation"].tobytes() != fresh.unwrapped.observe(P(0))[
        "observation"].tobytes()


@pytest.mark.parametrize("n, passes", [(3, 0), (4, 1), (5, 2)])
def test_get_state_set_state_in_the_middle_of_a_buy_question(n, passes):
    env = toonerville_rook_v0.env(num_players=n, max_turns_per_round=8)
    raw = env.unwrapped
    actions = _random_actions(env, seed=7, rng_seed=3)
    # a point in round 2 or later, in a buy question after `passes` passes
    env.reset(seed=7)
    k, seen = 0, 0
    for k, action in enumerate(actions):
        env.step(action)
        st = raw.game_state
        if st.phase == Phase.BUY:
            seen = seen + 1 if action == PASS else 0
            if st.round >= 1 and seen == passes:
                break
    else:
        pytest.fail("no buy question found")
    assert env.agent_selection == P(raw.game_state.asked)
    rest = actions[k + 1:]
    snapshot = raw.get_state()
    expected = _trace(env, rest)
    assert raw.game_state.phase == Phase.GAME_OVER
    raw.set_state(snapshot)  # the snapshot is unaffected by the play since
    assert raw.describe()["phase"] == "buy"
    assert _trace(env, rest) == expected
    other = toonerville_rook_v0.env(num_players=n, max_turns_per_round=8)
    other.reset(seed=12345)
    other.unwrapped.set_state(snapshot)
    assert other.agent_selection == P(snapshot.state.asked)
    assert _trace(other, rest) == expected
    with pytest.raises(ValueError):
        raw.set_state("junk")
    with pytest.raises(ValueError):
        toonerville_rook_v0.raw_env(num_players=3 if n != 3 else 4).set_state(snapshot)


# ---------------------------------------------------------------- rewards
def test_round_penalties_score_the_cards_left():
    """1..9 score 5, 10..14 score 10, a Rook 25: a dead round at the cap (1 turn) scores
    every hand as it stands, the bought and penalty cards included."""
    n = 4
    env = toonerville_rook_v0.env(num_players=n, reward_mode="penalty", max_turns_per_round=1)
    deck = arrange_deck(toonerville_rook_cards(n), n, 3, BUY_HANDS, "7R", ["9G", "13G"])
    reset_to(env, deck, 3, 1)
    play(env, "draw stock", "pass", "buy", "discard 13R")
    pens = env.unwrapped.game_state.round_penalties[0]
    value = {**{k: 5 for k in range(1, 10)}, **{k: 10 for k in range(10, 15)}}

    def penalty(cards):
        return sum(25 if c == "ROOK" else value[int(c[:-1])] for c in cards)

    hands = [BUY_HANDS[0] + ["13G"], BUY_HANDS[1], BUY_HANDS[2] + ["7R", "9G"], BUY_HANDS[3]]
    hands[0].remove("13R")
    assert pens == [penalty(h) for h in hands]
    assert dict(env.unwrapped.rewards) == pytest.approx({P(i): -pens[i] / 100 for i in range(n)})


# ---------------------------------------------------------------- the buy limit
@pytest.mark.parametrize("cap", [0, 1])
def test_max_buys_per_round(cap):
    """``max_buys_per_round=0``: no buy question is ever asked; 1: a seat that bought this
    round is not asked again until the next round."""
    env = toonerville_rook_v0.env(num_players=4, max_buys_per_round=cap, max_turns_per_round=12)
    raw = env.unwrapped
    for seed in range(2):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        stock_draws = 0
        for agent in env.agent_iter():
            obs, _, term, _, _ = env.last()
            if term:
                env.step(None)
                continue
            st = raw.game_state
            if cap == 0:
                assert st.phase != Phase.BUY and not part(env, agent, "phase")[3]
            else:
                assert all(b <= cap for b in st.buys)
                if st.phase == Phase.BUY:
                    assert st.buys[st.asked] < cap
            action = _random_legal(obs, rng)
            if st.phase == Phase.BUY and rng.random() < 0.5:
                action = BUY  # buy often, to reach the cap
            stock_draws += action == 0
            env.step(action)
        assert stock_draws > 20
        assert len(raw.game_state.round_penalties) == 11
    # the scenario: with the cap at 0, `draw stock` draws at once
    env = buy_env(max_buys_per_round=0) if cap == 0 else buy_env(max_buys_per_round=1)
    d = desc(env)
    if cap == 0:
        assert d["phase"] == "play" and d["buy_question"] is None and "9G" in d["hands"][P(0)]
    else:
        assert d["buy_question"] == {"card": "7R", "asked": P(1)}


@pytest.mark.parametrize("bad", [True, 2.7, "3", None])
def test_action_to_text_refuses_what_is_not_an_integer_id(bad):
    raw = toonerville_rook_v0.raw_env()
    with pytest.raises(ValueError, match="outside the action space"):
        raw.action_to_text(bad)
    assert raw.action_to_text(np.int64(2)) == "buy"
